//! The `Skill` tool: the model sees only each skill's name and description (in this
//! tool's description); calling it loads the skill's instructions. A skill the model
//! calls grants nothing: its `allowed-tools` are not rules, and the calls it leads to
//! are asked like any other unless the person's rules allow them (as Claude Code does;
//! a person who types `/name` grants them for that turn, as with a command).
//! `Skill(name)` permission rules name the skill; hooks see the call like any other.
//! The model may run a custom command the same way (as Claude Code lets it), when the
//! command allows it and runs no shell line: it gets the command's text with its
//! arguments, and the command's `allowed-tools` grant nothing. A skill or command with
//! `context: fork` runs as a subagent (its `agent` type) and its report is the result;
//! its `hooks` run from its first use on. A skill's `` !`cmd` `` lines run when the
//! model loads it, each asked like any call (see [`run_shell_lines`]).

use rein_prompt::commands::CommandDef;
use rein_prompt::skills::SkillDef;
use rein_tools::{Effects, Other, RuleKind, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

/// `Skill(pdf)` names the skill.
const SKILL_RULES: RuleKind = RuleKind::Field { default: Some("skill") };

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SkillInput {
    /// The skill's name, as listed.
    pub skill: String,
    /// Arguments for the skill, if it takes any.
    #[serde(default)]
    pub args: Option<String>,
}

/// The skills of a session, offered to the model.
pub struct SkillTool {
    pub skills: Vec<SkillDef>,
    /// Commands the model may run (see [`model_may_run`]).
    pub commands: Vec<CommandDef>,
}

/// Whether the model may run `command` through the Skill tool: it does not forbid it
/// (`disable-model-invocation`), it is no skill (skills are offered as themselves), and
/// it runs no shell line (those stay the person's to run).
pub(crate) fn model_may_run(command: &CommandDef) -> bool {
    command.model_invocable && !command.label.starts_with("skill") && !command.runs_shell()
}

/// What the Skill tool found by name.
enum Found<'a> {
    Skill(&'a SkillDef),
    Command(&'a CommandDef),
}

impl SkillTool {
    fn find(&self, name: &str) -> Option<Found<'_>> {
        let name = name.trim().trim_start_matches('/');
        if let Some(s) = self.skills.iter().find(|s| s.name == name && s.model_invocable) {
            return Some(Found::Skill(s));
        }
        rein_prompt::commands::find_command(&self.commands, name).map(Found::Command)
    }
}

impl Tool for SkillTool {
    type Input = SkillInput;

    fn name(&self) -> &'static str {
        "Skill"
    }

    fn description(&self) -> String {
        let mut d = "Runs a skill: a packaged set of instructions (and files) for a kind of task. When a task matches \
                     a skill's description, call this tool with its name first; its instructions come back as the \
                     result, and files it mentions are in its base directory (read them when needed).\n\nSkills:"
            .to_string();
        // A skill with `paths:` is named when a file it is about is first touched.
        for s in self.skills.iter().filter(|s| s.model_invocable && s.paths.is_empty()) {
            d.push_str(&format!("\n- {}: {}", s.name, s.description));
        }
        if !self.commands.is_empty() {
            d.push_str("\n\nCommands (call with the command's name and its arguments in args):");
            for c in &self.commands {
                d.push_str(&format!("\n- {}: {}", c.name, c.description));
            }
        }
        d
    }

    fn validate(&self, input: &SkillInput, _: &ToolContext) -> Result<(), rein_tools::InputError> {
        match self.find(&input.skill) {
            Some(_) => Ok(()),
            None => Err(format!("unknown skill {:?}", input.skill).into()),
        }
    }

    fn effects(&self, input: &SkillInput, _: &ToolContext) -> Effects {
        let forks = match self.find(&input.skill) {
            Some(Found::Skill(s)) => s.fork,
            Some(Found::Command(c)) => c.fork.is_some(),
            None => false,
        };
        if forks {
            // A subagent runs it; its own calls pass the chain one by one.
            return Effects::subagent();
        }
        // Loading instructions changes nothing but the session's own state.
        Effects { other: vec![Other::SessionState], read_only: true, ..Effects::reading(Vec::new()) }
    }

    fn rule_kind(&self) -> RuleKind {
        SKILL_RULES
    }

    fn offered_to_subagents(&self) -> bool {
        false
    }

    fn offered_to_model(&self) -> bool {
        self.skills.iter().any(|s| s.model_invocable) || !self.commands.is_empty()
    }

    async fn call(&self, input: SkillInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args = input.args.as_deref().unwrap_or("");
        let (name, text, hooks, fork, path) = match self.find(&input.skill) {
            Some(Found::Skill(skill)) => {
                let fork = skill.fork.then(|| skill.agent.clone().unwrap_or_else(|| "general-purpose".into()));
                let prepared = match skill.prepared(args, &ctx.cwd) {
                    Ok(prepared) => prepared,
                    Err(e) => return Ok(ToolOutput::failure(format!("skill {:?} cannot be loaded: {e}", skill.name))),
                };
                let text = match run_shell_lines(ctx, &skill.name, &prepared.shell).await {
                    Ok(outputs) => prepared.fill(&outputs),
                    Err(why) => return Ok(ToolOutput::failure(why.to_string())),
                };
                (&skill.name, text, &skill.hooks, fork, skill.dir.join("SKILL.md"))
            }
            Some(Found::Command(c)) => {
                let expansion = match c.expand(args, &ctx.cwd, "") {
                    Ok(expansion) => expansion,
                    Err(e) => return Ok(ToolOutput::failure(format!("command {:?} cannot be loaded: {e}", c.name))),
                };
                // Read only now: a file changed since the start to run shell lines stays the person's.
                if !expansion.shell.is_empty() {
                    return Ok(ToolOutput::failure(format!("/{} runs shell lines: only the user runs it", c.name)));
                }
                (&c.name, expansion.text, &c.hooks, c.fork.clone(), c.path.clone())
            }
            None => return Ok(ToolOutput::failure(format!("unknown skill {:?}", input.skill))),
        };
        if let Some(value) = hooks {
            add_hooks(ctx, name, value, &path);
        }
        match fork {
            Some(agent) => run_fork(ctx, &agent, name, text).await,
            None => Ok(ToolOutput::text(text)),
        }
    }
}

/// A skill's `` !`cmd` `` lines, in order, each after the PreSkillShellCommand hooks and
/// through the whole chain like a call of the model's (the skill's `allowed-tools` grant
/// nothing): their outputs, or why the skill was not loaded (a line failed, was refused
/// or blocked — as in Claude Code, the skill stops there).
async fn run_shell_lines(ctx: &ToolContext, skill: &str, lines: &[String]) -> Result<Vec<String>, SkillNotLoaded> {
    if lines.is_empty() {
        return Ok(Vec::new());
    }
    let services = crate::EngineServices::of(ctx).map_err(|e| SkillNotLoaded::NoEngine(e.0))?;
    let mut outputs = Vec::new();
    for line in lines {
        match crate::direct::run_shell_line(&services.registry, &services.gate, ctx, Some(skill), line).await {
            Ok(output) => outputs.push(output),
            Err(cause) => {
                return Err(SkillNotLoaded::ShellLine { skill: skill.to_string(), line: line.clone(), cause });
            }
        }
    }
    Ok(outputs)
}

/// Why a skill was not loaded.
#[derive(Debug, thiserror::Error)]
enum SkillNotLoaded {
    #[error("{0}")]
    NoEngine(String),
    #[error("the skill {skill} was not loaded: its shell line `{line}`: {cause}")]
    ShellLine { skill: String, line: String, cause: crate::direct::ShellLineError },
}

/// A skill's or command's `hooks`, from now on for the rest of the session.
pub(crate) fn add_hooks(ctx: &ToolContext, name: &str, value: &serde_json::Value, path: &std::path::Path) {
    let Some(hooks) = crate::EngineServices::of(ctx).ok().and_then(|s| s.gate.hooks.clone()) else { return };
    match hooks.add_scoped(name, value, &path.display().to_string()) {
        Ok(_) => {}
        Err(e) => tracing::warn!(skill = %name, error = %e, "the skill's hooks are not used"),
    }
}

/// `context: fork`: `prompt` run by a subagent of type `agent`; its report is the result.
pub(crate) async fn run_fork(
    ctx: &ToolContext,
    agent: &str,
    name: &str,
    prompt: String,
) -> Result<ToolOutput, ToolError> {
    let services = crate::EngineServices::of(ctx)?;
    let input = serde_json::json!({"description": format!("/{name}"), "prompt": prompt, "subagent_type": agent});
    let call = services.registry.prepare("Agent", &input).map_err(|e| ToolError::new(e.to_string()))?;
    call.validate(ctx).map_err(|e| ToolError::new(e.to_string()))?;
    call.call(ctx.clone()).await
}

impl crate::Engine {
    /// A command the person typed with `context: fork`: `prompt` run by a subagent of
    /// type `agent`; `Ok(report)`, or why it did not run.
    pub async fn run_forked_command(&self, agent: &str, name: &str, prompt: String) -> Result<String, ToolError> {
        let ctx = self.tool_context();
        match run_fork(&ctx, agent, name, prompt).await {
            Ok(out) if !out.is_error => Ok(out.content.to_text()),
            Ok(out) => Err(ToolError::new(out.content.to_text())),
            Err(e) => Err(e),
        }
    }

    /// A command's `hooks` (typed by the person), from now on for the session.
    pub fn add_command_hooks(&self, def: &CommandDef) {
        if let Some(value) = &def.hooks {
            add_hooks(&self.tool_context(), &def.name, value, &def.path);
        }
    }
}
