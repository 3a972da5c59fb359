//! The Agent tool (legacy name Task): runs a subagent — a fresh conversation with its
//! own system prompt and the same model, tools (bar Agent itself) and permissions — and
//! returns its final answer. Its end fires SubagentStop hooks instead of Stop.

use std::sync::Arc;

use rein_model::Model;
use rein_prompt::agents::AgentDef;
use rein_protocol::Message;
use rein_tools::{Effects, Registry, RuleKind, Tool, ToolContext, ToolError, ToolKinds, ToolOutput, ToolRules};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{End, Engine, EngineConfig, Gate};

/// What a subagent needs from the session that starts it.
pub struct AgentTool {
    pub model: Arc<dyn Model>,
    /// The tools a subagent may use (never Agent: subagents do not nest).
    pub registry: Arc<Registry>,
    pub gate: Gate,
    pub config: EngineConfig,
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

/// How every tool of a session reads its rules: the registry's tools, plus Agent and its
/// legacy name Task (registered once the policy exists, since Agent needs the gate).
pub fn tool_kinds(registry: &Registry) -> ToolKinds {
    let mut kinds = registry.rule_kinds();
    let fields = rein_tools::input_fields(&rein_tools::schema_for::<AgentInput>());
    for name in ["Agent", "Task"] {
        kinds.insert(name.to_string(), ToolRules { kind: AGENT_RULES, fields: fields.clone() });
    }
    let fields = rein_tools::input_fields(&rein_tools::schema_for::<crate::SkillInput>());
    kinds.insert("Skill".to_string(), ToolRules { kind: crate::skill_tool::SKILL_RULES, fields });
    kinds
}

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

    async fn call(&self, input: AgentInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let def = input.subagent_type.as_deref().and_then(|t| self.agents.iter().find(|a| a.name == t));
        let agent_type = def.map(|d| d.name.clone()).unwrap_or_else(|| "general-purpose".into());
        let prompt = def.map(|d| d.prompt.as_str()).unwrap_or(GENERAL);
        let mut registry = Registry::new();
        registry.extend_from(&self.registry, |name| {
            def.and_then(|d| d.tools.as_ref()).is_none_or(|allowed| allowed.iter().any(|t| t == name))
        });
        // Without a tool list, a subagent has the session's MCP tools too.
        if def.and_then(|d| d.tools.as_ref()).is_none() {
            registry.share_late_tools(&self.registry);
        }
        let mut config = self.config.clone();
        config.system = format!("{prompt}\n\n{}", self.environment).into();
        if let Some(m) = input.model.as_deref().or(def.and_then(|d| d.model.as_deref())) {
            config.model = crate::resolve_alias(m);
        }
        let mut sub_ctx = ctx.clone();
        sub_ctx.abort = ctx.abort.child_token();
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let agent_id = format!("agent-{}", NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
        let mut engine = Engine::new(self.model.clone(), Arc::new(registry), self.gate.clone(), sub_ctx, config)
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
