//! The commands every frontend sends the session, and the one place a turn is put
//! together: an MCP prompt (`/mcp__server__prompt args`) expanded, a custom command
//! (`/name args`) expanded with its `allowed-tools` and `model:` holding for its turn
//! only, `@path` mentions attached, the output of earlier `!cmd` lines put before it;
//! then the engine's turn; then the turn-only rules and model undone.

use std::path::PathBuf;
use std::sync::Arc;

use rein_engine::{Engine, EngineEvent, Outcome, RewindFailed};
use rein_mcp::Servers;
use rein_policy::PermissionMode;
use rein_prompt::commands::CommandDef;
use rein_protocol::{ContentBlock, Message};

use crate::Live;

/// What the person (or the SDK) sent as a prompt.
#[derive(Debug, Clone)]
pub enum Input {
    /// A line of text: it may call a command or an MCP prompt and mention files.
    Text(String),
    /// Content blocks (an SDK user message, a pasted image): sent as they are.
    Blocks(Vec<ContentBlock>),
}

/// Why a prompt was not sent.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("{0}")]
    McpPrompt(String),
    #[error(transparent)]
    Command(#[from] rein_engine::CommandAborted),
}

/// What the session needs besides its engine.
pub struct Parts {
    /// Custom commands (`.claude/commands`) and skills called as `/name`.
    pub commands: Vec<CommandDef>,
    /// The MCP servers, for their prompts.
    pub mcp: Option<Arc<Servers>>,
    /// Where the session started (`CLAUDE_PROJECT_DIR`, command expansion).
    pub project_dir: PathBuf,
    /// Where new transcripts go (`/clear` starts one); `None` without persistence.
    pub rein_home: Option<PathBuf>,
}

/// The live session.
pub struct Session {
    engine: Engine,
    live: Arc<Live>,
    parts: Parts,
    /// `!cmd` lines run since the last prompt, with their output: they join the next.
    shell_context: Vec<String>,
}

impl Session {
    pub fn new(engine: Engine, live: Arc<Live>, parts: Parts) -> Self {
        Session { engine, live, parts, shell_context: Vec::new() }
    }

    pub fn live(&self) -> &Arc<Live> {
        &self.live
    }

    pub fn session_id(&self) -> String {
        self.live.session_id()
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    pub fn commands(&self) -> &[CommandDef] {
        &self.parts.commands
    }

    /// The custom command `text` calls (`/name args`), with its arguments.
    pub fn command_for<'a>(&self, text: &'a str) -> Option<(&CommandDef, &'a str)> {
        let rest = text.trim_start().strip_prefix('/')?;
        let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        rein_prompt::commands::find_command(&self.parts.commands, name).map(|c| (c, args.trim()))
    }

    /// Run one prompt to the end of its turn.
    pub async fn prompt(
        &mut self,
        input: Input,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<Outcome, PromptError> {
        let (message, command) = match input {
            Input::Blocks(blocks) => (Message::user(blocks), None),
            Input::Text(text) => {
                let text = self.expand_mcp(text).await?;
                let command = self.command_for(&text).map(|(def, args)| (def.clone(), args.to_string()));
                let mut text = match &command {
                    Some((def, args)) => {
                        let dir = self.parts.project_dir.clone();
                        self.engine.expand_command(def, args, &dir, &self.live.session_id()).await?
                    }
                    None => self.engine.attach_mentions(text).await,
                };
                if !self.shell_context.is_empty() {
                    text = format!("{}\n\n{text}", std::mem::take(&mut self.shell_context).join("\n"));
                }
                (Message::user_text(text), command.map(|(def, _)| def))
            }
        };
        // A command's `model` holds for its turn.
        let before = command.as_ref().and_then(|def| def.model.as_deref()).map(|m| {
            let before = self.engine.model().to_string();
            self.engine.set_model(m);
            before
        });
        let outcome = self.engine.run(message, sink).await;
        if let Some(def) = &command {
            self.engine.end_command_turn(def);
        }
        if let Some(model) = before {
            self.engine.set_model(&model);
        }
        Ok(outcome)
    }

    /// `/mcp__server__prompt args`: the MCP prompt's messages (other text as it is).
    /// `prompt` does this itself; a frontend that must know before the turn starts
    /// (to show the error instead of a turn) may ask first.
    pub async fn expand_mcp(&self, text: String) -> Result<String, PromptError> {
        let Some(servers) = self.parts.mcp.as_ref().filter(|_| text.trim_start().starts_with("/mcp__")) else {
            return Ok(text);
        };
        match servers.expand_prompt(&text).await {
            Some(Ok(expanded)) => Ok(expanded),
            Some(Err(e)) => Err(PromptError::McpPrompt(e)),
            None => Ok(text),
        }
    }

    /// `!cmd`: run the command through the chain; its output joins the next prompt.
    pub async fn shell(&mut self, command: &str) -> (String, bool) {
        let (output, failed) = self.engine.run_shell(command).await;
        self.shell_context.push(format!("<bash-input>{command}</bash-input>\n<bash-stdout>{output}</bash-stdout>"));
        (output, failed)
    }

    /// `/clear`: a new session — its own id and transcript, an empty conversation; the
    /// next prompt fires SessionStart with source `clear`, and every hook from then on
    /// carries the new id. Returns the id.
    pub fn clear(&mut self) -> String {
        let id = uuid::Uuid::new_v4().to_string();
        let dir = &self.parts.project_dir;
        let path = match &self.parts.rein_home {
            Some(home) => {
                let path = rein_transcript::transcript_path(home, dir, &id);
                match rein_transcript::Transcript::open(&path, &id, dir, None) {
                    Ok(t) => self.engine.set_transcript(t),
                    Err(e) => tracing::warn!(error = %e, "no transcript for the new session"),
                }
                path
            }
            None => self.live.transcript().with_file_name(format!("{id}.jsonl")),
        };
        self.live.renew(id.clone(), path);
        self.engine.clear_conversation();
        self.shell_context.clear();
        id
    }

    /// The model for the turns that follow.
    pub fn set_model(&mut self, model: &str) {
        self.engine.set_model(model);
    }

    /// The permission mode from now on (`source` names who changed it).
    pub fn set_mode(&self, mode: PermissionMode, source: &str) {
        self.live.policy().set_mode(mode, source);
    }

    pub fn mode(&self) -> PermissionMode {
        self.live.policy().get().mode
    }

    /// `/compact [instructions]`.
    pub async fn compact(
        &mut self,
        instructions: &str,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<(), rein_engine::EngineError> {
        self.engine.compact_now(instructions, sink).await
    }

    /// Go back to before the `n`th prompt (see `Engine::rewind`).
    pub fn rewind(
        &mut self,
        n: usize,
        files: bool,
        conversation: bool,
        force: bool,
    ) -> Result<Vec<PathBuf>, RewindFailed> {
        self.engine.rewind(n, files, conversation, force)
    }

    /// The session ends (SessionEnd hooks with `reason`).
    pub async fn end(&self, reason: &str, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        self.engine.end_session(reason, sink).await;
    }
}
