//! What a frontend may ask while a turn runs, when the session itself is busy with the
//! turn: a [`SessionHandle`] (cheap to clone, shared with the session) answers the
//! commands that need no engine — interrupt, permission mode, the next turn's model,
//! the context figures as of the last turn, the MCP servers' state — and says
//! [`CommandError::Busy`] for the rest.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

use crate::command::{Command, CommandError, parse_mode};
use crate::reply::{ContextUsage, ModelOffer, Reply};

/// The part of the session the handle shares.
pub(crate) struct Shared {
    pub(crate) live: Arc<crate::Live>,
    pub(crate) mcp: Option<Arc<rein_mcp::Servers>>,
    pub(crate) aliases: rein_model::Aliases,
    pub(crate) default_model: String,
    pub(crate) commands: Vec<rein_prompt::commands::CommandDef>,
    /// The model asked for while a turn ran: the next turn uses it.
    pub(crate) next_model: Mutex<Option<String>>,
    /// The context as the last turn (or command) left it, and the tools then.
    pub(crate) context: Mutex<(ContextUsage, Vec<String>)>,
    /// The running turn's interrupt.
    pub(crate) abort: Mutex<CancellationToken>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A frontend's way to the session while a turn runs.
#[derive(Clone)]
pub struct SessionHandle {
    pub(crate) shared: Arc<Shared>,
}

impl SessionHandle {
    /// Answer `command` now, without the engine.
    pub async fn command(&self, command: Command) -> Result<Reply, CommandError> {
        let shared = &self.shared;
        Ok(match command {
            Command::Interrupt => {
                lock(&shared.abort).cancel();
                Reply::Interrupted
            }
            Command::SetMode { mode, source } => self.set_mode(&mode, &source)?,
            Command::SetModel { model } => {
                let model = match model.as_deref().map(str::trim) {
                    Some(m) if !m.is_empty() => shared.aliases.resolve(m),
                    _ => shared.default_model.clone(),
                };
                *lock(&shared.next_model) = Some(model.clone());
                Reply::Model { model }
            }
            Command::ContextUsage => Reply::Context(lock(&shared.context).0.clone()),
            Command::McpStatus => {
                let tools = lock(&shared.context).1.clone();
                Reply::Mcp { servers: crate::reply::mcp_states(shared.mcp.as_deref(), &tools) }
            }
            // Starting a server again can take its whole connect timeout: not while a
            // turn waits on this channel.
            Command::McpReconnect { .. } => return Err(CommandError::Busy("reconnecting an MCP server")),
            // Turned on while a turn runs, it connects beside it; its tools join the
            // turn's next request once it answers.
            Command::McpToggle { server, enabled } => {
                let servers = shared.mcp.as_ref().ok_or_else(|| CommandError::NoServer(server.clone()))?;
                servers.set_enabled(&server, enabled).map_err(crate::reply::toggle_error)?;
                Reply::Toggled { server, enabled }
            }
            Command::Commands => Reply::Commands { commands: crate::slash::offered(false, &shared.commands) },
            Command::Models => Reply::Models { models: self.models() },
            Command::Effort { .. } => return Err(CommandError::Busy("changing the effort")),
            Command::Rename { .. } => return Err(CommandError::Busy("renaming the session")),
            Command::Export { .. } => return Err(CommandError::Busy("exporting the conversation")),
            Command::Compact { .. } => return Err(CommandError::Busy("compacting")),
            Command::Rewind { .. } | Command::RewindFiles { .. } => return Err(CommandError::Busy("going back")),
            Command::Prompts => return Err(CommandError::Busy("listing the prompts")),
            Command::Clear => return Err(CommandError::Busy("starting a new session")),
            Command::Branch => return Err(CommandError::Busy("branching the session")),
            Command::Diff => return Err(CommandError::Busy("collecting the changes")),
            Command::SideQuestion { .. } => return Err(CommandError::Busy("a side question")),
            Command::AddDir { .. } => return Err(CommandError::Busy("adding a directory")),
        })
    }

    /// The permission mode from now on (`source` names who asked; empty: a command). It
    /// needs nothing of the engine, so it is answered at once, while a turn runs too.
    pub fn set_mode(&self, mode: &str, source: &str) -> Result<Reply, CommandError> {
        let mode = parse_mode(mode)?;
        let source = if source.is_empty() { "a command" } else { source };
        let policy = self.shared.live.policy();
        policy.set_mode(mode, source);
        // A mode the session refuses (bypassPermissions under --restricted or
        // disableBypassPermissionsMode, auto when disabled) is an error, not a yes.
        if policy.get().mode != mode {
            return Err(CommandError::ModeDisabled(mode.name()));
        }
        Ok(Reply::Mode { mode: mode.name() })
    }

    /// The models the session offers: each alias with the id it stands for here.
    pub fn models(&self) -> Vec<ModelOffer> {
        ["opus", "sonnet", "haiku"]
            .into_iter()
            .map(|alias| ModelOffer { alias, id: self.shared.aliases.resolve(alias) })
            .collect()
    }

    /// The model asked for while the last turn ran, once.
    pub(crate) fn take_next_model(&self) -> Option<String> {
        lock(&self.shared.next_model).take()
    }

    /// The context figures after a turn or a command.
    pub(crate) fn note_context(&self, usage: ContextUsage, tools: Vec<String>) {
        *lock(&self.shared.context) = (usage, tools);
    }

    /// The interrupt of the turn about to start.
    pub(crate) fn set_abort(&self, token: CancellationToken) {
        *lock(&self.shared.abort) = token;
    }
}
