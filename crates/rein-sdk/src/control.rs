//! The Agent SDK's control requests to rein, answered while a turn runs or between
//! turns: `interrupt`, `set_permission_mode`, `set_model`, `mcp_status`,
//! `mcp_reconnect`, `get_context_usage`, `rewind_files` — each translated into the
//! session owner's `Command` and its `Reply` into the wire shape; the `initialize`
//! request's registrations (hooks, agents, system prompt) and its reply. Any other
//! subtype gets an `error` reply, never silence.

use std::sync::Arc;

use rein_session::{Command, Reply, Session, SessionHandle, Setup};
use serde::Serialize;
use serde_json::Value;

use crate::frames::McpServer;
use crate::requests::{ControlRequest, Initialize};
use crate::{SdkCallbacks, SdkError, TurnAbort};

/// Why a control request got an error reply (its text is the reply's `error`).
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    #[error(transparent)]
    Command(#[from] rein_session::CommandError),
    #[error("Unsupported control request subtype: {0}")]
    Unsupported(String),
    #[error("Already initialized")]
    AlreadyInitialized,
    #[error("rewind_files needs user_message_id")]
    NoMessageId,
    #[error("cannot encode the reply: {0}")]
    Encode(#[from] serde_json::Error),
}

/// Answers control requests: each one becomes the session owner's [`Command`] (the
/// terminal asks the same ones), and its [`Reply`] the response object.
pub struct Control {
    pub handle: SessionHandle,
    pub abort: Arc<TurnAbort>,
}

impl Control {
    /// The answer to one request while a turn runs (`initialize` is answered at start
    /// only).
    pub async fn during_turn(&self, request: &ControlRequest) -> Result<Value, ControlError> {
        if let ControlRequest::Interrupt {} = request {
            self.abort.cancel();
        }
        let reply = self.handle.command(command(request)?).await?;
        wire(&reply)
    }

    /// The answer to one request between turns: what needs the conversation
    /// (`rewind_files`) or may take long (`mcp_reconnect`) is answered by the session itself, the rest as during a turn
    /// (a model asked for applies from the next turn on, as Claude Code does).
    pub async fn between_turns(&self, session: &mut Session, request: &ControlRequest) -> Result<Value, ControlError> {
        match request {
            ControlRequest::RewindFiles { .. }
            | ControlRequest::McpReconnect { .. }
            | ControlRequest::McpToggle { .. } => {
                let reply = session.command(command(request)?, &mut |_| {}).await?;
                wire(&reply)
            }
            other => self.during_turn(other).await,
        }
    }
}

/// The owner's command a request asks for.
fn command(request: &ControlRequest) -> Result<Command, ControlError> {
    Ok(match request {
        ControlRequest::Interrupt {} => Command::Interrupt,
        ControlRequest::SetPermissionMode { mode } => {
            Command::SetMode { mode: mode.clone(), source: "the Agent SDK (set_permission_mode)".into() }
        }
        ControlRequest::SetModel { model } => Command::SetModel { model: model.clone() },
        ControlRequest::McpStatus {} => Command::McpStatus,
        ControlRequest::GetContextUsage {} => Command::ContextUsage,
        ControlRequest::RewindFiles { user_message_id } => {
            Command::RewindFiles { user_message_id: user_message_id.clone().ok_or(ControlError::NoMessageId)? }
        }
        ControlRequest::McpReconnect { server_name } => Command::McpReconnect { server: server_name.clone() },
        ControlRequest::Initialize(_) => return Err(ControlError::AlreadyInitialized),
        ControlRequest::McpToggle { server_name, enabled } => {
            Command::McpToggle { server: server_name.clone(), enabled: *enabled }
        }
        ControlRequest::Unsupported(other) => return Err(ControlError::Unsupported(other.clone())),
    })
}

/// A reply as the SDKs read it.
fn wire(answer: &Reply) -> Result<Value, ControlError> {
    match answer {
        Reply::Interrupted => reply(&Interrupted { still_queued: [] }),
        Reply::Mode { mode } => reply(&ModeSet { mode }),
        Reply::Model { model } => reply(&ModelSet { model }),
        Reply::Mcp { servers } => reply(&McpStatus {
            mcp_servers: servers
                .iter()
                .map(|s| McpServer {
                    name: &s.name,
                    status: s.status,
                    source: None,
                    scope: Some(s.scope),
                    error: s.error.as_deref(),
                })
                .collect(),
        }),
        Reply::Context(u) => reply(&ContextUsage {
            categories: &u.categories,
            total_tokens: u.used,
            max_tokens: u.window,
            raw_max_tokens: u.window,
            percentage: u.percent(),
            model: &u.model,
        }),
        Reply::Rewound { restored, .. } => {
            reply(&FilesChanged { files_changed: restored.iter().map(|p| p.display().to_string()).collect() })
        }
        Reply::Reconnected { .. } | Reply::Toggled { .. } => Ok(Value::Object(Default::default())),
        other => reply(other),
    }
}

/// A typed answer as the response object.
pub(crate) fn reply(answer: &impl Serialize) -> Result<Value, ControlError> {
    Ok(serde_json::to_value(answer)?)
}

#[derive(Serialize)]
struct Interrupted {
    still_queued: [(); 0],
}

#[derive(Serialize)]
struct ModeSet<'a> {
    mode: &'a str,
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
    categories: &'a [rein_session::Category],
    total_tokens: u64,
    max_tokens: u64,
    raw_max_tokens: u64,
    percentage: f64,
    model: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FilesChanged {
    files_changed: Vec<String>,
}

/// What `initialize` registers (hook callbacks, subagents, the TypeScript SDK's system
/// prompt), as the owner's overrides of the resolved setup.
pub fn overrides(request: &Initialize, peer: &Arc<crate::Peer>) -> Result<rein_session::Overrides, SdkError> {
    let mut callbacks = Vec::new();
    if let Some(hooks) = request.hooks.as_ref().filter(|h| h.is_object()) {
        let (groups, notes) = crate::register_hooks(hooks).map_err(SdkError::Initialize)?;
        for n in notes {
            rein_session::note_message!("{n}");
        }
        callbacks = groups;
    }
    Ok(rein_session::Overrides {
        callbacks,
        runner: Some(Arc::new(SdkCallbacks { peer: peer.clone() })),
        agents: request.agents.clone(),
        system_prompt: request.system_prompt.as_ref().map(|p| p.text()),
        append_system_prompt: request.append_system_prompt.clone(),
        headless_mcp: true,
        ..Default::default()
    })
}

/// The reply to `initialize`: what the session offers.
pub fn initialize_reply(setup: &Setup, session: &Session) -> Result<Value, ControlError> {
    let models = model_offers(setup, session);
    let commands = rein_session::slash::for_programs(&setup.commands, &setup.skills);
    reply(&InitializeReply {
        commands: &commands,
        agents: setup.agents.iter().map(|a| AgentOffer { name: &a.name, description: &a.description }).collect(),
        output_style: setup.output_style.as_ref().map_or("default", |s| s.name.as_str()),
        available_output_styles: setup.output_styles.iter().map(|s| s.name.as_str()).collect(),
        models,
        account: Account { api_key_source: setup.api_key_source(), api_provider: setup.api_provider() },
        pid: std::process::id(),
        claude_code_version: rein_session::CLAUDE_CODE_VERSION,
        current_permission_mode: session.mode().name(),
        hooks_applied: true,
        hook_on_failure_supported: true,
        sandbox_enabled: session.sandbox_active(),
        session_state: "idle",
    })
}

#[derive(Serialize)]
struct InitializeReply<'a> {
    commands: &'a [rein_session::slash::CommandInfo],
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
struct AgentOffer<'a> {
    name: &'a str,
    description: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ModelOffer {
    value: String,
    resolved_model: String,
    display_name: String,
    description: String,
}

/// The models a program may pick: the session's default first, then the aliases as
/// this provider resolves them — only those the settings' `availableModels` allow, and
/// the ids they name beside them.
fn model_offers(setup: &Setup, session: &Session) -> Vec<ModelOffer> {
    let available = &setup.available_models;
    let allowed = |alias: &str, id: &str| available.is_empty() || available.iter().any(|a| a == alias || a == id);
    let mut out = vec![ModelOffer {
        value: "default".into(),
        resolved_model: setup.model.clone(),
        display_name: "Default".into(),
        description: format!("this session's model ({})", setup.model),
    }];
    for m in session.handle().models().into_iter().filter(|m| allowed(m.alias, &m.id)) {
        let mut display: String = m.alias.chars().take(1).flat_map(char::to_uppercase).collect();
        display.extend(m.alias.chars().skip(1));
        out.push(ModelOffer {
            value: m.alias.into(),
            description: m.id.clone(),
            resolved_model: m.id,
            display_name: display,
        });
    }
    let named: Vec<String> =
        available.iter().filter(|a| !out.iter().any(|o| o.value == **a || o.resolved_model == **a)).cloned().collect();
    for id in named {
        out.push(ModelOffer {
            value: id.clone(),
            resolved_model: id.clone(),
            display_name: id.clone(),
            description: id,
        });
    }
    out
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Account {
    api_key_source: &'static str,
    api_provider: &'static str,
}
