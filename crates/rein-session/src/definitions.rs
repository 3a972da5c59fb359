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
    /// Named workflow scripts (offered as commands once the session knows workflows
    /// are on).
    pub workflows: Vec<rein_prompt::workflows::WorkflowDef>,
    pub skipped: Vec<Skipped>,
}

impl Definitions {
    /// The three kinds are read side by side (installs with hundreds of definitions
    /// start sooner).
    pub fn load(cwd: &Path, home: Option<&Path>) -> Definitions {
        let (LoadedAgents { agents, mut skipped }, (mut commands, more_commands), (skills, more_skills)) =
            std::thread::scope(|s| {
                let commands = s.spawn(|| load_commands(cwd, home));
                let skills = s.spawn(|| load_skills(cwd, home));
                let agents = load_agents(cwd, home);
                let commands = commands.join().unwrap_or_else(|_| (Vec::new(), Vec::new()));
                let skills = skills.join().unwrap_or_else(|_| (Vec::new(), Vec::new()));
                (agents, commands, skills)
            });
        // Rarely there: read here rather than on a thread of its own.
        let (workflows, more_workflows) = rein_prompt::workflows::load_workflows(cwd, home);
        skipped.extend(more_workflows);
        skipped.extend(more_commands);
        skipped.extend(more_skills);
        // A person calls a skill as `/name args`; a skill beats a command of its name.
        let by_skills: std::collections::HashSet<&str> =
            skills.iter().filter(|s| s.user_invocable).map(|s| s.name.as_str()).collect();
        commands.retain(|c| !by_skills.contains(c.name.as_str()));
        commands.extend(skills.iter().filter(|s| s.user_invocable).map(skill_command));
        Definitions { agents, commands, skills, workflows, skipped }
    }
}

/// A skill as the command `/name`.
pub(crate) fn skill_command(skill: &SkillDef) -> CommandDef {
    CommandDef {
        name: skill.name.clone(),
        description: skill.description.clone(),
        argument_hint: skill.argument_hint.clone(),
        allowed_tools: skill.allowed_tools.clone(),
        model: skill.model.clone(),
        model_invocable: skill.model_invocable,
        body: rein_prompt::body::Body::skill_command(&skill.dir, &skill.body),
        // Never read for a skill: the model is offered skills as themselves.
        shell: false,
        label: format!("skill ({})", skill.scope),
        path: skill.dir.join("SKILL.md"),
        hooks: skill.hooks.clone(),
        fork: skill.fork.then(|| skill.agent.clone().unwrap_or_else(|| "general-purpose".into())),
    }
}
