//! The interactive session's state and what each key, paste and engine event does to
//! it. Handlers only change state; `view` draws it and `term` writes finished lines
//! into the terminal's scrollback once.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use rein_engine::{Answer, End, EngineEvent};
use rein_model::ModelEvent;
use rein_policy::{PermissionMode, SharedPolicy};
use rein_protocol::{ContentBlock, ToolUse, Usage};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::approver::Question;
use crate::composer::{Composer, Edit};
use crate::stream::Stream;
use crate::worker::{FromEngine, ToEngine};
use crate::{dialog, slash, summary};

/// A second Ctrl+C or Ctrl+D within this time exits.
const EXIT_WINDOW: Duration = Duration::from_secs(2);

/// A turn in progress.
pub struct Busy {
    pub since: Instant,
    pub token: CancellationToken,
}

/// Totals of the session, for `/cost`.
#[derive(Default)]
pub struct Totals {
    pub usage: Usage,
    pub cost_usd: f64,
    pub api: Duration,
    pub turns: u32,
}

pub struct App {
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
    /// Every finished line, tool outputs in full (Ctrl+O), the newest last.
    pub log: std::collections::VecDeque<Line<'static>>,
    /// Ctrl+O was pressed: open the full transcript view.
    pub open_log: bool,
    /// A file to open in `$EDITOR` at the next frame (`/memory`).
    pub edit: Option<PathBuf>,
    /// Esc Esc: earlier prompts to go back to, and the one selected.
    pub picker: Option<(Vec<String>, usize)>,
    esc_armed: Option<Instant>,
    pub busy: Option<Busy>,
    /// Tokens of the turn in progress.
    pub turn_tokens: u64,
    pub thinking: bool,
    pub running: Vec<(ToolUse, Instant)>,
    pub question: Option<(Question, usize)>,
    /// Messages typed while the model works, sent when it is done.
    pub queue: Vec<String>,
    pub totals: Totals,
    /// A one-line hint in the footer (`Press Ctrl-C again to exit`).
    pub hint: Option<(String, Instant)>,
    exit_armed: Option<Instant>,
    /// Ring the terminal bell at the next draw (a question waits).
    pub bell: bool,
    /// Custom commands: name and description.
    pub commands: Vec<(String, String)>,
    /// What `/hooks`, `/agents` and `/memory` list.
    pub info: crate::Info,
    /// Where prompts are kept across sessions.
    pub history: Option<crate::history::History>,
    /// Ctrl+R: the query and the entry it found.
    pub search: Option<(String, Option<usize>)>,
    /// The project's files, for `@` mentions (walked on first use).
    files: Option<Vec<String>>,
    /// A desktop notification to send at the next draw (OSC 9), when a long turn ends.
    pub notify: Option<String>,
    /// Clear the screen and draw again (Ctrl+L).
    pub redraw: bool,
    /// The `statusLine` setting's command, when set.
    pub status_line: Option<crate::status_line::StatusLine>,
    pub quit: bool,
    prompts: mpsc::UnboundedSender<ToEngine>,
}

impl App {
    pub fn new(
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
            log: std::collections::VecDeque::new(),
            open_log: false,
            picker: None,
            esc_armed: None,
            edit: None,
            busy: None,
            turn_tokens: 0,
            thinking: false,
            running: Vec::new(),
            question: None,
            queue: Vec::new(),
            totals: Totals::default(),
            hint: None,
            exit_armed: None,
            bell: false,
            commands: Vec::new(),
            info: crate::Info::default(),
            history: None,
            search: None,
            files: None,
            status_line: None,
            notify: None,
            redraw: false,
            quit: false,
            prompts,
        }
    }

    /// Ask the engine's task for housekeeping (`/compact`, `/context`, `/clear`).
    pub fn ask_engine(&mut self, what: ToEngine) {
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
    pub fn submit(&mut self, text: String) {
        if let Some(command) = text.strip_prefix('/') {
            let name = command.split_whitespace().next().unwrap_or_default();
            if !self.commands.iter().any(|(n, _)| n == name) {
                slash::run(self, command.trim());
                return;
            }
        }
        if text.starts_with('!') && self.busy.is_none() {
            self.pending.push(Line::from(""));
            self.pending.push(Line::from(Span::styled(text.clone(), Style::default().fg(Color::Magenta))));
            if self.prompts.send(ToEngine::Prompt(text)).is_err() {
                self.note("the session has ended");
            }
            return;
        }
        if self.busy.is_some() {
            self.queue.push(text);
            return;
        }
        self.pending.push(Line::from(""));
        for (i, l) in text.lines().enumerate() {
            let prefix = if i == 0 { "> " } else { "  " };
            self.pending.push(Line::from(Span::styled(
                format!("{prefix}{l}"),
                Style::default().fg(Color::Gray).add_modifier(Modifier::BOLD),
            )));
        }
        if self.prompts.send(ToEngine::Prompt(text)).is_err() {
            self.note("the session has ended");
        }
    }

    pub fn on_engine(&mut self, m: FromEngine) {
        match m {
            FromEngine::Started(token) => {
                self.busy = Some(Busy { since: Instant::now(), token });
                self.turn_tokens = 0;
            }
            FromEngine::Event(e) => self.on_event(*e),
            FromEngine::Prompts(list) => {
                if list.is_empty() {
                    self.note("No earlier prompts to go back to");
                } else {
                    let last = list.len() - 1;
                    self.picker = Some((list, last));
                }
            }
            FromEngine::Info(lines) => {
                for l in lines {
                    self.note(l);
                }
            }
            FromEngine::Shell { command, output, failed } => {
                let call =
                    ToolUse { id: String::new(), name: "Bash".into(), input: serde_json::json!({"command": command}) };
                self.tool_lines(&call, &output, failed);
            }
            FromEngine::Finished(outcome) => {
                let lines = self.stream.finish();
                self.pending.extend(lines);
                if self.busy.as_ref().is_some_and(|b| b.since.elapsed() > Duration::from_secs(10)) {
                    self.notify = Some("rein is done and waiting for you".into());
                }
                self.busy = None;
                self.thinking = false;
                self.running.clear();
                let t = &mut self.totals;
                t.usage.add(&outcome.usage);
                t.cost_usd += outcome.cost_usd;
                t.api += outcome.api_duration;
                t.turns += outcome.num_turns;
                match &outcome.end {
                    End::Interrupted => self.note("Interrupted · What should rein do instead?"),
                    End::Failed(e) => self.note(format!("Error: {e}")),
                    End::MaxTurns => self.note("Stopped: the maximum number of turns was reached"),
                    End::MaxBudget => self.note("Stopped: the budget was reached"),
                    End::Stopped(why) => self.note(format!("Stopped by a hook: {why}")),
                    End::Completed | End::Deferred(_) => {}
                }
                if let Some(s) = &mut self.status_line {
                    s.invalidate();
                }
                if !self.queue.is_empty() {
                    let next = self.queue.remove(0);
                    self.submit(next);
                }
            }
        }
    }

    fn on_event(&mut self, e: EngineEvent) {
        match e {
            EngineEvent::Stream(ModelEvent::TextDelta { text, .. }) => {
                self.thinking = false;
                self.turn_tokens += (text.len() / 4).max(1) as u64;
                let lines = self.stream.push(&text);
                self.pending.extend(lines);
            }
            EngineEvent::Stream(ModelEvent::ThinkingDelta { thinking, .. }) => {
                self.thinking = true;
                self.turn_tokens += (thinking.len() / 4).max(1) as u64;
            }
            EngineEvent::Assistant(m) => {
                let lines = self.stream.finish();
                self.pending.extend(lines);
                let thought: usize = m
                    .content
                    .iter()
                    .map(|b| match b {
                        ContentBlock::Thinking { thinking, .. } => thinking.chars().count(),
                        _ => 0,
                    })
                    .sum();
                if thought > 0 {
                    let line = format!("✻ Thought for {thought} characters (not shown)");
                    self.pending.push(Line::from(Span::styled(line, Style::default().add_modifier(Modifier::DIM))));
                }
                self.thinking = false;
            }
            EngineEvent::ToolStarted(call) => {
                let lines = self.stream.finish();
                self.pending.extend(lines);
                self.running.push((call, Instant::now()));
            }
            EngineEvent::ToolFinished { call, result } => {
                self.running.retain(|(c, _)| c.id != call.id);
                let (text, is_error) = match &result {
                    ContentBlock::ToolResult { content, is_error, .. } => (content.to_text(), *is_error),
                    _ => (String::new(), false),
                };
                self.tool_lines(&call, &text, is_error);
            }
            EngineEvent::Notice(text) => self.note(text),
            EngineEvent::ApiRetry { attempt, max_retries, error, .. } => {
                self.note(format!("retrying ({attempt}/{max_retries}): {error}"))
            }
            EngineEvent::Compacted { pre_tokens, post_tokens, .. } => {
                self.note(format!("Conversation compacted ({pre_tokens} → {post_tokens} tokens)"))
            }
            _ => {}
        }
    }

    /// Show an earlier conversation (a resumed session) in the scrollback.
    pub fn replay(&mut self, messages: &[rein_protocol::Message]) {
        for m in messages {
            for block in &m.content {
                match (m.role, block) {
                    (rein_protocol::Role::User, ContentBlock::Text { text }) => {
                        self.pending.push(Line::from(""));
                        let first = text.lines().next().unwrap_or_default().to_string();
                        self.pending
                            .push(Line::from(Span::styled(format!("> {first}"), Style::default().fg(Color::Gray))));
                    }
                    (rein_protocol::Role::Assistant, ContentBlock::Text { text }) => {
                        let mut stream = Stream::default();
                        let mut lines = stream.push(text);
                        lines.extend(stream.finish());
                        self.pending.extend(lines);
                    }
                    (_, ContentBlock::ToolUse(call)) => {
                        self.pending.push(Line::from(vec![
                            Span::styled("⏺ ", Style::default().fg(Color::Green)),
                            Span::raw(summary::header(call, &self.cwd)),
                        ]));
                    }
                    _ => {}
                }
            }
        }
        if !messages.is_empty() {
            self.note(format!("Resumed a conversation of {} messages", messages.len()));
        }
    }

    /// `⏺ Tool(arg)` and its `⎿` summary.
    fn tool_lines(&mut self, call: &ToolUse, text: &str, is_error: bool) {
        let colour = if is_error { Color::Red } else { Color::Green };
        self.pending.push(Line::from(vec![
            Span::styled("⏺ ", Style::default().fg(colour)),
            Span::styled(summary::header(call, &self.cwd), Style::default().add_modifier(Modifier::BOLD)),
        ]));
        for (i, line) in summary::summary(call, text, is_error).into_iter().enumerate() {
            let indent = if i == 0 { "  ⎿  " } else { "     " };
            let mut spans = vec![Span::raw(indent)];
            spans.extend(line.spans);
            self.pending.push_to(Line::from(spans), crate::out::Where::Screen);
        }
        // The whole output, for Ctrl+O (capped).
        for (i, l) in text.lines().take(2_000).enumerate() {
            let indent = if i == 0 { "  ⎿  " } else { "     " };
            self.pending.push_to(Line::from(format!("{indent}{l}")), crate::out::Where::Log);
        }
    }

    pub fn on_question(&mut self, q: Question) {
        self.question = Some((q, 0));
        self.bell = true;
    }

    pub fn on_paste(&mut self, text: &str) {
        if self.question.is_none() {
            self.composer.paste(text);
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) {
        if self.question.is_some() {
            self.dialog_key(key);
            return;
        }
        if self.search.is_some() {
            self.search_key(key);
            return;
        }
        if self.picker.is_some() {
            self.picker_key(key);
            return;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => {
                if let Some(b) = &self.busy {
                    b.token.cancel();
                } else if self.composer.is_empty() {
                    // Esc Esc: pick an earlier prompt to go back to.
                    if self.esc_armed.take().is_some_and(|t| t.elapsed() < Duration::from_secs(1)) {
                        self.ask_engine(ToEngine::Prompts);
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
            KeyCode::Char('r') if ctrl => self.search = Some((String::new(), None)),
            KeyCode::Tab if self.composer.text().starts_with('/') => self.complete_command(),
            KeyCode::Tab if crate::mentions::current(self.composer.text()).is_some() => self.complete_mention(),
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

    /// Ctrl+R: type to search earlier prompts; Ctrl+R again for an older match; Enter
    /// sends the match, Tab or Esc puts it in the input box, Ctrl+C cancels.
    fn search_key(&mut self, key: KeyEvent) {
        let Some((query, found)) = &mut self.search else { return };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let entries = self.composer.history();
        match key.code {
            KeyCode::Char('r') if ctrl => {
                *found = crate::history::search(entries, query, found.unwrap_or(entries.len())).or(*found);
            }
            KeyCode::Char('c') if ctrl => self.search = None,
            KeyCode::Char(c) if !ctrl => {
                query.push(c);
                *found = crate::history::search(entries, query, entries.len());
            }
            KeyCode::Backspace => {
                query.pop();
                *found = crate::history::search(entries, query, entries.len());
            }
            KeyCode::Enter | KeyCode::Tab | KeyCode::Esc => {
                let text = found.and_then(|i| entries.get(i)).cloned();
                self.search = None;
                if let Some(text) = text {
                    if key.code == KeyCode::Enter {
                        self.composer.clear();
                        self.submit(text);
                    } else {
                        self.composer.set_text(&text);
                    }
                }
            }
            _ => {}
        }
    }

    /// The Esc Esc picker: Up/Down choose, Enter goes back to before that prompt (and
    /// puts it in the input box to edit), Esc closes.
    fn picker_key(&mut self, key: KeyEvent) {
        let Some((list, selected)) = &mut self.picker else { return };
        match key.code {
            KeyCode::Up => *selected = selected.saturating_sub(1),
            KeyCode::Down => *selected = (*selected + 1).min(list.len().saturating_sub(1)),
            KeyCode::Enter => {
                let n = *selected;
                let text = list.get(n).cloned().unwrap_or_default();
                self.picker = None;
                self.ask_engine(ToEngine::Rewind(n));
                self.composer.set_text(&text);
            }
            KeyCode::Esc => self.picker = None,
            _ => {}
        }
    }

    /// What the search shows in place of the input box.
    pub fn search_line(&self) -> Option<String> {
        let (query, found) = self.search.as_ref()?;
        let text = found.and_then(|i| self.composer.history().get(i)).map(String::as_str).unwrap_or("");
        Some(format!("(reverse-i-search)`{query}': {}", text.lines().next().unwrap_or_default()))
    }

    /// Tab after `/na`: the command's whole name, or the names it could be.
    fn complete_command(&mut self) {
        let typed = self.composer.text().trim_start_matches('/').to_string();
        if typed.contains(char::is_whitespace) {
            return;
        }
        let mut names: Vec<String> = crate::slash::NAMES.iter().map(|n| n.to_string()).collect();
        names.extend(self.commands.iter().map(|(n, _)| n.clone()));
        let matching: Vec<&String> = names.iter().filter(|n| n.starts_with(&typed)).collect();
        match matching.as_slice() {
            [] => {}
            [one] => {
                self.composer.clear();
                self.composer.insert(&format!("/{one} "));
            }
            many => {
                let list: Vec<String> = many.iter().map(|n| format!("/{n}")).collect();
                self.hint = Some((list.join("  "), Instant::now()));
            }
        }
    }

    /// The files an `@` mention being typed could name.
    pub fn mention_candidates(&mut self) -> Vec<String> {
        let Some((_, query)) = crate::mentions::current(self.composer.text()) else { return Vec::new() };
        let root = self.cwd.clone();
        let files = self.files.get_or_insert_with(|| crate::mentions::project_files(&root));
        crate::mentions::matches(files, &query).into_iter().map(str::to_string).collect()
    }

    /// Tab on `@que`: the best file.
    fn complete_mention(&mut self) {
        let Some((start, _)) = crate::mentions::current(self.composer.text()) else { return };
        if let Some(best) = self.mention_candidates().into_iter().next() {
            let kept = self.composer.text()[..start].to_string();
            self.composer.set_text(&format!("{kept}@{best} "));
        }
    }

    fn arm_exit(&mut self, hint: &str) {
        if self.exit_armed.is_some_and(|t| t.elapsed() < EXIT_WINDOW) {
            self.quit = true;
            return;
        }
        self.exit_armed = Some(Instant::now());
        self.hint = Some((hint.to_string(), Instant::now()));
    }

    /// default → acceptEdits → plan (→ bypassPermissions when allowed at start) → default.
    pub fn cycle_mode(&mut self) {
        let next = match self.policy.get().mode {
            PermissionMode::Default => PermissionMode::AcceptEdits,
            PermissionMode::AcceptEdits => PermissionMode::Plan,
            PermissionMode::Plan if self.allow_bypass => PermissionMode::BypassPermissions,
            _ => PermissionMode::Default,
        };
        self.policy.set_mode(next, "shift+tab");
        if let Some(s) = &mut self.status_line {
            s.invalidate();
        }
    }

    /// Refresh the status line if it is due.
    pub fn tick_status_line(&mut self) {
        let mode = self.policy.get().mode.name();
        let facts = crate::status_line::facts(&self.model, &self.cwd, &self.project_root, self.totals.cost_usd, mode);
        if let Some(s) = &mut self.status_line {
            s.tick(facts);
        }
    }

    fn dialog_key(&mut self, key: KeyEvent) {
        let Some((q, selected)) = &mut self.question else { return };
        let project = self.project_root.display().to_string();
        let options = dialog::options(q, &project);
        let chosen = match key.code {
            KeyCode::Up => {
                *selected = selected.saturating_sub(1);
                None
            }
            KeyCode::Down => {
                *selected = (*selected + 1).min(options.len() - 1);
                None
            }
            KeyCode::Enter => options.get(*selected).map(|o| o.0),
            KeyCode::Esc | KeyCode::Char('n') => Some('3'),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Some('3'),
            KeyCode::Char('y') => Some('1'),
            KeyCode::BackTab if q.edits => Some('2'),
            KeyCode::Char(c) if options.iter().any(|o| o.0 == c) => Some(c),
            _ => None,
        };
        let Some(choice) = chosen else { return };
        let Some((q, _)) = self.question.take() else { return };
        let answer = match choice {
            '1' => Answer::yes(),
            '2' if q.edits => {
                self.policy.set_mode(PermissionMode::AcceptEdits, "the permission dialog");
                self.note("Edits are allowed for the rest of this session");
                Answer::yes()
            }
            '2' => {
                match rein_settings::add_local_allow_rules(&self.project_root, &q.remember) {
                    Ok(path) => self.note(format!("Remembered {} in {}", q.remember.join(", "), path.display())),
                    Err(e) => self.note(format!("Could not save the rule: {e}")),
                }
                Answer { remember: q.remember.clone(), ..Answer::yes() }
            }
            _ => Answer::no(),
        };
        let _ = q.reply.send(answer);
    }
}
