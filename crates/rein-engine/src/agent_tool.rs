//! The Agent tool (legacy name Task): runs a subagent — a fresh conversation with its
//! own system prompt and the same model, tools (those offered to subagents) and
//! permissions, all taken from the engine running the call — and returns its final
//! answer. Its end fires SubagentStop hooks instead of Stop.

use std::sync::Arc;

use rein_prompt::agents::AgentDef;
use rein_protocol::Message;
use rein_tools::{Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{End, Engine, EngineServices};

/// The session's subagent types; the rest comes from the engine running the call.
pub struct AgentTool {
    pub agents: Vec<AgentDef>,
    /// The environment block for subagents' system prompts.
    pub environment: String,
    /// Where subagent transcripts go (`<session>/subagents/`), if the session has one.
    pub transcripts: Option<std::path::PathBuf>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AgentInput {
    /// The task in 3-5 words.
    pub description: String,
    /// Everything the agent needs to know; it sees nothing else.
    pub prompt: String,
    /// Default general-purpose.
    pub subagent_type: Option<String>,
    /// sonnet, opus, haiku or a model id.
    pub model: Option<String>,
}

/// `Agent(Explore)` names the subagent type.
const AGENT_RULES: RuleKind = RuleKind::Field { default: Some("subagent_type") };

const GENERAL: &str = "You are a subagent of rein, a coding agent. Do the task you are given with the tools you \
have, then answer with a concise, complete report: what you found or did, with file paths and line numbers. Your \
answer is all the caller sees.";

impl Tool for AgentTool {
    type Input = AgentInput;

    fn name(&self) -> &'static str {
        "Agent"
    }

    fn description(&self) -> String {
        let mut d = "Runs a subagent on a task of its own (a search, research, a multi-step change) and returns its \
                     final report. It starts with an empty conversation. Several can run in parallel. Types: \
                     general-purpose (all tools)"
            .to_string();
        for a in &self.agents {
            d.push_str(&format!("; {} ({})", a.name, a.description));
        }
        d
    }

    fn validate(&self, input: &AgentInput, _: &ToolContext) -> Result<(), String> {
        match input.subagent_type.as_deref() {
            None | Some("general-purpose") => Ok(()),
            Some(t) if self.agents.iter().any(|a| a.name == t) => Ok(()),
            Some(t) => Err(format!("unknown subagent_type {t:?}")),
        }
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
        let def = input.subagent_type.as_deref().and_then(|t| self.agents.iter().find(|a| a.name == t));
        let agent_type = def.map(|d| d.name.clone()).unwrap_or_else(|| "general-purpose".into());
        let prompt = def.map(|d| d.prompt.as_str()).unwrap_or(GENERAL);
        let session = EngineServices::of(ctx)?;
        let mut registry = session.registry.for_subagent(|name| {
            def.and_then(|d| d.tools.as_ref()).is_none_or(|allowed| allowed.iter().any(|t| t == name))
        });
        // Without a tool list, a subagent has the session's MCP tools too.
        if def.and_then(|d| d.tools.as_ref()).is_none() {
            registry.share_late_tools(&session.registry);
        }
        let mut config = session.config.clone();
        config.system = format!("{prompt}\n\n{}", self.environment).into();
        if let Some(m) = input.model.as_deref().or(def.and_then(|d| d.model.as_deref())) {
            config.model = config.aliases.resolve(m);
        }
        let mut sub_ctx = ctx.clone();
        sub_ctx.abort = ctx.abort.child_token();
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let agent_id = format!("agent-{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        sub_ctx.engine = Default::default();
        let mut engine = Engine::new(session.model.clone(), Arc::new(registry), session.gate.clone(), sub_ctx, config)
            .as_subagent(crate::SubagentInfo { agent_id: agent_id.clone(), agent_type: agent_type.clone() });
        if let Some(dir) = &self.transcripts {
            let path = dir.join(format!("{agent_id}.jsonl"));
            match rein_transcript::Transcript::open(&path, &agent_id, &ctx.cwd, None) {
                Ok(t) => engine = engine.with_transcript(t),
                Err(e) => tracing::warn!(error = %e, "no subagent transcript"),
            }
        }
        let outcome = engine.run(Message::user_text(input.prompt), &mut |_| {}).await;
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
