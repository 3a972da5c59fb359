//! The commands every frontend sends the session, and the one place a turn is put
//! together: an MCP prompt (`/mcp__server__prompt args`) expanded, a custom command
//! (`/name args`) expanded with its `allowed-tools` and `model:` holding for its turn
//! only (its `hooks` from then on; with `context: fork` a subagent runs it), `@path`
//! mentions attached, the output of earlier `!cmd` lines put before it; then the
//! engine's turn; then the turn-only rules and model undone.

use std::path::PathBuf;
use std::sync::Arc;

use rein_engine::Attached;
use rein_engine::{Engine, EngineEvent, Outcome, RewindFailed};
use rein_hooks::HookInput;
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
    /// A line of text with images pasted into it (the TUI's `[Image #1]`), sent after
    /// the text and what it mentions.
    TextWith { text: String, attachments: Vec<ContentBlock> },
    /// Content blocks (an SDK user message, a pasted image): sent as they are.
    Blocks(Vec<ContentBlock>),
}

/// Why a prompt was not sent.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error(transparent)]
    McpPrompt(rein_mcp::ServerError),
    #[error(transparent)]
    Command(#[from] rein_engine::CommandAborted),
    #[error("the UserPromptExpansion hook `{hook}` blocked /{command}: {reason}")]
    ExpansionBlocked { command: String, hook: String, reason: String },
    #[error("/{command} (context: fork) did not run: {reason}")]
    Fork { command: String, reason: rein_tools::ToolError },
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
    /// The memory files in the system prompt and their kind (InstructionsLoaded hooks
    /// hear of them before the first prompt).
    pub memory: Vec<(PathBuf, &'static str)>,
    /// The settings files, watched for changes between prompts.
    pub config: crate::config_watch::ConfigWatch,
    /// The model client and the small model that names sessions.
    pub titles: (Arc<dyn rein_model::Model>, String),
    /// What the model aliases mean here.
    pub aliases: rein_model::Aliases,
    /// The model `/model` without a name goes back to.
    pub default_model: String,
    /// Whether the OS sandbox confines the person's commands (the SDK's `initialize`
    /// reply says so).
    pub sandbox_active: bool,
}

/// The live session.
pub struct Session {
    pub(crate) engine: Engine,
    pub(crate) live: Arc<Live>,
    pub(crate) parts: Parts,
    /// What the session shares with its handles.
    pub(crate) shared: Arc<crate::handle::Shared>,
    /// `!cmd` lines run since the last prompt, with their output: they join the next.
    shell_context: Vec<String>,
    /// Whether InstructionsLoaded hooks have heard of the memory files.
    instructions_announced: bool,
}

impl Session {
    pub fn new(engine: Engine, live: Arc<Live>, parts: Parts) -> Self {
        let shared = Arc::new(crate::handle::Shared {
            live: live.clone(),
            mcp: parts.mcp.clone(),
            aliases: parts.aliases.clone(),
            default_model: parts.default_model.clone(),
            commands: parts.commands.clone(),
            next_model: Default::default(),
            context: Default::default(),
            abort: Default::default(),
        });
        let session = Session { engine, live, parts, shared, shell_context: Vec::new(), instructions_announced: false };
        session.note_context();
        session
    }

    pub fn live(&self) -> &Arc<Live> {
        &self.live
    }

    pub fn session_id(&self) -> String {
        self.live.session_id()
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
        self.config_changes(sink).await;
        self.apply_next_model(sink).await;
        let (text, pasted) = match input {
            Input::Blocks(blocks) => (None, blocks),
            Input::Text(text) => (Some(text), Vec::new()),
            Input::TextWith { text, attachments } => (Some(text), attachments),
        };
        let (message, command) = match text {
            None => (Message::user(pasted), None),
            Some(text) => {
                let text = self.expand_mcp(text).await?;
                self.announce_instructions().await;
                let command = self.command_for(&text).map(|(def, args)| (def.clone(), args.to_string()));
                if let Some((def, args)) = &command {
                    self.expansion_hooks(def, args, &text).await?;
                    self.engine.add_command_hooks(def);
                }
                let mut prompt = match &command {
                    Some((def, args)) => {
                        let dir = self.parts.project_dir.clone();
                        let expanded = self.engine.expand_command(def, args, &dir, &self.live.session_id()).await?;
                        match &def.fork {
                            Some(agent) => {
                                Attached { text: self.forked(def, agent, expanded.text).await?, blocks: Vec::new() }
                            }
                            None => expanded,
                        }
                    }
                    None => self.engine.attach_mentions(text).await,
                };
                if !self.shell_context.is_empty() {
                    let before = std::mem::take(&mut self.shell_context).join("\n");
                    prompt.text = format!("{before}\n\n{}", prompt.text);
                }
                prompt.blocks.extend(pasted);
                (Message::user(prompt.into_content()), command.map(|(def, _)| def))
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
        self.note_context();
        Ok(outcome)
    }

    /// A command with `context: fork`: a subagent runs it; the model gets its report.
    async fn forked(&self, def: &CommandDef, agent: &str, text: String) -> Result<String, PromptError> {
        let fail = |reason: rein_tools::ToolError| PromptError::Fork { command: def.name.clone(), reason };
        let report = self.engine.run_forked_command(agent, &def.name, text).await.map_err(fail)?;
        Ok(format!("/{} ran in a {agent} subagent (context: fork). Its report:\n\n{report}", def.name))
    }

    /// ConfigChange hooks for each settings file changed since the last prompt, and a
    /// word to the person: rein applies settings when a session starts.
    async fn config_changes(&mut self, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        for (source, path) in self.parts.config.changes() {
            let file_path = path.display().to_string();
            let blocked = match self.engine.hooks() {
                Some(h) if h.has(rein_hooks::HookEvent::ConfigChange) => {
                    let input = HookInput::ConfigChange { source: source.to_string(), file_path: file_path.clone() };
                    h.fire_input(&input, |_| true).await.block()
                }
                _ => None,
            };
            sink(EngineEvent::Notice(match blocked {
                Some((reason, hook)) => {
                    format!("The ConfigChange hook `{hook}` blocked the change of {file_path}: {reason}")
                }
                None => format!(
                    "{file_path} changed; rein reads settings when a session starts: the change takes effect in the next session"
                ),
            }));
        }
    }

    /// The session's MCP servers, if any are configured.
    pub fn mcp(&self) -> Option<&Arc<Servers>> {
        self.parts.mcp.as_ref()
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

    /// The definitions of the tools the model is sent in full.
    pub fn tool_specs(&self) -> &[rein_protocol::ToolSpec] {
        self.engine.tool_specs()
    }

    /// Call `name` with `input` as the person (or a program serving rein's tools) asks,
    /// through the whole chain: schema, hooks, permissions, sandbox. Nothing joins the
    /// conversation. The result as the tool gave it, and whether it failed.
    pub async fn call_tool(
        &mut self,
        name: &str,
        input: serde_json::Value,
    ) -> (rein_protocol::ToolResultContent, bool) {
        self.engine.run_tool(name, input).await
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
        // The old conversation's background agents end with it, and the new one is
        // not told of them.
        if let Some(shell) = self.engine.session_shell() {
            shell.agents().stop_all();
            let _ = shell.agents().take_ended();
        }
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

    /// The model for the turns that follow (`source`: `user`, `sdk`): PreModelSwitch
    /// hooks may refuse it; PostModelSwitch hooks hear of it.
    pub(crate) async fn set_model(&mut self, model: &str, source: &str) -> Result<(), crate::CommandError> {
        let current = self.engine.model().to_string();
        // On a Claude provider a name outside the model table is a typo, not a model.
        let known = |m: &str| !rein_model::model_info(m).id.is_empty();
        let wanted = self.engine.resolve_model(model.trim());
        if model.trim().is_empty() || (known(&current) && !known(&wanted)) {
            return Err(crate::CommandError::UnknownModel(model.to_string()));
        }
        let hooks = self.engine.hooks();
        if let Some(hooks) = &hooks {
            let input = HookInput::PreModelSwitch {
                current_model: current.clone(),
                requested_model: model.to_string(),
                source: source.to_string(),
            };
            if let Some((reason, hook)) = hooks.fire_input(&input, |_| true).await.block() {
                return Err(crate::CommandError::ModelRefused { hook, reason });
            }
        }
        self.engine.set_model(model);
        if let Some(hooks) = &hooks {
            let input = HookInput::PostModelSwitch {
                previous_model: current,
                model: self.engine.model().to_string(),
                source: source.to_string(),
            };
            hooks.fire_input(&input, |_| true).await;
        }
        Ok(())
    }

    /// InstructionsLoaded, once, for the memory files of the system prompt.
    async fn announce_instructions(&mut self) {
        if std::mem::replace(&mut self.instructions_announced, true) {
            return;
        }
        let Some(hooks) = self.engine.hooks() else { return };
        for (path, kind) in &self.parts.memory {
            let memory_type = match *kind {
                "managed" => "Managed",
                "user" => "User",
                "local" => "Local",
                _ => "Project",
            };
            let input = HookInput::InstructionsLoaded {
                file_path: path.display().to_string(),
                memory_type: memory_type.to_string(),
                load_reason: "session_start".to_string(),
            };
            hooks.fire_input(&input, |_| true).await;
        }
    }

    /// UserPromptExpansion before a command the person typed expands: a block stops it.
    async fn expansion_hooks(&self, def: &CommandDef, args: &str, text: &str) -> Result<(), PromptError> {
        let Some(hooks) = self.engine.hooks() else { return Ok(()) };
        let input = HookInput::UserPromptExpansion {
            expansion_type: "slash_command".into(),
            command_name: def.name.clone(),
            command_args: args.to_string(),
            command_source: def.label.clone(),
            prompt: text.to_string(),
        };
        match hooks.fire_input(&input, |_| true).await.block() {
            Some((reason, hook)) => Err(PromptError::ExpansionBlocked { command: def.name.clone(), hook, reason }),
            None => Ok(()),
        }
    }

    /// The permission mode from now on (`source` names who changed it).
    pub fn set_mode(&self, mode: PermissionMode, source: &str) {
        self.live.policy().set_mode(mode, source);
    }

    pub fn mode(&self) -> PermissionMode {
        self.live.policy().get().mode
    }

    /// Whether the OS sandbox confines the person's commands.
    pub fn sandbox_active(&self) -> bool {
        self.parts.sandbox_active
    }

    /// `/add-dir`: `dir` is a working directory for the rest of the session; then
    /// DirectoryAdded hooks (`source`: `slash_command`). What they say is for the person.
    pub async fn add_directory(
        &self,
        dir: &std::path::Path,
        source: &str,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<(), rein_policy::UpdateError> {
        let update = rein_policy::PermissionUpdate {
            change: rein_policy::Change::AddDirectories(vec![dir.to_path_buf()]),
            destination: rein_policy::Destination::Session,
        };
        let files = rein_policy::SettingsFiles { project_root: self.parts.project_dir.clone(), user_dir: None };
        self.live.policy().apply(&update, &files)?;
        if let Some(hooks) = self.engine.hooks().filter(|h| h.has(rein_hooks::HookEvent::DirectoryAdded)) {
            let input = HookInput::DirectoryAdded { directory: dir.display().to_string(), source: source.to_string() };
            for n in hooks.fire_input(&input, |_| true).await.notices(rein_hooks::HookEvent::DirectoryAdded) {
                sink(EngineEvent::Notice(n));
            }
        }
        Ok(())
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
        let restored = self.engine.rewind(n, files, conversation, force);
        self.note_context();
        restored
    }

    /// The session opens (an interactive one, before the person's first prompt):
    /// SessionStart hooks run now.
    pub async fn open(&mut self, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        self.engine.open_session(sink).await;
    }

    /// `--init-only`: the Setup hooks alone (the session goes no further).
    pub async fn run_setup(&mut self, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        self.engine.setup_hooks(sink).await;
    }

    /// Stop the background agents still running.
    pub fn stop_background(&self) {
        if let Some(shell) = self.engine.session_shell() {
            shell.agents().stop_all();
        }
    }

    /// The session ends (SessionEnd hooks with `reason`); background agents still
    /// running are stopped.
    pub async fn end(&self, reason: &str, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        if let Some(shell) = self.engine.session_shell() {
            shell.agents().stop_all();
        }
        self.engine.end_session(reason, sink).await;
    }

    /// Headless, once a turn has ended: wait (until `until`, one deadline for the whole
    /// run) for a background agent to end, and return what the model is to be told of
    /// those that ended, as the next turn's prompt. `None` when none runs; at the
    /// deadline, or once `abort` is cancelled (Ctrl+C), those still running are stopped
    /// and no further turn is started.
    pub async fn background_news(
        &self,
        until: std::time::Instant,
        abort: &tokio_util::sync::CancellationToken,
    ) -> Option<String> {
        let agents = self.engine.session_shell()?.agents();
        loop {
            let now = std::time::Instant::now();
            if now >= until || abort.is_cancelled() {
                agents.stop_all();
                return None;
            }
            let running = agents.list().iter().any(|a| a.state == rein_tools::AgentState::Running);
            if let Some(news) = agents.take_notice() {
                return Some(news);
            }
            if !running {
                return None;
            }
            let nap = (until - now).min(std::time::Duration::from_millis(50));
            tokio::select! {
                _ = tokio::time::sleep(nap) => {}
                _ = abort.cancelled() => {}
            }
        }
    }
}
