//! The Markdown definitions a session offers — subagents, custom commands, skills —
//! read once from the project's and the user's `.claude` folders, with the files that
//! were not taken (for the notices and `rein doctor`).

use std::path::Path;

use rein_prompt::agents::{AgentDef, LoadedAgents, load_agents};
use rein_prompt::commands::{CommandDef, load_commands};
use rein_prompt::frontmatter::Skipped;
use rein_prompt::skills::{SkillDef, load_skills};

/// What the definitions folders hold.
pub struct Definitions {
    pub agents: Vec<AgentDef>,
    /// Custom commands, and every skill a person may call as `/name`.
    pub commands: Vec<CommandDef>,
    pub skills: Vec<SkillDef>,
    pub skipped: Vec<Skipped>,
}

impl Definitions {
    pub fn load(cwd: &Path, home: Option<&Path>) -> Definitions {
        let LoadedAgents { agents, mut skipped } = load_agents(cwd, home);
        let (mut commands, more) = load_commands(cwd, home);
        skipped.extend(more);
        let (skills, more) = load_skills(cwd, home);
        skipped.extend(more);
        // A person calls a skill as `/name args`; a skill beats a command of its name.
        for skill in skills.iter().filter(|s| s.user_invocable) {
            commands.retain(|c| c.name != skill.name);
            commands.push(skill_command(skill));
        }
        Definitions { agents, commands, skills, skipped }
    }
}

/// A skill as the command `/name`.
fn skill_command(skill: &SkillDef) -> CommandDef {
    CommandDef {
        name: skill.name.clone(),
        description: skill.description.clone(),
        argument_hint: skill.argument_hint.clone(),
        allowed_tools: skill.allowed_tools.clone(),
        model: skill.model.clone(),
        model_invocable: skill.model_invocable,
        body: skill.loaded("$ARGUMENTS"),
        label: format!("skill ({})", skill.scope),
        path: skill.dir.join("SKILL.md"),
    }
}
