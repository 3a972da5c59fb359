//! What the engine's events do to the interactive session: streamed text committed
//! line by line, tool calls shown with their summaries, the end of a turn, a resumed
//! conversation replayed into the scrollback.

use std::time::{Duration, Instant};

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use rein_protocol::{ContentBlock, ToolUse};
use rein_session::events::{AgentStep, End, EngineEvent, StreamDelta};

use crate::app::{App, Busy, Ran};
use crate::stream::Stream;
use crate::summary;
use crate::worker::FromEngine;

/// How many lines of one tool's output the Ctrl+O view keeps.
const LOG_TOOL_LINES: usize = 2_000;

impl App {
    pub(crate) fn on_engine(&mut self, m: FromEngine) {
        match m {
            FromEngine::Started(token) => {
                self.busy = Some(Busy { since: Instant::now(), token, answered: false });
                self.turn_tokens = 0;
            }
            FromEngine::Event(e) => self.on_event(*e),
            FromEngine::Context(used, window, at) => self.context = Some((used, window, at)),
            FromEngine::Model(id) => self.model = id,
            FromEngine::Copy { what, text } => self.copy_to_clipboard(&what, &text),
            FromEngine::NewSession(id) => {
                self.session_id = id;
                self.context = None;
                self.totals = Default::default();
            }
            FromEngine::RewindConflict { n, files, conversation, paths } => {
                self.open(Box::new(crate::rewind_menu::RewindMenu { n, paths, files, conversation }));
            }
            FromEngine::Prompts(list) => {
                if list.is_empty() {
                    self.note("No earlier prompts to go back to");
                } else {
                    let selected = list.len() - 1;
                    self.open(Box::new(crate::pickers::Prompts { list, selected }));
                }
            }
            FromEngine::Info(lines) => {
                let dim = Style::default().add_modifier(Modifier::DIM);
                for (i, l) in lines.into_iter().enumerate() {
                    let gutter = if i == 0 { "  ⎿  " } else { "     " };
                    self.pending.push(Line::from(Span::styled(format!("{gutter}{l}"), dim)));
                }
            }
            FromEngine::Shell { command, output, failed } => {
                let call =
                    ToolUse { id: String::new(), name: "Bash".into(), input: serde_json::json!({"command": command}) };
                self.tool_lines(&call, &output, failed);
            }
            FromEngine::Aborted(why) => {
                self.busy = None;
                self.note(format!("Error: {why}"));
            }
            FromEngine::Finished(outcome) => {
                let lines = self.stream.finish(self.width);
                self.pending.extend(lines);
                if self.busy.as_ref().is_some_and(|b| b.since.elapsed() > Duration::from_secs(10)) {
                    self.notify = Some("rein is done and waiting for you".into());
                }
                self.busy = None;
                self.thinking = false;
                self.running.clear();
                if !outcome.result_text.trim().is_empty() {
                    self.last_answer = outcome.result_text.clone();
                }
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
                if std::mem::take(&mut self.picker_after_turn) {
                    self.ask_engine(crate::worker::ToEngine::Command(rein_session::Command::Prompts));
                }
                if !self.queue.is_empty() {
                    let next = self.queue.remove(0);
                    self.submit(next);
                }
            }
        }
    }

    pub(crate) fn on_event(&mut self, e: EngineEvent) {
        match e {
            EngineEvent::Stream(StreamDelta::MessageStarted { .. }) => {
                // Another response (a hook sent the model back to work): Esc interrupts again.
                if let Some(b) = &mut self.busy {
                    b.answered = false;
                }
            }
            EngineEvent::Stream(StreamDelta::Text { text, .. }) => {
                self.thinking = false;
                self.turn_tokens += (text.len() / 4).max(1) as u64;
                self.stream.push(&text, self.width);
            }
            EngineEvent::Stream(StreamDelta::Thinking { thinking, .. }) => {
                self.thinking = true;
                self.turn_tokens += (thinking.len() / 4).max(1) as u64;
            }
            EngineEvent::Assistant(m) => {
                // A final answer (no tool call): what is left of the turn is bookkeeping.
                let answered = !m.content.iter().any(|b| matches!(b, ContentBlock::ToolUse(_)));
                if let Some(b) = &mut self.busy {
                    b.answered = answered;
                }
                let lines = self.stream.finish(self.width);
                self.pending.extend(lines);
                let thinking: String = m
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Thinking { thinking, .. } => Some(thinking.as_str()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                if !thinking.is_empty() {
                    // Collapsed in the scrollback; whole in the Ctrl+O view.
                    let dim = Style::default().add_modifier(Modifier::DIM);
                    let note = format!("✻ Thought for {} characters (ctrl+o to expand)", thinking.chars().count());
                    self.pending.push_to(Line::from(Span::styled(note, dim)), crate::out::Where::Screen);
                    self.pending.push_to(Line::from(Span::styled("✻ Thinking:", dim)), crate::out::Where::Log);
                    for l in thinking.lines() {
                        self.pending.push_to(Line::from(Span::styled(format!("  {l}"), dim)), crate::out::Where::Log);
                    }
                }
                self.thinking = false;
            }
            EngineEvent::ToolStarted(call) => {
                let lines = self.stream.finish(self.width);
                self.pending.extend(lines);
                self.running.push(crate::app::Running::new(call));
            }
            EngineEvent::ToolDone { id } => {
                if let Some(r) = self.running.iter_mut().find(|r| r.call.id == id) {
                    r.took = Some(r.since.elapsed());
                }
            }
            EngineEvent::AgentStep { parent, step: AgentStep::ToolStarted(call) } => {
                let header = summary::header(&call, &self.cwd);
                if let Some(r) = self.running.iter_mut().find(|r| r.call.id == parent) {
                    r.steps.push(header);
                }
            }
            // What a subagent writes counts in the turn's figure, so it moves while it works.
            EngineEvent::AgentStep { step: AgentStep::Assistant(m), .. } => {
                self.turn_tokens += m.usage.output_tokens;
            }
            EngineEvent::ToolFinished { call, result, saved } => {
                let ran = self.running.iter().find(|r| r.call.id == call.id).map_or(Ran::default(), |r| Ran {
                    took: Some(r.took.unwrap_or(r.since.elapsed())),
                    uses: r.steps.len(),
                });
                self.running.retain(|r| r.call.id != call.id);
                let (text, is_error) = match &result {
                    ContentBlock::ToolResult { content, is_error, .. } => (content.to_text(), *is_error),
                    _ => (String::new(), false),
                };
                if call.name == "TodoWrite" && !is_error {
                    self.todos = summary::todo_items(&call.input);
                }
                match saved.filter(|_| !is_error) {
                    Some(saved) => self.saved_tool_lines(&call, &text, &saved, ran),
                    None => self.tool_lines_timed(&call, &text, is_error, ran),
                }
            }
            EngineEvent::Notice(text) => self.note(text),
            EngineEvent::ApiRetry { attempt, max_retries, error, .. } => {
                // What had streamed of the broken answer never reached the history: it
                // goes, and the retried answer takes its place.
                let broke = if self.stream.discard() { "the answer broke off; " } else { "" };
                self.note(format!("{broke}retrying ({attempt}/{max_retries}): {error}"));
            }
            EngineEvent::Compacted { pre_tokens, post_tokens, .. } => {
                // The footer's figure is the conversation's size now, not before.
                if let Some((used, _, _)) = &mut self.context {
                    *used = post_tokens;
                }
                self.note(format!("Conversation compacted ({pre_tokens} → {post_tokens} tokens)"));
            }
            _ => {}
        }
    }

    /// The start banner: rein's version, the model, the folder, the mode.
    pub(crate) fn banner(&mut self, version: &str) {
        let dim = Style::default().add_modifier(Modifier::DIM);
        self.pending.push(Line::from(vec![
            Span::styled("✻ ", Style::default().fg(crate::theme::palette().brand)),
            Span::styled(format!("rein {version}"), Style::default().add_modifier(Modifier::BOLD)),
            Span::styled(format!(" · {} · {}", self.model, self.cwd.display()), dim),
        ]));
        let mode = crate::view::mode_label(self.policy.get().mode);
        let cycle = self.keybindings.key_name(crate::keybindings::Action::CycleMode, "shift+tab");
        let cycle = cycle.map(|k| format!(" · {k} changes the mode")).unwrap_or_default();
        self.pending.push(Line::from(Span::styled(format!("  {mode} · /help for commands{cycle}"), dim)));
    }

    /// Show an earlier conversation (a resumed session) in the scrollback.
    pub(crate) fn replay(&mut self, messages: &[rein_protocol::Message]) {
        for m in messages {
            for block in &m.content {
                match (m.role, block) {
                    // rein's notes to the model are not the person's words.
                    (rein_protocol::Role::User, ContentBlock::Text { text })
                        if text.starts_with("<system-reminder>") => {}
                    // Where the person interrupted.
                    (rein_protocol::Role::User, ContentBlock::Text { text })
                        if text.starts_with(rein_protocol::INTERRUPTED_RESPONSE.trim_end_matches(']')) =>
                    {
                        self.note("Interrupted");
                    }
                    (rein_protocol::Role::User, ContentBlock::Text { text }) => {
                        self.pending.push(Line::from(""));
                        let first = text.lines().next().unwrap_or_default().to_string();
                        self.pending.push(Line::from(Span::styled(
                            format!("> {first}"),
                            Style::default().fg(crate::theme::palette().muted),
                        )));
                    }
                    (rein_protocol::Role::Assistant, ContentBlock::Text { text }) => {
                        let mut stream = Stream::default();
                        stream.push(text, self.width);
                        self.pending.extend(stream.finish(self.width));
                    }
                    (_, ContentBlock::ToolUse(call)) => {
                        self.pending.push(Line::from(vec![
                            Span::styled("⏺ ", Style::default().fg(crate::theme::palette().success)),
                            Span::raw(summary::header(call, &self.cwd)),
                        ]));
                    }
                    _ => {}
                }
            }
        }
        if !messages.is_empty() {
            self.turns_taken = true;
            self.note(format!("Resumed a conversation of {} messages", messages.len()));
        }
    }

    /// `⏺ Tool(arg)` and its `⎿` summary.
    pub(crate) fn tool_lines(&mut self, call: &ToolUse, text: &str, is_error: bool) {
        self.tool_lines_timed(call, text, is_error, Ran::default());
    }

    /// `⏺ Tool(arg) (1.2s)` — the call's own time when it took a while — and its summary.
    pub(crate) fn tool_lines_timed(&mut self, call: &ToolUse, text: &str, is_error: bool, ran: Ran) {
        let shown = summary::summary(&relative_to(call, &self.cwd), text, is_error);
        self.tool_lines_shown(call, is_error, ran, shown, text.lines().take(LOG_TOOL_LINES));
    }

    /// A result the model got a preview of: the person sees the whole output, read back
    /// from the file it was saved to (the preview when the file cannot be read).
    fn saved_tool_lines(&mut self, call: &ToolUse, text: &str, saved: &std::path::Path, ran: Ran) {
        match crate::saved_output::read(saved, LOG_TOOL_LINES) {
            Some(whole) => {
                let shown = summary::folded_of(&whole.head, whole.lines);
                self.tool_lines_shown(call, false, ran, shown, whole.head.iter().map(String::as_str));
            }
            None => self.tool_lines_timed(call, text, false, ran),
        }
    }

    fn tool_lines_shown<'a>(
        &mut self,
        call: &ToolUse,
        is_error: bool,
        ran: Ran,
        shown: Vec<Line<'static>>,
        whole: impl Iterator<Item = &'a str>,
    ) {
        let colour = if is_error { crate::theme::palette().error } else { crate::theme::palette().success };
        let mut header = vec![
            Span::styled("⏺ ", Style::default().fg(colour)),
            Span::styled(summary::header(call, &self.cwd), Style::default().add_modifier(Modifier::BOLD)),
        ];
        let mut facts = Vec::new();
        if ran.uses > 0 {
            facts.push(if ran.uses == 1 { "1 tool use".to_string() } else { format!("{} tool uses", ran.uses) });
        }
        if let Some(t) = ran.took.filter(|t| *t >= Duration::from_secs(1)) {
            facts.push(format!("{:.1}s", t.as_secs_f64()));
        }
        if !facts.is_empty() {
            header
                .push(Span::styled(format!(" ({})", facts.join(" · ")), Style::default().add_modifier(Modifier::DIM)));
        }
        self.pending.push(Line::from(header));
        for (i, line) in shown.into_iter().enumerate() {
            let indent = if i == 0 { "  ⎿  " } else { "     " };
            let mut spans = vec![Span::raw(indent)];
            spans.extend(line.spans);
            self.pending.push_to(Line::from(spans), crate::out::Where::Screen);
        }
        // The whole output, for Ctrl+O (capped).
        for (i, l) in whole.enumerate() {
            let indent = if i == 0 { "  ⎿  " } else { "     " };
            self.pending.push_to(Line::from(format!("{indent}{l}")), crate::out::Where::Log);
        }
    }
}

/// `call` as the person reads it: a file inside the working directory named relative to
/// it (`Wrote 3 lines to src/a.rs`), as the header names it.
fn relative_to(call: &ToolUse, cwd: &std::path::Path) -> ToolUse {
    let mut shown = call.clone();
    for key in ["file_path", "notebook_path"] {
        let rel = shown
            .input
            .get(key)
            .and_then(serde_json::Value::as_str)
            .and_then(|p| std::path::Path::new(p).strip_prefix(cwd).ok().map(|r| r.display().to_string()));
        if let Some(rel) = rel.filter(|r| !r.is_empty()) {
            shown.input[key] = serde_json::Value::String(rel);
        }
    }
    shown
}
