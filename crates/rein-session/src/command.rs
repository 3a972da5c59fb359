//! One command enum for every frontend (issue 52): everything a person at the terminal
//! or a program over the Agent SDK asks of a session besides a prompt is a [`Command`],
//! answered by the owner with a typed [`Reply`] (or a [`CommandError`]). The terminal UI
//! and the SDK only translate: a slash command or a control request becomes a command,
//! the reply becomes lines or a response object, so the same question gets the same
//! answer from both. Between turns [`Session::command`] answers everything; while a turn
//! runs, [`SessionHandle::command`](crate::SessionHandle::command) answers what can be
//! answered then.

use std::path::PathBuf;

use rein_engine::{EngineEvent, RewindFailed};
use rein_policy::PermissionMode;
use serde::{Deserialize, Serialize};

use crate::Session;
use crate::reply::{ContextUsage, McpServerState, Reply};

/// What a frontend asks of the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// The model for the turns that follow (none: the default model).
    SetModel { model: Option<String> },
    /// The permission mode from now on (`default`, `acceptEdits`, `plan`, `auto`, …);
    /// `source` names who asked (`/status` shows it).
    SetMode {
        mode: String,
        #[serde(default)]
        source: String,
    },
    /// The reasoning effort: `low` … `max`; `auto` the model's default; none asks.
    Effort { level: Option<String> },
    /// The session's title, as the session list shows it.
    Rename { title: String },
    /// The conversation as Markdown: written to `to`, else returned.
    Export { to: Option<PathBuf> },
    /// Summarise the conversation now.
    Compact { instructions: String },
    /// How full the context window is, and with what.
    ContextUsage,
    /// The MCP servers and their state.
    McpStatus,
    /// Start an MCP server again.
    McpReconnect { server: String },
    /// Turn an MCP server off (its tools withdrawn) or back on, for this session.
    McpToggle { server: String, enabled: bool },
    /// Go back to before prompt `prompt` (0 is the first): its files, its conversation;
    /// `force` overwrites files changed outside rein.
    Rewind { prompt: usize, files: bool, conversation: bool, force: bool },
    /// The files changed since the user message with this id go back (the SDK's
    /// `rewind_files`; the conversation stays).
    RewindFiles { user_message_id: String },
    /// The prompts of the conversation so far.
    Prompts,
    /// What the session changed in files: each, before and now.
    Diff,
    /// A question on the side, answered from the conversation so far without joining it.
    SideQuestion { question: String },
    /// A new session: its own id and transcript, an empty conversation.
    Clear,
    /// The conversation forked into a new session (a new id and transcript holding the
    /// same history) that goes on from here; the original stays as it was.
    Branch,
    /// Another working directory for the rest of the session.
    AddDir { path: PathBuf },
    /// The slash commands the session offers (built-in and the project's).
    Commands,
    /// The models the session offers.
    Models,
    /// Stop the running turn.
    Interrupt,
}

/// Why a command was not done.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(
        "{0:?} is not a model this provider offers (an alias: opus, sonnet, haiku, fable; or an id such as claude-sonnet-4-6)"
    )]
    UnknownModel(String),
    #[error("the PreModelSwitch hook `{hook}` refused it: {reason}")]
    ModelRefused { hook: String, reason: String },
    #[error("Cannot set permission mode: must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, plan")]
    UnknownMode(String),
    #[error("Cannot set permission mode: {0} is disabled in this session")]
    ModeDisabled(&'static str),
    #[error("`{0}` is not an effort: low, medium, high, xhigh, max or auto")]
    UnknownEffort(String),
    #[error("could not write {path}: {source}")]
    Export { path: PathBuf, source: std::io::Error },
    #[error("could not compact: {0}")]
    Compact(#[source] rein_engine::EngineError),
    /// No MCP server of the session has that name (worded as the SDKs expect it).
    #[error("Server not found: {0}")]
    NoServer(String),
    #[error(transparent)]
    Mcp(Box<rein_mcp::ServerError>),
    #[error(transparent)]
    Rewind(RewindFailed),
    #[error("No file checkpoint found for message {0}")]
    NoCheckpoint(String),
    #[error("could not add {path}: {why}")]
    AddDir { path: PathBuf, why: rein_policy::UpdateError },
    #[error("{path} is already in reach: it is inside {root}")]
    AlreadyInReach { path: PathBuf, root: PathBuf },
    #[error("{0} cannot be done while a turn runs")]
    Busy(&'static str),
    #[error("this session keeps no transcript, so it cannot be branched")]
    NoTranscript,
    #[error("could not branch the session ({path}): {source}")]
    Branch { path: PathBuf, source: std::io::Error },
    #[error("{0}")]
    Side(rein_engine::EngineError),
    #[error("could not branch the session: {0}")]
    BranchTranscript(#[source] rein_transcript::SessionError),
}

impl Session {
    /// Answer `command` between turns; `sink` hears what it makes happen (compaction,
    /// hooks' notices).
    pub async fn command(
        &mut self,
        command: Command,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<Reply, CommandError> {
        let reply = match command {
            Command::SetModel { model } => {
                let wanted = model.filter(|m| !m.trim().is_empty()).unwrap_or_else(|| self.parts.default_model.clone());
                self.set_model(&wanted, "user").await?;
                Reply::Model { model: self.engine.model().to_string() }
            }
            Command::Effort { level: None } => Reply::Effort { level: self.effort(), changed: false },
            Command::Effort { level: Some(level) } => {
                let level = level.trim().to_ascii_lowercase();
                let effort = match level.as_str() {
                    "auto" | "" => None,
                    other => Some(rein_model::Effort::parse(other).ok_or(CommandError::UnknownEffort(level.clone()))?),
                };
                self.engine.set_effort(effort);
                Reply::Effort { level: self.effort(), changed: true }
            }
            Command::Rename { title } => {
                self.engine.record_title(&title);
                Reply::Renamed { title }
            }
            Command::Export { to } => {
                let text = self.markdown();
                match to {
                    None => Reply::Markdown { text },
                    Some(path) => {
                        let written = match path.parent() {
                            Some(dir) if !dir.as_os_str().is_empty() => std::fs::create_dir_all(dir),
                            _ => Ok(()),
                        }
                        .and_then(|()| std::fs::write(&path, &text));
                        written.map_err(|source| CommandError::Export { path: path.clone(), source })?;
                        Reply::Exported { to: path }
                    }
                }
            }
            Command::Compact { instructions } => {
                self.engine.compact_now(&instructions, sink).await.map_err(CommandError::Compact)?;
                Reply::Compacted
            }
            Command::Rewind { prompt, files, conversation, force } => {
                let restored = self.rewind(prompt, files, conversation, force).map_err(CommandError::Rewind)?;
                Reply::Rewound { prompt, files, conversation, restored }
            }
            Command::RewindFiles { user_message_id } => {
                let n = self
                    .engine
                    .prompt_of(&user_message_id)
                    .ok_or_else(|| CommandError::NoCheckpoint(user_message_id.clone()))?;
                let restored = self.rewind(n, true, false, false).map_err(CommandError::Rewind)?;
                Reply::Rewound { prompt: n, files: true, conversation: false, restored }
            }
            Command::Prompts => Reply::Prompts { prompts: self.engine.user_prompts() },
            Command::SideQuestion { question } => {
                Reply::SideAnswer { answer: self.engine.side_question(&question).await.map_err(CommandError::Side)? }
            }
            Command::Diff => Reply::Diff { files: crate::reply::changes(self.engine.first_versions()) },
            Command::Clear => Reply::Cleared { session_id: self.clear() },
            Command::Branch => {
                let (session_id, from) = self.branch()?;
                Reply::Branched { session_id, from }
            }
            Command::AddDir { path } => {
                let roots = self.live.policy().get().roots.clone();
                if let Some(root) = roots.iter().find(|r| path.starts_with(r)) {
                    return Err(CommandError::AlreadyInReach { path, root: root.clone() });
                }
                let mut notices = Vec::new();
                let mut keep = |e| {
                    if let EngineEvent::Notice(n) = e {
                        notices.push(n);
                    }
                };
                self.add_directory(&path, "slash_command", &mut keep)
                    .await
                    .map_err(|why| CommandError::AddDir { path: path.clone(), why })?;
                Reply::DirectoryAdded { path, notices }
            }
            Command::McpStatus => Reply::Mcp { servers: self.mcp_states() },
            Command::McpReconnect { server } => {
                let servers = self.parts.mcp.as_ref().ok_or_else(|| CommandError::NoServer(server.clone()))?;
                if !servers.statuses().iter().any(|s| s.name == server) {
                    return Err(CommandError::NoServer(server));
                }
                servers.reconnect(&server).await.map_err(|e| CommandError::Mcp(Box::new(e)))?;
                Reply::Reconnected { server }
            }
            Command::McpToggle { server, enabled } => {
                let reply = self.handle().command(Command::McpToggle { server: server.clone(), enabled }).await?;
                // Turned on between turns: there is time to wait for it to connect.
                if let (true, Some(servers)) = (enabled, &self.parts.mcp) {
                    servers.settled(&server).await;
                }
                reply
            }
            // What can be answered while a turn runs is answered the same way now.
            other => return self.handle().command(other).await,
        };
        self.note_context();
        Ok(reply)
    }

    /// `text` (a prompt) when it is a built-in command the owner answers: its reply as the
    /// outcome of a run that asked the model nothing (`rein -p /context`, an SDK user
    /// message `/compact`). `None`: a prompt for the model.
    pub async fn answer_command(
        &mut self,
        text: &str,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Option<rein_engine::Outcome> {
        let command = crate::slash::parse(text, &self.parts.project_dir)?;
        Some(match self.command(command, sink).await {
            Ok(reply) => rein_engine::Outcome::answered(reply.lines().join("\n")),
            Err(e) => rein_engine::Outcome::not_sent(rein_engine::EngineError::PromptStopped(e.to_string())),
        })
    }

    /// The reasoning effort asked for, by name (`None`: the model's default).
    fn effort(&self) -> Option<String> {
        self.engine.effort().map(|e| format!("{e:?}").to_lowercase())
    }

    /// The conversation as Markdown (`/export`).
    fn markdown(&self) -> String {
        let title = format!("rein session {}", self.live.session_id());
        let messages: Vec<rein_protocol::Message> = self.engine.conversation().messages().cloned().collect();
        crate::export::markdown(&title, &messages)
    }

    /// How full the context window is now, counted as the engine keeps it.
    pub fn context_usage(&self) -> ContextUsage {
        let (used, window, compact_at) = self.engine.context_usage();
        let [system, tools, messages] = self.engine.context_breakdown();
        // The parts add up to what is used: when the API counted more than the
        // estimate, the difference is the messages'.
        let messages = (messages.0, messages.1.max(used.saturating_sub(system.1 + tools.1)));
        let used = used.max(system.1 + tools.1 + messages.1);
        ContextUsage::new(self.engine.model(), used, window, compact_at, [system, tools, messages])
    }

    /// Keep the context figures for questions asked while the next turn runs.
    pub(crate) fn note_context(&self) {
        self.handle().note_context(self.context_usage(), self.engine.available_tool_names());
    }

    /// Each MCP server with its state and the tools it gave the session.
    fn mcp_states(&self) -> Vec<McpServerState> {
        let tools = self.engine.available_tool_names();
        crate::reply::mcp_states(self.parts.mcp.as_deref(), &tools)
    }
}

/// `mode` as a permission mode, when it names one.
pub(crate) fn parse_mode(mode: &str) -> Result<PermissionMode, CommandError> {
    PermissionMode::parse(mode).ok_or_else(|| CommandError::UnknownMode(mode.to_string()))
}
