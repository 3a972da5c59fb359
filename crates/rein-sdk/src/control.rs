//! The Agent SDK's control requests to rein, answered while a turn runs or between
//! turns: `interrupt`, `set_permission_mode`, `set_model`, `mcp_status`,
//! `get_context_usage`, `rewind_files`; the `initialize` request's registrations
//! (hooks, agents, system prompt) and its reply. Any other subtype gets an `error`
//! reply, never silence.

use std::sync::Arc;

use rein_policy::{PermissionMode, SharedPolicy};
use rein_session::Setup;
use serde::Serialize;
use serde_json::Value;

use crate::frames::McpServer;
use crate::requests::{ControlRequest, Initialize};
use crate::{SdkCallbacks, SdkError, TurnAbort};

/// What the control requests act on while the engine is busy with a turn.
pub struct Control {
    pub policy: SharedPolicy,
    pub abort: Arc<TurnAbort>,
    /// A model the SDK chose; the next turn uses it.
    pub next_model: Option<String>,
    /// The model of the running or last turn.
    pub model: String,
    /// What the context holds at the end of the last turn, in estimated tokens, as
    /// `/context` counts it (system prompt and memory, tool definitions, messages).
    pub context: [(&'static str, u64); 3],
    pub mcp: Option<Arc<rein_mcp::Servers>>,
    /// What the model aliases mean.
    pub aliases: rein_model::Aliases,
    /// The model `set_model` without one goes back to.
    pub default_model: String,
}

impl Control {
    /// The answer to one request (`initialize` is answered at start only).
    pub fn handle(&mut self, request: &ControlRequest) -> Result<Value, String> {
        match request {
            ControlRequest::Interrupt {} => {
                self.abort.cancel();
                reply(&Interrupted { still_queued: [] })
            }
            ControlRequest::SetPermissionMode { mode } => {
                let mode = PermissionMode::parse(mode).ok_or_else(|| {
                    "Cannot set permission mode: must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, \
                     plan"
                        .to_string()
                })?;
                self.policy.set_mode(mode, "the Agent SDK (set_permission_mode)");
                // A mode the session refuses (bypassPermissions under --restricted or
                // disableBypassPermissionsMode, auto when disabled) is an error, not a yes.
                if self.policy.get().mode != mode {
                    return Err(format!("Cannot set permission mode: {} is disabled in this session", mode.name()));
                }
                reply(&ModeSet { mode: mode.name() })
            }
            ControlRequest::SetModel { model } => {
                let model = match model.as_deref().map(str::trim) {
                    Some(m) if !m.is_empty() => self.aliases.resolve(m),
                    _ => self.default_model.clone(),
                };
                self.next_model = Some(model.clone());
                reply(&ModelSet { model: &model })
            }
            ControlRequest::McpStatus {} => {
                let statuses = self.mcp.as_ref().map(|m| m.statuses()).unwrap_or_default();
                let servers: Vec<McpServer<'_>> = statuses
                    .iter()
                    .map(|s| McpServer {
                        name: &s.name,
                        status: s.status,
                        source: None,
                        scope: Some(s.source.name()),
                        error: s.error.as_deref(),
                    })
                    .collect();
                reply(&McpStatus { mcp_servers: servers })
            }
            ControlRequest::GetContextUsage {} => {
                let max = rein_engine::window_of(&self.model);
                let total: u64 = self.context.iter().map(|(_, t)| t).sum();
                let pct = if max == 0 { 0.0 } else { total as f64 * 100.0 / max as f64 };
                reply(&ContextUsage {
                    categories: self.context.map(|(name, tokens)| Category { name, tokens }),
                    total_tokens: total,
                    max_tokens: max,
                    raw_max_tokens: max,
                    percentage: pct,
                    model: &self.model,
                })
            }
            ControlRequest::RewindFiles { .. } => Err("Cannot rewind files while a turn is running".into()),
            ControlRequest::Initialize(_) => Err("Already initialized".into()),
            ControlRequest::McpReconnect { server_name } | ControlRequest::McpToggle { server_name } => {
                Err(format!("Server not found: {server_name}"))
            }
            ControlRequest::Unsupported(other) => Err(format!("Unsupported control request subtype: {other}")),
        }
    }
}

/// A typed answer as the response object.
pub(crate) fn reply(answer: &impl Serialize) -> Result<Value, String> {
    serde_json::to_value(answer).map_err(|e| e.to_string())
}

#[derive(Serialize)]
struct Interrupted {
    still_queued: [(); 0],
}

#[derive(Serialize)]
struct ModeSet {
    mode: &'static str,
}

#[derive(Serialize)]
struct ModelSet<'a> {
    model: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct McpStatus<'a> {
    mcp_servers: Vec<McpServer<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ContextUsage<'a> {
    categories: [Category; 3],
    total_tokens: u64,
    max_tokens: u64,
    raw_max_tokens: u64,
    percentage: f64,
    model: &'a str,
}

#[derive(Serialize)]
struct Category {
    name: &'static str,
    tokens: u64,
}

/// Take in what `initialize` registers: hook callbacks (joined to the settings' hooks),
/// subagents, and (the TypeScript SDK) the system prompt.
pub fn apply_initialize(setup: &mut Setup, request: &Initialize, peer: &Arc<crate::Peer>) -> Result<(), SdkError> {
    let mut config = setup.hooks.as_ref().map(|h| h.config.clone()).unwrap_or_default();
    if let Some(hooks) = request.hooks.as_ref().filter(|h| h.is_object()) {
        let notes = crate::register_hooks(&mut config, hooks).map_err(SdkError::Initialize)?;
        for n in notes {
            rein_session::note_message!("{n}");
        }
    }
    if !config.is_empty() {
        let mut hooks = rein_hooks::Hooks::new(config, setup.hook_session());
        hooks.callbacks = Some(Arc::new(SdkCallbacks { peer: peer.clone() }));
        setup.hooks = Some(Arc::new(hooks));
    }
    if let Some(agents) = &request.agents {
        setup.add_agents(agents);
    }
    let replace = request.system_prompt.as_ref().map(|p| p.text());
    let append = request.append_system_prompt.clone();
    if replace.is_some() || append.is_some() {
        let (old_replace, old_append) = setup.prompt_parts.clone();
        setup.set_system_prompt(replace.or(old_replace), append.or(old_append));
    }
    Ok(())
}

/// The reply to `initialize`: what the session offers.
pub fn initialize_reply(setup: &Setup, policy: &SharedPolicy) -> Result<Value, String> {
    let models: Vec<ModelOffer> = ["opus", "sonnet", "haiku"]
        .iter()
        .map(|alias| {
            let id = setup.env.aliases.resolve(alias);
            ModelOffer { value: alias, resolved_model: id.clone(), display_name: alias, description: id }
        })
        .collect();
    reply(&InitializeReply {
        commands: setup
            .commands
            .iter()
            .map(|c| CommandOffer { name: &c.name, description: &c.description, argument_hint: "", builtin: false })
            .collect(),
        agents: setup.agents.iter().map(|a| AgentOffer { name: &a.name, description: &a.description }).collect(),
        output_style: setup.output_style.as_ref().map_or("default", |s| s.name.as_str()),
        available_output_styles: setup.output_styles.iter().map(|s| s.name.as_str()).collect(),
        models,
        account: Account { api_key_source: setup.api_key_source(), api_provider: "firstParty" },
        pid: std::process::id(),
        claude_code_version: rein_session::CLAUDE_CODE_VERSION,
        current_permission_mode: policy.get().mode.name(),
        hooks_applied: true,
        hook_on_failure_supported: true,
        sandbox_enabled: setup.sandbox.as_ref().is_some_and(|s| s.is_active()),
        session_state: "idle",
    })
}

#[derive(Serialize)]
struct InitializeReply<'a> {
    commands: Vec<CommandOffer<'a>>,
    agents: Vec<AgentOffer<'a>>,
    output_style: &'a str,
    available_output_styles: Vec<&'a str>,
    models: Vec<ModelOffer>,
    account: Account,
    pid: u32,
    claude_code_version: &'static str,
    current_permission_mode: &'static str,
    hooks_applied: bool,
    hook_on_failure_supported: bool,
    sandbox_enabled: bool,
    session_state: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CommandOffer<'a> {
    name: &'a str,
    description: &'a str,
    argument_hint: &'static str,
    builtin: bool,
}

#[derive(Serialize)]
struct AgentOffer<'a> {
    name: &'a str,
    description: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ModelOffer {
    value: &'static str,
    resolved_model: String,
    display_name: &'static str,
    description: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Account {
    api_key_source: &'static str,
    api_provider: &'static str,
}
