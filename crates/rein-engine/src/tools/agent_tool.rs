//! The Agent tool (legacy name Task): runs a subagent — a fresh conversation with its
//! definition's system prompt, tools (`tools` less `disallowedTools`, of those offered
//! to subagents), model (`CLAUDE_CODE_SUBAGENT_MODEL`, the call's, the definition's or
//! the session's), `maxTurns`, `effort`, preloaded `skills` and `permissionMode` (which
//! a project's definition may only narrow), the rest taken from the engine running the
//! call — and returns its final answer. Its end fires SubagentStop hooks instead of Stop;
//! the definition's own `hooks` run during its run only, and so do the MCP servers its
//! `mcpServers` defines (offered to it alone); the session's servers it names are
//! offered to it whatever its `tools`.

use std::sync::Arc;

use rein_policy::PermissionMode;
use rein_prompt::agents::{AgentDef, AgentSource};
use rein_prompt::skills::SkillDef;
use rein_protocol::Message;
use rein_tools::{Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{End, Engine, EngineServices};

/// The session's subagent types; the rest comes from the engine running the call.
#[derive(Clone)]
pub struct AgentTool {
    pub agents: Vec<AgentDef>,
    /// The environment block for subagents' system prompts.
    pub environment: String,
    /// Where subagent transcripts go (`<session>/subagents/`), if the session has one.
    pub transcripts: Option<std::path::PathBuf>,
    /// The session's skills (a definition's `skills` are preloaded from them).
    pub skills: Vec<SkillDef>,
    /// `CLAUDE_CODE_SUBAGENT_MODEL`: the model of every subagent.
    pub subagent_model: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AgentInput {
    /// The task in 3-5 words.
    pub description: String,
    pub prompt: String,
    /// Default general-purpose.
    pub subagent_type: Option<String>,
    /// sonnet, opus, haiku or a model id.
    pub model: Option<String>,
    /// Run it in the background: the call returns at once with the agent's id; you
    /// are told when it ends, with its report (TaskOutput waits for it, TaskStop stops it).
    pub run_in_background: Option<bool>,
    /// A name for the agent, shown with its id.
    pub name: Option<String>,
    /// `worktree`: the agent works in a git worktree of its own (kept when it changed
    /// something, removed when not).
    pub isolation: Option<Isolation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    Worktree,
}

/// How a subagent is run: under an id chosen beforehand (a background one's), and in a
/// worktree of its own.
#[derive(Debug, Default)]
struct RunHow {
    id: Option<String>,
    /// A background agent's name, on the questions it puts to the person.
    name: Option<String>,
    worktree: bool,
}

/// `Agent(Explore)` names the subagent type.
const AGENT_RULES: RuleKind = RuleKind::Field { default: Some("subagent_type") };

impl Tool for AgentTool {
    type Input = AgentInput;

    fn name(&self) -> &'static str {
        "Agent"
    }

    fn description(&self) -> String {
        let mut d = "Runs a subagent on a task of its own (a search, research, a multi-step change) and returns its \
                     final report; it sees only the prompt you give it. Several can run in parallel. Agent types \
                     (subagent_type) and their tools:"
            .to_string();
        for a in &self.agents {
            let tools = match &a.tools {
                Some(t) => t.join(", "),
                None if a.disallowed_tools.is_empty() => "*".to_string(),
                // The built-in types that change nothing: their instructions say so.
                None if a.source == AgentSource::BuiltIn => "all but Agent and the editing tools".to_string(),
                None => format!("all except {}", a.disallowed_tools.join(", ")),
            };
            d.push_str(&format!("\n- {}: {} (Tools: {tools})", a.name, a.description));
        }
        d
    }

    fn validate(&self, input: &AgentInput, ctx: &ToolContext) -> Result<(), rein_tools::InputError> {
        if input.isolation == Some(Isolation::Worktree) {
            rein_tools::git_worktree::place(&ctx.cwd, "agent").map_err(|e| e.to_string())?;
            crate::worktree_tools::refuse_untrusted(&ctx.cwd)?;
        }
        let wanted = input.subagent_type.as_deref().unwrap_or("general-purpose");
        if self.definition(wanted).is_some() {
            return Ok(());
        }
        let known: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
        Err(format!("unknown subagent_type {wanted:?}; the types are: {}", known.join(", ")).into())
    }

    /// A subagent's own calls pass the chain one by one; subagents may run side by side.
    fn effects(&self, _: &AgentInput, _: &ToolContext) -> Effects {
        Effects { concurrency_safe: true, ..Effects::subagent() }
    }

    fn rule_kind(&self) -> RuleKind {
        AGENT_RULES
    }

    /// Subagents do not nest.
    fn offered_to_subagents(&self) -> bool {
        false
    }

    async fn call(&self, input: AgentInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let wanted = input.subagent_type.as_deref().unwrap_or("general-purpose").to_string();
        // A definition may ask to run in the background (`background: true`); the call
        // decides when it says. Where nothing can run in the background, it runs here.
        let by_definition = self.definition(&wanted).is_some_and(|d| d.background) && background_agents(ctx).is_some();
        if input.run_in_background.unwrap_or(by_definition) {
            return self.start_in_background(wanted, input, ctx);
        }
        let how = RunHow { id: None, name: None, worktree: input.isolation == Some(Isolation::Worktree) };
        let (outcome, _) = self.run_subagent_as(how, &wanted, input.prompt, input.model, None, ctx).await?;
        let agent_type = wanted;
        match outcome.end {
            End::Completed | End::Stopped(_) => Ok(ToolOutput::text(if outcome.result_text.is_empty() {
                "(the agent finished without a report)".to_string()
            } else {
                outcome.result_text
            })),
            End::MaxTurns | End::MaxBudget => Ok(ToolOutput::failure(format!(
                "The {agent_type} agent hit its limit. Partial report: {}",
                outcome.result_text
            ))),
            End::Interrupted => Err(ToolError::new(rein_protocol::INTERRUPTED)),
            End::Deferred(call) => Err(ToolError::new(format!(
                "a hook deferred the agent's {} call; subagents cannot be resumed",
                call.name
            ))),
            End::Failed(e) => Err(ToolError::new(format!("the {agent_type} agent failed: {e}"))),
        }
    }
}

impl AgentTool {
    /// Start the subagent on its own task and return its id at once. It runs until it
    /// ends or is stopped (TaskStop, `/tasks stop`, the session's end), whatever becomes
    /// of the turn that started it; how it ended is kept for TaskOutput and the model's
    /// next message.
    fn start_in_background(
        &self,
        wanted: String,
        input: AgentInput,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let agents =
            background_agents(ctx).ok_or_else(|| ToolError::new("this session cannot run agents in the background"))?;
        let id = next_agent_id();
        let name = input.name.clone().filter(|n| !n.trim().is_empty()).unwrap_or_else(|| wanted.clone());
        let abort = tokio_util::sync::CancellationToken::new();
        let mut own = ctx.clone();
        own.abort = abort.clone();
        agents.start(&id, &name, &input.description, abort).map_err(|e| ToolError::new(e.to_string()))?;
        let (tool, agent, shown) = (self.clone(), id.clone(), name.clone());
        tokio::spawn(async move {
            let how = RunHow {
                id: Some(agent.clone()),
                name: Some(shown),
                worktree: input.isolation == Some(Isolation::Worktree),
            };
            let ran = tool.run_subagent_as(how, &wanted, input.prompt, input.model, None, &own).await;
            let state = match ran {
                Ok((outcome, _)) => match outcome.end {
                    End::Completed | End::Stopped(_) | End::MaxTurns | End::MaxBudget => {
                        rein_tools::AgentState::Done(outcome.result_text)
                    }
                    End::Interrupted => rein_tools::AgentState::Stopped,
                    End::Deferred(call) => rein_tools::AgentState::Failed(format!(
                        "a hook deferred the agent's {} call; subagents cannot be resumed",
                        call.name
                    )),
                    End::Failed(e) => rein_tools::AgentState::Failed(e.to_string()),
                },
                Err(e) => rein_tools::AgentState::Failed(e.to_string()),
            };
            agents.finish(&agent, state);
        });
        Ok(ToolOutput::text(format!(
            "Started the agent {id} ({name}) in the background. You will be told when it ends, with its report; \
             TaskOutput (task_id {id}) waits for it, TaskStop stops it."
        )))
    }

    /// Run a subagent of type `wanted` on `prompt` to its end. With `schema`, it must end
    /// by calling StructuredOutput with an input that matches (it is reminded until it
    /// does); the validated input is returned beside the outcome.
    /// With `worktree`, it works in a git worktree of its own (kept when it changed
    /// something, as the Agent tool's `isolation: "worktree"`).
    pub(crate) async fn run_subagent(
        &self,
        wanted: &str,
        task: String,
        (model, worktree): (Option<String>, bool),
        schema: Option<serde_json::Value>,
        ctx: &ToolContext,
    ) -> Result<(crate::Outcome, Option<serde_json::Value>), ToolError> {
        if worktree {
            rein_tools::git_worktree::place(&ctx.cwd, "agent").map_err(|e| ToolError::new(e.to_string()))?;
            crate::worktree_tools::refuse_untrusted(&ctx.cwd).map_err(|e| ToolError::new(e.to_string()))?;
        }
        let how = RunHow { worktree, ..RunHow::default() };
        self.run_subagent_as(how, wanted, task, model, schema, ctx).await
    }

    /// [`run_subagent`](Self::run_subagent) with the agent's id chosen by the caller.
    async fn run_subagent_as(
        &self,
        how: RunHow,
        wanted: &str,
        task: String,
        model: Option<String>,
        schema: Option<serde_json::Value>,
        ctx: &ToolContext,
    ) -> Result<(crate::Outcome, Option<serde_json::Value>), ToolError> {
        let def = self.definition(wanted).ok_or_else(|| ToolError::new(format!("unknown subagent_type {wanted:?}")))?;
        let agent_type = def.name.clone();
        let session = EngineServices::of(ctx)?;
        // The session's servers its `mcpServers` names are offered whatever its `tools`.
        let named: Vec<String> = match &session.config.subagent_servers {
            Some(servers) => def.mcp_server_names().iter().map(|s| servers.0.tool_prefix(s)).collect(),
            None => Vec::new(),
        };
        let offered = {
            let def = def.clone();
            move |name: &str| def.offers(name) || (named.iter().any(|p| name.starts_with(p)) && !def.disallows(name))
        };
        let mut registry = session.registry.for_subagent(&offered);
        registry.share_late_tools_where(&session.registry, offered);
        let answer = std::sync::Arc::new(std::sync::Mutex::new(None));
        if let Some(schema) = &schema {
            let tool = rein_tools::StructuredOutput::new(schema.clone(), answer.clone());
            registry
                .register_external(Arc::new(tool))
                .map_err(|e| ToolError::new(format!("the agent cannot answer in the schema: {e}")))?;
        }
        // The servers it defines run for its run only, for it alone.
        let own = self.start_own_servers(def, &session.config).await;
        for tool in &own.tools {
            if !def.disallows(&tool.spec().name)
                && let Err(e) = registry.register_external(tool.clone())
            {
                tracing::warn!(agent = %agent_type, error = %e, "a tool of the subagent's server is not offered");
            }
        }
        let mut config = session.config.clone();
        let instructions: String = own.instructions.iter().map(|i| format!("\n\n{i}")).collect();
        let prompt =
            def.prompt.text().map_err(|e| ToolError::new(format!("subagent {agent_type:?} cannot start: {e}")))?;
        config.system = format!("{prompt}{}{instructions}\n\n{}", self.preloaded_skills(def), self.environment).into();
        if schema.is_some() {
            config.required_tool = Some(rein_tools::STRUCTURED_OUTPUT.to_string());
        }
        let model = self.subagent_model.as_deref().or(model.as_deref()).or(def.model.as_deref());
        if let Some(m) = model {
            config.model = config.aliases.resolve(m);
        }
        if def.max_turns.is_some() {
            config.max_turns = def.max_turns;
        }
        if let Some(effort) = def.effort.as_deref().and_then(rein_model::Effort::parse) {
            config.thinking.effort = Some(effort);
        }
        let mut gate = session.gate.clone();
        // Its own mode, over the session's rules: what either remembers counts for both.
        if let Some(mode) = subagent_mode(def, gate.policy.get().mode) {
            gate.policy = gate.policy.with_own_mode(mode, &format!("the {agent_type} subagent's permissionMode"));
        }
        // The definition's own hooks run for this run only (its Stop hooks as SubagentStop).
        if let (Some(value), Some(hooks)) = (&def.hooks, &gate.hooks) {
            let mut config = hooks.config.clone();
            match config.add_definition(value, &def.path.display().to_string(), true) {
                Ok(true) => {
                    let mut own = (**hooks).clone();
                    own.config = config;
                    gate.hooks = Some(Arc::new(own));
                }
                Ok(false) => tracing::warn!(agent = %agent_type, "the settings keep the subagent's hooks from running"),
                Err(e) => tracing::warn!(agent = %agent_type, error = %e, "the subagent's hooks are not used"),
            }
        }
        let own_hooks = gate.hooks.clone();
        let mut sub_ctx = ctx.clone();
        sub_ctx.abort = ctx.abort.child_token();
        let background = how.id.is_some();
        let agent_id = how.id.unwrap_or_else(next_agent_id);
        // Its questions say whose they are.
        gate.asker = Some(match &how.name {
            Some(name) => format!("The background agent {name} ({agent_id})"),
            None => format!("The {agent_type} agent"),
        });
        // A background agent is the session's teammate (the team: the session's id).
        let team = ctx.session_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let teammate = how.name.clone().filter(|_| background).map(|name| (name, team));
        let mut task = task;
        // A shell of its own, for an agent working elsewhere (a worktree) or beside the
        // session (in the background): neither's `cd` moves the other's commands, whose
        // place is read when a call is decided.
        if how.worktree || background {
            rein_tools::use_own_shell(&mut registry)
                .map_err(|e| ToolError::new(format!("no shell of its own for the agent: {e}")))?;
        }
        // A worktree of its own: its tools start there.
        let worktree = if how.worktree {
            let wt = rein_tools::git_worktree::create(&ctx.cwd, &agent_id)
                .map_err(|e| ToolError::new(format!("no worktree for the agent: {e}")))?;
            sub_ctx.cwd = wt.path.clone();
            sub_ctx.shell_dir = Default::default();
            task = format!(
                "You work in a git worktree of your own at {} (branch {}): relative paths and commands start there; \
                 change files there, not in the main checkout at {}.\n\n{task}",
                wt.path.display(),
                wt.branch,
                ctx.cwd.display()
            );
            Some(wt)
        } else {
            None
        };
        sub_ctx.engine = Default::default();
        let sub_model = config.model.clone();
        let mut engine = Engine::new(session.model.clone(), Arc::new(registry), gate, sub_ctx, config)
            .as_subagent(crate::SubagentInfo { agent_id: agent_id.clone(), agent_type: agent_type.clone(), teammate });
        if let Some(dir) = &self.transcripts {
            let path = dir.join(format!("{agent_id}.jsonl"));
            match rein_transcript::Transcript::open(&path, &agent_id, &ctx.cwd, None) {
                Ok(t) => engine = engine.with_transcript(t),
                Err(e) => tracing::warn!(error = %e, "no subagent transcript"),
            }
        }
        if let Some(hooks) = &own_hooks {
            let start =
                rein_hooks::HookInput::SubagentStart { agent_id: agent_id.clone(), agent_type: agent_type.clone() };
            for c in hooks.fire_input(&start, |_| true).await.context(false) {
                task.push_str(&format!("\n\n<subagent-start-hook>\n{c}\n</subagent-start-hook>"));
            }
        }
        // Its steps go to whoever watches the call (a background agent's to nobody).
        let steps = ctx.steps.clone().filter(|_| !background);
        let mut outcome = engine.run(Message::user_text(task), &mut |event| forward_step(steps.as_ref(), event)).await;
        drop(engine);
        // What the agent cost joins the session's usage and cost (a background agent's
        // at the session's next step after it ends).
        session.side.add(&sub_model, outcome.usage);
        drop(own);
        if let Some(wt) = worktree {
            // Kept when the agent changed something: its report says where.
            if let rein_tools::git_worktree::Finished::Kept(_) = wt.finish(false) {
                outcome.result_text.push_str(&format!(
                    "\n\n[The agent's changes are in the worktree {} on branch {}.]",
                    wt.path.display(),
                    wt.branch
                ));
            }
        }
        let structured = answer.lock().unwrap_or_else(|p| p.into_inner()).take();
        Ok((outcome, structured))
    }

    /// `Ok` when `name` is a subagent type; else the types there are.
    pub(crate) fn knows(&self, name: &str) -> Result<(), rein_tools::InputError> {
        if self.definition(name).is_some() {
            return Ok(());
        }
        let known: Vec<&str> = self.agents.iter().map(|a| a.name.as_str()).collect();
        Err(rein_tools::InputError::Refused(format!(
            "agent type {name:?} not found; the types are: {}",
            known.join(", ")
        )))
    }

    fn definition(&self, name: &str) -> Option<&AgentDef> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// The servers `def` defines itself, started for this run (none without a starter).
    async fn start_own_servers(&self, def: &AgentDef, config: &crate::EngineConfig) -> crate::StartedServers {
        let entries = def.inline_mcp_servers();
        match &config.subagent_servers {
            Some(servers) if !entries.is_empty() => {
                servers.0.start(&def.name, &def.path.display().to_string(), entries).await
            }
            _ => Default::default(),
        }
    }

    /// The instructions of the definition's `skills`, as its prompt's tail.
    fn preloaded_skills(&self, def: &AgentDef) -> String {
        let mut out = String::new();
        for name in &def.skills {
            match self.skills.iter().find(|s| &s.name == name) {
                Some(skill) => match skill.loaded("") {
                    Ok(text) => out.push_str(&format!("\n\n<skill name=\"{name}\">\n{text}\n</skill>")),
                    Err(e) => {
                        tracing::warn!(agent = %def.name, skill = %name, error = %e, "the subagent's skill cannot be read");
                    }
                },
                None => tracing::warn!(agent = %def.name, skill = %name, "the subagent's skill is not installed"),
            }
        }
        out
    }
}

/// Pass a subagent's event on as a step of the call running it.
fn forward_step(steps: Option<&rein_tools::StepSink>, event: crate::EngineEvent) {
    let Some(steps) = steps else { return };
    let step = match event {
        crate::EngineEvent::ToolStarted(call) => rein_tools::AgentStep::ToolStarted(call),
        crate::EngineEvent::Assistant(m) => rein_tools::AgentStep::Assistant(m),
        crate::EngineEvent::ToolResults(m) => rein_tools::AgentStep::ToolResults(m),
        _ => return,
    };
    steps.send(step);
}

/// The session's background agents, where the session can run work in the background
/// (it has a session shell).
pub(crate) fn background_agents(ctx: &ToolContext) -> Option<rein_tools::BackgroundAgents> {
    EngineServices::of(ctx).ok()?.registry.session_shell().map(|s| s.agents())
}

/// A new subagent id, unique in the process.
fn next_agent_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!("agent-{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
}

/// The mode a subagent runs in: its definition's `permissionMode`, except that the
/// session's bypassPermissions and auto modes hold (as in Claude Code), a plan session
/// stays in plan (no other mode is narrower: dontAsk runs what the rules allow, plan
/// runs no change at all), a project's definition never widens the session's mode, and
/// no definition grants bypass.
pub(crate) fn subagent_mode(def: &AgentDef, session: PermissionMode) -> Option<PermissionMode> {
    let asked = PermissionMode::parse(def.permission_mode.as_deref()?)?;
    let holds = [PermissionMode::BypassPermissions, PermissionMode::Auto, PermissionMode::Plan];
    if holds.contains(&session) || asked == session {
        return None;
    }
    let widens = asked.permissiveness() > session.permissiveness();
    if widens
        && (matches!(def.source, AgentSource::Project | AgentSource::Plugin)
            || asked == PermissionMode::BypassPermissions)
    {
        tracing::warn!(agent = %def.name, mode = asked.name(), "the subagent may not widen the session's mode");
        return None;
    }
    Some(asked)
}
