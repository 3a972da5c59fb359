//! The interactive session's state and what each key, paste and engine event does to
//! it. Handlers only change state; `view` draws it and `term` writes finished lines
//! into the terminal's scrollback once.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use rein_policy::{PermissionMode, SharedPolicy};
use rein_protocol::{ToolUse, Usage};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::composer::{Composer, Edit};
use crate::stream::Stream;
use crate::worker::ToEngine;

/// A second Ctrl+C or Ctrl+D within this time exits.
pub(crate) const EXIT_WINDOW: Duration = Duration::from_secs(2);

/// A turn in progress.
pub(crate) struct Busy {
    pub since: Instant,
    pub token: CancellationToken,
    /// The model gave its final answer (no tool call): the turn is only finishing, so
    /// Esc no longer interrupts it but counts toward Esc Esc.
    pub answered: bool,
}

/// A call of the batch in progress: when it started, and how long it took once done
/// (a finished call stops ticking while its siblings run).
pub(crate) struct Running {
    pub call: ToolUse,
    pub since: Instant,
    pub took: Option<Duration>,
    /// The calls of the agent working inside it (a subagent), as headers.
    pub steps: Vec<String>,
}

impl Running {
    pub(crate) fn new(call: ToolUse) -> Self {
        Running { call, since: Instant::now(), took: None, steps: Vec::new() }
    }
}

/// How a finished call ran: how long, and how many calls an agent inside it made.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Ran {
    pub took: Option<Duration>,
    pub uses: usize,
}

/// Totals of the session, for `/cost`.
#[derive(Default)]
pub(crate) struct Totals {
    pub usage: Usage,
    pub cost_usd: f64,
    pub api: Duration,
    pub turns: u32,
}

pub(crate) struct App {
    pub cwd: PathBuf,
    /// Where "don't ask again" rules are kept (`.claude/settings.local.json`).
    pub project_root: PathBuf,
    pub model: String,
    pub policy: SharedPolicy,
    /// Shift+Tab may reach bypassPermissions (it was allowed at start).
    pub allow_bypass: bool,
    pub composer: Composer,
    pub stream: Stream,
    /// Finished lines not yet written into scrollback.
    pub pending: crate::out::Out,
    /// The last finished lines, unwrapped, to draw them again (after a resize that tore
    /// the live area; when a terminal attaches to a background session).
    pub drawn: std::collections::VecDeque<Line<'static>>,
    /// A background session (`rein --bg`), seen through an attached terminal.
    pub background_session: bool,
    /// Every finished line, tool outputs in full (Ctrl+O), the newest last.
    pub log: std::collections::VecDeque<Line<'static>>,
    /// Ctrl+O was pressed: open the full transcript view.
    pub open_log: bool,
    /// The session to continue in place of this one.
    pub resume_to: Option<String>,
    /// `/reload-plugins` ended the session to start it again.
    pub reload: Option<Reload>,
    pub rein_home: PathBuf,
    pub session_id: String,
    /// Tokens in use, the window, where compaction starts (as of the last turn).
    pub context: Option<(u64, u64, u64)>,
    /// A file to open in `$EDITOR` at the next frame (`/memory`, Ctrl+G).
    pub edit: Option<PathBuf>,
    /// The file being edited is the prompt (Ctrl+G): its text comes back to the input box.
    pub editing_prompt: bool,
    /// Ctrl+Z: give the terminal back and stop until `fg`.
    pub(crate) suspend: bool,
    /// The session has a conversation (the exit line names it for `--resume`).
    pub turns_taken: bool,
    pub(crate) esc_armed: Option<Instant>,
    /// Esc Esc came while the turn was finishing: the picker opens when it ends.
    pub(crate) picker_after_turn: bool,
    pub busy: Option<Busy>,
    /// Tokens of the turn in progress.
    pub turn_tokens: u64,
    pub thinking: bool,
    /// Calls of the batch in progress.
    pub running: Vec<Running>,
    /// Modal views (dialogs, pickers, search), the top one last, and questions waiting.
    pub(crate) modals: crate::modal::Stack<App>,
    /// The window's width, for rendering finished lines.
    pub width: usize,
    /// The completion menu's choice, the text it was made for, and the text Esc closed
    /// it on.
    pub(crate) menu_selected: usize,
    pub(crate) menu_for: String,
    pub(crate) menu_closed: Option<String>,
    /// The model's task list (TodoWrite): each item and its status.
    pub todos: Vec<(String, String)>,
    /// Ctrl+T: the task list shows under the spinner.
    pub show_todos: bool,
    /// Messages typed while the model works, sent when it is done.
    pub queue: Vec<String>,
    /// The session's background commands (`/tasks`).
    pub(crate) jobs: Option<std::sync::Arc<dyn rein_tools::SessionShell>>,
    /// The session owner's handle: what needs no turn (the mode) is asked there at once.
    pub(crate) owner: Option<rein_session::SessionHandle>,
    /// Vim mode in the input box (`/vim`, `editorMode: "vim"`).
    pub(crate) vim: Option<crate::vim::Vim>,
    /// `~/.claude/keybindings.json`.
    pub(crate) keybindings: crate::keybindings::Keybindings,
    /// The last answer, for `/copy`.
    pub(crate) last_answer: String,
    /// Images pasted into prompts not yet sent (`[Image #N]`).
    pub(crate) attachments: crate::attach::Attachments,
    pub totals: Totals,
    /// A one-line hint in the footer (`Press Ctrl-C again to exit`).
    pub hint: Option<(String, Instant)>,
    pub(crate) exit_armed: Option<Instant>,
    /// Ring the terminal bell at the next draw (a question waits).
    pub bell: bool,
    /// Custom commands: name and description.
    pub commands: Vec<(String, String)>,
    /// What `/hooks`, `/agents` and `/memory` list.
    pub info: crate::Info,
    /// Where prompts are kept across sessions.
    pub history: Option<crate::history::History>,
    /// The project's files, for `@` mentions (walked on first use).
    pub(crate) files: Option<Vec<String>>,
    /// The `@` picker leaves out what `.gitignore` ignores (`respectGitignore`).
    pub respect_gitignore: bool,
    /// A desktop notification to send at the next draw (OSC 9), when a long turn ends.
    pub notify: Option<String>,
    /// Clear the screen and draw again (Ctrl+L).
    pub redraw: bool,
    /// The `statusLine` setting's command, when set.
    pub status_line: Option<crate::status_line::StatusLine>,
    pub quit: bool,
    pub(crate) prompts: mpsc::UnboundedSender<ToEngine>,
    /// When the last key came: a question opened after it counts it as typing that goes
    /// on ([`crate::on_purpose`]).
    pub(crate) last_key: Option<Instant>,
    /// The output style chosen in this session for the next ones.
    pub(crate) output_style_next: Option<String>,
    /// How long that pause is ([`crate::on_purpose::pause`]).
    pub(crate) answer_pause: Duration,
}

impl App {
    pub(crate) fn new(
        cwd: PathBuf,
        project_root: PathBuf,
        model: String,
        policy: SharedPolicy,
        prompts: mpsc::UnboundedSender<ToEngine>,
    ) -> Self {
        App {
            cwd,
            project_root,
            model,
            policy,
            allow_bypass: false,
            composer: Composer::default(),
            stream: Stream::default(),
            pending: crate::out::Out::default(),
            drawn: Default::default(),
            background_session: false,
            log: std::collections::VecDeque::new(),
            open_log: false,
            esc_armed: None,
            picker_after_turn: false,
            edit: None,
            editing_prompt: false,
            suspend: false,
            turns_taken: false,
            context: None,
            resume_to: None,
            reload: None,
            rein_home: PathBuf::new(),
            session_id: String::new(),
            busy: None,
            turn_tokens: 0,
            thinking: false,
            running: Vec::new(),
            modals: Default::default(),
            width: 80,
            menu_selected: 0,
            menu_for: String::new(),
            menu_closed: None,
            queue: Vec::new(),
            attachments: Default::default(),
            last_answer: String::new(),
            keybindings: Default::default(),
            vim: None,
            jobs: None,
            owner: None,
            todos: Vec::new(),
            show_todos: true,
            totals: Totals::default(),
            hint: None,
            exit_armed: None,
            bell: false,
            commands: Vec::new(),
            info: crate::Info::default(),
            history: None,
            files: None,
            respect_gitignore: true,
            status_line: None,
            notify: None,
            redraw: false,
            quit: false,
            prompts,
            last_key: None,
            answer_pause: crate::on_purpose::pause(),
            output_style_next: None,
        }
    }

    /// Ask the engine's task for housekeeping (`/compact`, `/context`, `/clear`).
    pub(crate) fn ask_engine(&mut self, what: ToEngine) {
        if self.busy.is_some() {
            self.note("wait for the turn to end (or press Esc)");
        } else if self.prompts.send(what).is_err() {
            self.note("the session has ended");
        }
    }

    pub(crate) fn note(&mut self, text: impl Into<String>) {
        self.pending.push(Line::from(Span::styled(
            format!("  ⎿  {}", text.into()),
            Style::default().add_modifier(Modifier::DIM),
        )));
    }

    /// Send a message, or queue it while a turn runs; built-in slash commands run here,
    /// custom ones and `!cmd` on the engine's task.
    pub(crate) fn submit(&mut self, text: String) {
        if let Some(command) = text.strip_prefix('/') {
            let name = command.split_whitespace().next().unwrap_or_default();
            // MCP prompts (`/mcp__server__prompt`) are expanded on the engine's task.
            if !self.commands.iter().any(|(n, _)| n == name) && !name.starts_with("mcp__") {
                self.run_slash(command.trim());
                return;
            }
        }
        if text.starts_with('!') && self.busy.is_none() {
            self.pending.push(Line::from(""));
            self.pending
                .push(Line::from(Span::styled(text.clone(), Style::default().fg(crate::theme::palette().brand))));
            if self.prompts.send(ToEngine::Prompt(text)).is_err() {
                self.note("the session has ended");
            }
            return;
        }
        if self.busy.is_some() {
            self.queue.push(text);
            return;
        }
        self.turns_taken = true;
        self.pending.push(Line::from(""));
        for (i, l) in text.lines().enumerate() {
            let prefix = if i == 0 { "> " } else { "  " };
            self.pending.push(Line::from(Span::styled(
                format!("{prefix}{l}"),
                Style::default().fg(crate::theme::palette().muted).add_modifier(Modifier::BOLD),
            )));
        }
        let attached = self.attachments.take_for(&text);
        // Each image sent is named under the prompt, with its size.
        for (shown, _) in &attached {
            self.pending.push(Line::from(Span::styled(
                format!("  ⎿  {shown}"),
                Style::default().fg(crate::theme::palette().muted),
            )));
        }
        let images: Vec<rein_protocol::ContentBlock> = attached.into_iter().map(|(_, block)| block).collect();
        let prompt = if images.is_empty() { ToEngine::Prompt(text) } else { ToEngine::Attached { text, images } };
        if self.prompts.send(prompt).is_err() {
            self.note("the session has ended");
        }
    }

    /// A bracketed paste: a path to an image file attaches the image, anything else is
    /// text.
    pub(crate) fn on_paste(&mut self, text: &str) {
        // A paste answers no question: it goes to the draft under it.
        if self.modals.asking() {
            if let Some(gate) = &mut self.modals.gate {
                gate.typing(Instant::now());
            }
            self.composer.paste(text);
            self.hint = Some(("pasted into your draft, under the question".into(), Instant::now()));
            return;
        }
        match crate::attach::image_path(text, &self.cwd) {
            Some(path) => match std::fs::read(&path) {
                Ok(bytes) => self.attach_image(&bytes, &path.display().to_string()),
                Err(e) => self.note(format!("{}: {e}", path.display())),
            },
            None => self.composer.paste(text),
        }
    }

    /// Ctrl+V: the image in the clipboard.
    fn paste_image(&mut self) {
        match crate::clipboard::read_image() {
            Ok(bytes) => self.attach_image(&bytes, "the clipboard"),
            Err(e) => self.note(e.to_string()),
        }
    }

    fn attach_image(&mut self, bytes: &[u8], from: &str) {
        match self.attachments.add(bytes) {
            Ok(marker) => self.composer.insert(&format!("{marker} ")),
            Err(e) => self.note(format!("{from}: {e}")),
        }
    }

    pub(crate) fn on_key(&mut self, key: KeyEvent) {
        // Before the key goes anywhere: a question opened after it counts it as typing.
        let handled = self.modal_key(key);
        self.last_key = Some(Instant::now());
        if handled {
            return;
        }
        if self.menu_key(key) {
            return;
        }
        match self.keybindings.action(&key) {
            Some(action) => {
                if let Some(default) = crate::keybindings::default_key(action) {
                    self.default_key(default);
                }
            }
            None => self.default_key(key),
        }
    }

    /// What a key does when the person has not bound it elsewhere.
    fn default_key(&mut self, key: KeyEvent) {
        let Some(key) = self.vim_key(key) else { return };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => {
                if let Some(b) = self.busy.as_ref().filter(|b| !b.answered) {
                    b.token.cancel();
                } else if self.composer.is_empty() {
                    // Esc Esc: pick an earlier prompt to go back to.
                    if self.esc_armed.take().is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
                        if self.busy.is_some() {
                            // The answer is in; the turn is only finishing: open it then.
                            self.picker_after_turn = true;
                        } else {
                            self.ask_engine(ToEngine::Command(rein_session::Command::Prompts));
                        }
                    } else {
                        self.esc_armed = Some(Instant::now());
                    }
                }
            }
            KeyCode::Char('c') if ctrl => {
                if let Some(b) = &self.busy {
                    b.token.cancel();
                } else if !self.composer.is_empty() {
                    self.composer.clear();
                } else {
                    self.arm_exit("Press Ctrl-C again to exit");
                }
            }
            KeyCode::Char('d') if ctrl && self.composer.is_empty() => self.arm_exit("Press Ctrl-D again to exit"),
            KeyCode::BackTab => self.cycle_mode(),
            KeyCode::Char('l') if ctrl => self.redraw = true,
            KeyCode::Char('o') if ctrl => self.open_log = true,
            KeyCode::Char('g') if ctrl => self.edit_prompt(),
            KeyCode::Char('z') if ctrl => self.suspend = true,
            KeyCode::Char('v') if ctrl => self.paste_image(),
            KeyCode::Char('b') if ctrl => self.background_running(),
            KeyCode::Char('t') if ctrl => {
                self.show_todos = !self.show_todos;
                let shown = if self.show_todos { "shown" } else { "hidden" };
                self.hint = Some((format!("Task list {shown} (ctrl+t)"), Instant::now()));
            }
            KeyCode::Char('r') if ctrl => self.search_history(),
            KeyCode::Tab if key.modifiers.contains(KeyModifiers::SHIFT) => self.cycle_mode(),
            _ => {
                if let Edit::Submit(text) = self.composer.key(key) {
                    if let Some(h) = &self.history {
                        h.append(&text);
                    }
                    self.submit(text);
                }
            }
        }
    }

    /// Ctrl+G: the prompt in `$EDITOR`; what is saved comes back to the input box.
    fn edit_prompt(&mut self) {
        // A new file of its own (`create_new` follows no link planted under the name).
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let path = std::env::temp_dir().join(format!("rein-prompt-{}-{nanos:x}.md", std::process::id()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| std::io::Write::write_all(&mut f, self.composer.text().as_bytes()));
        match written {
            Ok(()) => {
                self.edit = Some(path);
                self.editing_prompt = true;
            }
            Err(e) => self.note(format!("Could not open the editor: {e}")),
        }
    }

    /// The files an `@` mention being typed could name.
    pub(crate) fn mention_candidates(&mut self) -> Vec<String> {
        let Some((_, query)) = crate::mentions::current(self.composer.text()) else { return Vec::new() };
        let root = self.cwd.clone();
        let respect = self.respect_gitignore;
        let files = self.files.get_or_insert_with(|| crate::mentions::project_files(&root, respect));
        crate::mentions::matches(files, &query).into_iter().map(str::to_string).collect()
    }

    /// Whether the permission dialog offers switching to auto mode (not in it already,
    /// nor in a mode that asks nothing).
    pub(crate) fn offer_auto(&self) -> bool {
        let policy = self.policy.get();
        !policy.auto_disabled && !matches!(policy.mode, PermissionMode::Auto | PermissionMode::BypassPermissions)
    }

    /// default → acceptEdits → plan → auto (→ bypassPermissions when allowed at start) →
    /// default, as Claude Code cycles.
    pub(crate) fn cycle_mode(&mut self) {
        let next = match self.policy.get().mode {
            PermissionMode::Default => PermissionMode::AcceptEdits,
            PermissionMode::AcceptEdits => PermissionMode::Plan,
            PermissionMode::Plan if self.policy.get().auto_disabled => PermissionMode::Default,
            PermissionMode::Plan => PermissionMode::Auto,
            // Never to a mode the session refuses (the cycle would stop there).
            PermissionMode::Auto if self.allow_bypass && !self.policy.get().bypass_disabled => {
                PermissionMode::BypassPermissions
            }
            _ => PermissionMode::Default,
        };
        self.policy.set_mode(next, "shift+tab");
        if let Some(s) = &mut self.status_line {
            s.invalidate();
        }
    }

    /// Refresh the status line if it is due.
    pub(crate) fn tick_status_line(&mut self) {
        let mode = self.policy.get().mode.name();
        let facts = crate::status_line::facts(&self.model, &self.cwd, &self.project_root, self.totals.cost_usd, mode);
        if let Some(s) = &mut self.status_line {
            s.tick(facts);
        }
    }
}

/// What `/reload-plugins` starts again with: the session (once it has a conversation),
/// its model and its permission mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reload {
    pub session: Option<String>,
    pub model: String,
    pub mode: String,
}
