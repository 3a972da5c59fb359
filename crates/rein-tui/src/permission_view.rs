//! The permission dialog as a view on the modal stack: its keys (numbers, arrows,
//! Enter, Esc, Tab for a note, Shift+Tab for all edits) and its box — the subject
//! scrolled when taller than the window, the question and every option always in view.
//!
//! A subject taller than its box reads like a page: ↓ scrolls it line by line and only
//! past its end moves the choice, ↑ moves the choice back and then scrolls up, PgUp/PgDn
//! go by what the box shows, and Enter turns the page until the last line has been on
//! screen — what was never shown cannot be approved by Enter. A reason too long to stay
//! in view follows the subject, where scrolling reaches it.

use std::time::Instant;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use rein_policy::{Change, Destination, ListKind, PermissionMode};
use rein_session::events::Answer;

use crate::app::App;
use crate::approver::Question;
use crate::modal::{Flow, Modal, Place};
use crate::user_dialog::{self, Step};
use crate::{dialog, summary, wrap};

pub(crate) struct PermissionView {
    /// The question, until it is answered.
    question: Option<Question>,
    selected: usize,
    /// How far the subject is scrolled, how many of its lines were last on screen (a
    /// page), how far it scrolls at most, and whether its last line has been shown.
    scroll: usize,
    page: usize,
    overflow: usize,
    seen_end: bool,
    /// Which of the model's questions that was (AskUserQuestion asks several).
    step: usize,
    /// A note for the model, typed after Tab.
    comment: Option<String>,
    /// The subject as last drawn, and the width it was wrapped to.
    subject: Option<(usize, Vec<Line<'static>>)>,
}

impl PermissionView {
    pub(crate) fn new(q: Question) -> Self {
        PermissionView {
            question: Some(q),
            selected: 0,
            scroll: 0,
            page: 10,
            overflow: 0,
            seen_end: false,
            step: 0,
            comment: None,
            subject: None,
        }
    }

    /// Send `answer`; a "No" without a note also stops the turn, as the option says.
    fn reply(&mut self, app: &mut App, answer: Answer) -> Flow {
        let Some(q) = self.question.take() else { return Flow::Close };
        // The call's clock starts when it may run, not while its question waited.
        if let Some(r) = app.running.iter_mut().find(|r| r.call.id == q.call.id) {
            r.since = Instant::now();
        }
        let stop = !answer.allow && answer.message.is_none() && !q.network && !user_dialog::is_user_tool(&q);
        let _ = q.reply.send(answer);
        if stop && let Some(b) = &app.busy {
            b.token.cancel();
        }
        Flow::Close
    }
}

impl Modal<App> for PermissionView {
    fn place(&self) -> Place {
        Place::Input
    }

    fn is_question(&self) -> bool {
        true
    }

    fn takes_text(&self) -> bool {
        self.comment.is_some()
    }

    fn key(&mut self, key: KeyEvent, app: &mut App) -> Flow {
        // Tab opens a note for the model; while it is open, keys type into it.
        if let Some(comment) = &mut self.comment {
            match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    comment.push(c);
                    return Flow::Keep;
                }
                KeyCode::Backspace => {
                    comment.pop();
                    return Flow::Keep;
                }
                _ => {}
            }
        } else if key.code == KeyCode::Tab {
            self.comment = Some(String::new());
            return Flow::Keep;
        }
        let offer_auto = app.offer_auto();
        let project = app.project_root.display().to_string();
        let Some(q) = self.question.as_mut() else { return Flow::Close };
        // Enter before the subject's end was shown turns the page instead.
        if key.code == KeyCode::Enter && !self.seen_end {
            self.scroll += self.page.saturating_sub(1).max(1);
            return Flow::Keep;
        }
        let forced = match user_dialog::ask_user_key(q, &mut self.selected, key) {
            Some(Step::Handled) => return Flow::Keep,
            Some(Step::Done) => Some('\n'),
            None => None,
        };
        let options = dialog::options(q, &project, offer_auto);
        let chosen = match key.code {
            _ if forced.is_some() => forced,
            // A page is what the window shows of the subject, less a line kept for context,
            // so that every line can be brought into view at any size.
            KeyCode::PageUp => {
                self.scroll = self.scroll.saturating_sub(self.page.saturating_sub(1).max(1));
                None
            }
            KeyCode::PageDown => {
                self.scroll += self.page.saturating_sub(1).max(1);
                None
            }
            KeyCode::Up if self.selected > 0 => {
                self.selected -= 1;
                None
            }
            KeyCode::Up => {
                self.scroll = self.scroll.saturating_sub(1);
                None
            }
            KeyCode::Down if self.scroll < self.overflow => {
                self.scroll += 1;
                None
            }
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(options.len().saturating_sub(1));
                None
            }
            KeyCode::Home => {
                self.scroll = 0;
                None
            }
            KeyCode::End => {
                self.scroll = self.overflow;
                None
            }
            KeyCode::Enter => options.get(self.selected).map(|o| o.0),
            // Letters answer nothing (`y` typed on would approve): numbers, Enter and Esc do.
            KeyCode::Esc => Some('3'),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => Some('3'),
            KeyCode::BackTab if q.edits => Some('2'),
            KeyCode::Char(c) if options.iter().any(|o| o.0 == c) => Some(c),
            _ => None,
        };
        let Some(choice) = chosen else { return Flow::Keep };
        if user_dialog::is_user_tool(q) {
            // Esc and Ctrl+C leave the model's question unanswered (never its third option).
            let ctrl_c = key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
            if (key.code == KeyCode::Esc || ctrl_c) && q.call.name == "AskUserQuestion" {
                let no = Answer { message: Some("The user chose not to answer.".into()), ..Answer::no() };
                return self.reply(app, no);
            }
            let typed = self.comment.take();
            return match user_dialog::answer(q, choice, typed, &app.policy) {
                Some(answer) => self.reply(app, answer),
                None => {
                    self.selected = 0;
                    Flow::Keep
                }
            };
        }
        let message = self.comment.take().filter(|c| !c.trim().is_empty());
        let (edits, remember) = (q.edits, q.remember.clone());
        let answer = match choice {
            '1' => Answer::yes(),
            '2' if edits => {
                let _ = app.apply(Change::SetMode(PermissionMode::AcceptEdits), Destination::Session);
                app.note("Edits are allowed for the rest of this session");
                Answer::yes()
            }
            '2' => {
                match app.apply(Change::AddRules(ListKind::Allow, remember.clone()), Destination::LocalSettings) {
                    Ok(Some(path)) => app.note(format!("Remembered {} in {}", remember.join(", "), path.display())),
                    Ok(None) => {}
                    Err(e) => app.note(format!("Could not save the rule: {e}")),
                }
                Answer::yes()
            }
            '4' => {
                let _ = app.apply(Change::SetMode(PermissionMode::Auto), Destination::Session);
                app.note("Auto mode: a judge model decides the calls the rules leave open (shift+tab to leave)");
                Answer::yes()
            }
            _ => Answer::no(),
        };
        self.reply(app, Answer { message, ..answer })
    }

    fn lines(&mut self, app: &App, width: usize, rows: usize) -> Vec<Line<'static>> {
        let Some(q) = &self.question else { return Vec::new() };
        if q.progress.len() != self.step {
            (self.step, self.scroll, self.seen_end) = (q.progress.len(), 0, false);
        }
        let inner = width.saturating_sub(4).max(4);
        let project = app.project_root.display().to_string();
        if self.subject.as_ref().is_none_or(|(w, _)| *w != inner) {
            let lines = dialog::subject_lines(q, inner);
            // Re-wrapped at another width: the same part of it stays in view.
            if let Some((_, old)) = &self.subject
                && !old.is_empty()
            {
                self.scroll = self.scroll * lines.len() / old.len();
            }
            self.subject = Some((inner, lines));
        }
        let subject = self.subject.as_ref().map(|(_, lines)| lines.clone()).unwrap_or_default();
        let parts = dialog::parts(q, &project, self.selected, inner, app.offer_auto(), subject);
        let dim = Style::default().add_modifier(Modifier::DIM);
        // The borders (the title is in the top one), the fixed part, and the rest for the
        // subject — at least a line of it and its position. The question and the options
        // never give way: in a short window each option takes one row.
        const FRAME: usize = 2;
        // The note being typed and what was held back always show; the hint about notes
        // only where the subject has all the room it needs.
        let (note, always) = match (&self.comment, app.modals.typed_on()) {
            // The note goes with the option Enter takes: say which, so that a note meant
            // for a "no" is not sent with a "yes".
            (Some(c), _) => {
                let takes = dialog::options(q, &project, app.offer_auto())
                    .get(self.selected)
                    .map(|(key, label)| format!("  (enter: {key}. {label})"))
                    .unwrap_or_default();
                (
                    Line::from(Span::styled(
                        format!("✎ {c}▏{takes}"),
                        Style::default().fg(crate::theme::palette().accent),
                    )),
                    true,
                )
            }
            (None, Some(hint)) => {
                (Line::from(Span::styled(hint, Style::default().fg(crate::theme::palette().warning))), true)
            }
            (None, None) => (Line::from(Span::styled("tab: add a note for rein", dim)), false),
        };
        let note = wrap::wrap(&note, inner);
        let kept = if always { note.len() } else { 0 };
        let tight = FRAME + parts.fixed.len() + kept + 2 > rows;
        let mut fixed = if tight { parts.compact } else { parts.fixed };
        let mut subject = parts.subject;
        // A short reason stays in view; a long one, or one without room, follows the
        // subject, where scrolling reaches it.
        let reason = parts.reason;
        if !tight && reason.len() <= 2 && FRAME + fixed.len() + kept + reason.len() + 2 <= rows {
            fixed.splice(0..0, reason);
        } else if !reason.is_empty() {
            subject.push(Line::default());
            subject.extend(reason);
        }
        if always || FRAME + fixed.len() + note.len() + subject.len() <= rows {
            fixed.extend(note);
        }
        let room = rows.saturating_sub(FRAME + fixed.len());
        let total = subject.len();
        let mut body = Vec::new();
        if total <= room {
            (self.scroll, self.overflow, self.seen_end) = (0, 0, true);
            body.extend(subject);
        } else {
            let window = room.saturating_sub(1).max(1);
            self.page = window;
            self.overflow = total.saturating_sub(window);
            self.scroll = self.scroll.min(self.overflow);
            let from = self.scroll;
            let to = (from + window).min(total);
            self.seen_end |= to == total;
            body.extend(subject.into_iter().skip(from).take(window));
            let arrows = match (from > 0, from < self.overflow) {
                (true, true) => "↑↓",
                (false, _) => "↓",
                (true, false) => "↑",
            };
            let keys = match (from < self.overflow, self.seen_end) {
                (true, false) => "enter: more",
                (true, true) => "↑↓ pgup pgdn",
                (false, _) => "↑ pgup",
            };
            let more = format!("{arrows} lines {}–{to} of {total} · {keys}", from + 1);
            body.push(Line::from(Span::styled(
                summary::one_line(&more, inner - 1),
                Style::default().fg(crate::theme::palette().warning),
            )));
        }
        body.extend(fixed);
        boxed(parts.title, body, width, inner)
    }
}

/// Lines in a yellow rounded box `width` wide, `title` in its top border.
fn boxed(title: Line<'static>, body: Vec<Line<'static>>, width: usize, inner: usize) -> Vec<Line<'static>> {
    let border = Style::default().fg(crate::theme::palette().warning);
    let rule = "─".repeat(width.saturating_sub(2));
    let title = wrap::clip(&title, width.saturating_sub(6));
    let rest = width.saturating_sub(5 + title.width());
    let mut top = vec![Span::styled("╭─ ", border)];
    top.extend(title.spans);
    top.push(Span::styled(format!(" {}╮", "─".repeat(rest)), border));
    let mut out = vec![Line::from(top)];
    for line in body {
        let gap = inner.saturating_sub(line.width());
        let style = line.style;
        let mut spans = vec![Span::styled("│ ", border)];
        spans.extend(line.spans.into_iter().map(|s| Span::styled(s.content, style.patch(s.style))));
        spans.push(Span::raw(" ".repeat(gap)));
        spans.push(Span::styled(" │", border));
        out.push(Line::from(spans));
    }
    out.push(Line::from(Span::styled(format!("╰{rule}╯"), border)));
    out
}
