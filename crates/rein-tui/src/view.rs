//! The live area, as lines: the text still streaming, the calls running, the spinner,
//! queued messages, then the permission dialog — or the input box with its completion
//! menu — and the footer (mode, model, context used, hints). It is as tall as what it
//! shows, up to the window: a dialog taller than the window scrolls its subject with its
//! position shown, and its question and every option always show. Everything above it
//! is scrollback, written once.

use ratatui::Frame;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use rein_policy::PermissionMode;

use crate::app::App;
use crate::{dialog, summary, wrap};

const GLYPHS: &[&str] = &["·", "✢", "✳", "✶", "✻", "✽", "✻", "✶", "✳", "✢"];

/// What the live area shows: its lines (each at most the width) and where the input
/// box's cursor is (column, row).
pub struct Live {
    pub lines: Vec<Line<'static>>,
    pub cursor: Option<(u16, u16)>,
}

fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}

/// `1.2k` for token counts.
pub fn tokens(n: u64) -> String {
    if n >= 1000 { format!("{:.1}k", n as f64 / 1000.0) } else { n.to_string() }
}

/// The lines above the dialog or input box.
fn activity(app: &App, width: usize) -> Vec<Line<'static>> {
    let mut out = app.stream.pending(width);
    for (call, since, done) in &app.running {
        let line = match done {
            Some(took) => Line::from(vec![
                Span::styled("⏺ ", Style::default().fg(Color::Green)),
                Span::raw(summary::header(call, &app.cwd)),
                Span::styled(format!(" (done in {:.1}s)", took.as_secs_f64()), dim()),
            ]),
            None => Line::from(vec![
                Span::styled("⏺ ", Style::default().fg(Color::Yellow)),
                Span::raw(summary::header(call, &app.cwd)),
                Span::styled(format!(" ({}s)", since.elapsed().as_secs()), dim()),
            ]),
        };
        out.extend(wrap::wrap_indent(&line, width, 2, None));
    }
    if let Some(b) = &app.busy {
        let elapsed = b.since.elapsed();
        let glyph = GLYPHS[(elapsed.as_millis() / 120) as usize % GLYPHS.len()];
        let secs = elapsed.as_secs();
        let time = if secs >= 60 { format!("{}m {}s", secs / 60, secs % 60) } else { format!("{secs}s") };
        let what = if app.thinking { " · thinking" } else { "" };
        out.push(Line::from(Span::styled(
            summary::one_line(
                &format!("{glyph} Working… ({time} · ↓ {} tokens{what})", tokens(app.turn_tokens)),
                width,
            ),
            Style::default().fg(Color::Magenta),
        )));
    }
    // The task list while the model works through it (Ctrl+T hides it).
    if app.show_todos && app.busy.is_some() && app.todos.iter().any(|(_, s)| s != "completed") {
        for (i, (content, status)) in app.todos.iter().enumerate() {
            let lead = if i == 0 { "  ⎿  " } else { "     " };
            let (mark, style) = match status.as_str() {
                "completed" => ("☒ ", dim().add_modifier(Modifier::CROSSED_OUT)),
                "in_progress" => ("☐ ", Style::default().add_modifier(Modifier::BOLD)),
                _ => ("☐ ", Style::default()),
            };
            let line = Line::from(vec![Span::raw(lead), Span::styled(format!("{mark}{content}"), style)]);
            out.extend(wrap::wrap(&line, width));
        }
    }
    for q in &app.queue {
        let line = Line::from(vec![Span::styled("❯ ", dim()), Span::styled(q.clone(), dim())]);
        out.extend(wrap::wrap_indent(&line, width, 2, None));
    }
    if !app.queue.is_empty() {
        out.push(Line::from(Span::styled("  (queued: sent when rein is done)", dim())));
    }
    out
}

/// The footer: the mode, the model, how much of the context is used, and what the keys
/// do now.
fn footer(app: &App, width: usize) -> Line<'static> {
    if let Some((hint, at)) = &app.hint
        && at.elapsed().as_secs() < 2
    {
        return Line::from(Span::styled(summary::one_line(hint, width.saturating_sub(1)), dim()));
    }
    let mode = match app.policy.get().mode {
        PermissionMode::Default => "⏸ manual mode on",
        PermissionMode::AcceptEdits => "⏵⏵ accept edits on",
        PermissionMode::Plan => "⏸ plan mode on",
        PermissionMode::BypassPermissions => "⏵⏵ bypass permissions on",
        PermissionMode::DontAsk => "⏵⏵ don't ask on",
        PermissionMode::Auto => "⏵⏵ auto mode on",
    };
    // A configured status line replaces the hints.
    if let Some(line) = app.status_line.as_ref().and_then(|s| s.text()) {
        return Line::from(vec![Span::raw(line), Span::styled(format!("  {mode}"), dim())]);
    }
    let mut text = format!("{mode} (shift+tab to cycle) · {}", app.model);
    if let Some((used, window, _)) = app.context
        && window > 0
    {
        let pct = used.saturating_mul(100) / window;
        text.push_str(&format!(" · {}/{} context used ({pct}%)", tokens(used), tokens(window)));
    }
    if app.busy.is_some() {
        text.push_str(" · esc to interrupt");
    }
    Line::from(Span::styled(summary::one_line(&text, width.saturating_sub(1)), dim()))
}

/// Build the live area for a window `width` wide and `rows` tall.
pub fn live(app: &mut App, width: u16, rows: u16) -> Live {
    let menu = app.menu();
    let width = width.max(8) as usize;
    let rows = rows.max(3) as usize;
    let top = activity(app, width);
    let foot = footer(app, width);
    if app.question.is_some() {
        let body = dialog_box(app, width, rows.saturating_sub(1));
        return stack(top, body, vec![foot], rows, None);
    }
    let rule = Line::from(Span::styled("─".repeat(width), dim()));
    let mut middle = pickers(app, width);
    middle.push(rule.clone());
    let mut cursor = None;
    if let Some(search) = app.search_line() {
        middle.extend(wrap::wrap(&Line::from(search), width));
    } else {
        let (input, at) = input_rows(app, width);
        cursor = Some((at.0, middle.len() + at.1));
        middle.extend(input);
    }
    let mut bottom = vec![rule];
    bottom.extend(menu.lines(width));
    bottom.push(foot);
    stack(top, middle, bottom, rows, cursor)
}

/// Put the parts together within `rows`: the middle and bottom whole, the top cut from
/// above when there is no room. `cursor` is a position within `middle`.
fn stack(
    top: Vec<Line<'static>>,
    middle: Vec<Line<'static>>,
    bottom: Vec<Line<'static>>,
    rows: usize,
    cursor: Option<(usize, usize)>,
) -> Live {
    let room = rows.saturating_sub(middle.len() + bottom.len());
    let skip = top.len().saturating_sub(room);
    let kept = top.len() - skip;
    let mut lines: Vec<Line<'static>> = top.into_iter().skip(skip).collect();
    lines.extend(middle);
    lines.extend(bottom);
    // Still too tall (a tiny window): the bottom rows win.
    let cut = lines.len().saturating_sub(rows);
    let lines: Vec<Line<'static>> = lines.into_iter().skip(cut).collect();
    let cursor =
        cursor.map(|(x, y)| (x, kept + y)).filter(|(_, y)| *y >= cut).map(|(x, y)| (x as u16, (y - cut) as u16));
    Live { lines, cursor }
}

/// The `/resume` list, the Esc Esc picker, the rewind question.
fn pickers(app: &App, width: usize) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let pick = |i: usize, selected: usize, text: String| {
        let marker = if i == selected { "❯ " } else { "  " };
        let style = if i == selected { Style::default().fg(Color::Cyan) } else { Style::default() };
        Line::from(Span::styled(summary::one_line(&format!("{marker}{}. {text}", i + 1), width), style))
    };
    if let Some((list, selected)) = &app.sessions {
        lines.push(Line::from(Span::styled("Resume which session? (enter, esc)", Style::default().fg(Color::Yellow))));
        let start = (*selected + 1).saturating_sub(10);
        for (i, (_, label)) in list.iter().enumerate().skip(start).take(10) {
            lines.push(pick(i, *selected, label.clone()));
        }
    }
    if let Some((list, selected)) = &app.picker {
        let title = "Go back to before which prompt? (enter: code and conversation · c: conversation · f: code · esc)";
        lines.extend(wrap::wrap(&Line::from(Span::styled(title, Style::default().fg(Color::Yellow))), width));
        let start = list.len().saturating_sub(8).min(*selected);
        for (i, p) in list.iter().enumerate().skip(start).take(8) {
            lines.push(pick(i, *selected, p.clone()));
        }
    }
    if let Some(menu) = &app.rewind {
        lines.extend(wrap::wrap_all(menu.lines(width), width));
    }
    lines
}

/// The input box's rows (`❯ ` then the text, cut at the width) and the cursor in them.
fn input_rows(app: &App, width: usize) -> (Vec<Line<'static>>, (usize, usize)) {
    let text = app.composer.text();
    let at = app.composer.cursor_byte();
    let room = width.saturating_sub(2).max(1);
    let mut rows: Vec<String> = vec![String::new()];
    let mut col = 0;
    let mut cursor = (2, 0);
    for (i, c) in text.char_indices() {
        if i == at {
            cursor = (2 + col, rows.len() - 1);
        }
        if c == '\n' {
            rows.push(String::new());
            col = 0;
            continue;
        }
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if col + w > room {
            rows.push(String::new());
            col = 0;
        }
        if let Some(r) = rows.last_mut() {
            r.push(c);
        }
        col += w;
    }
    if at >= text.len() {
        if col >= room {
            rows.push(String::new());
            col = 0;
        }
        cursor = (2 + col, rows.len() - 1);
    }
    let lines = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| Line::from(format!("{}{r}", if i == 0 { "❯ " } else { "  " })))
        .collect();
    (lines, cursor)
}

/// The permission dialog in its box: the title, the subject (scrolled when taller than
/// `rows` allows, with its position), the reason, the question and every option.
fn dialog_box(app: &mut App, width: usize, rows: usize) -> Vec<Line<'static>> {
    let offer_auto = app.offer_auto();
    let Some((q, selected)) = &app.question else { return Vec::new() };
    let inner = width.saturating_sub(4).max(4);
    let project = app.project_root.display().to_string();
    let parts = dialog::parts(q, &project, *selected, inner, offer_auto);
    let note = match &app.comment {
        Some(c) => Line::from(Span::styled(format!("✎ {c}▏"), Style::default().fg(Color::Cyan))),
        None => Line::from(Span::styled("tab: add a note for rein", dim())),
    };
    let mut fixed = parts.fixed;
    let mut reason = parts.reason;
    // Borders, title, the fixed part: the rest is for the subject. In a short window the
    // note's hint and then the reason give way, never the question or an option.
    let note = wrap::wrap(&note, inner);
    let with_note = 3 + fixed.len() + reason.len() + note.len() + 2 <= rows;
    if with_note {
        fixed.extend(note);
    }
    if 3 + fixed.len() + reason.len() + 2 > rows {
        reason.clear();
    }
    let mut below = reason;
    below.extend(fixed);
    let fixed = below;
    let room = rows.saturating_sub(3 + fixed.len());
    let total = parts.subject.len();
    let mut body = vec![parts.title];
    if total <= room {
        app.dialog_scroll = 0;
        body.extend(parts.subject);
    } else {
        let window = room.saturating_sub(1).max(1);
        let max = total - window;
        app.dialog_scroll = app.dialog_scroll.min(max);
        let from = app.dialog_scroll;
        body.extend(parts.subject.into_iter().skip(from).take(window));
        let more = format!(
            "{} lines {}–{} of {} · pgup/pgdn",
            if from < max { "↓" } else { "↑" },
            from + 1,
            from + window,
            total
        );
        body.push(Line::from(Span::styled(summary::one_line(&more, inner - 1), Style::default().fg(Color::Yellow))));
    }
    body.extend(fixed);
    let border = Style::default().fg(Color::Yellow);
    let mut out = vec![Line::from(Span::styled(format!("╭{}╮", "─".repeat(width.saturating_sub(2))), border))];
    for line in body {
        let gap = inner.saturating_sub(line.width());
        let style = line.style;
        let mut spans = vec![Span::styled("│ ", border)];
        spans.extend(line.spans.into_iter().map(|s| Span::styled(s.content, style.patch(s.style))));
        spans.push(Span::raw(" ".repeat(gap)));
        spans.push(Span::styled(" │", border));
        out.push(Line::from(spans));
    }
    out.push(Line::from(Span::styled(format!("╰{}╯", "─".repeat(width.saturating_sub(2))), border)));
    out
}

/// Draw `live` into the frame, the input box's cursor as a reversed cell.
pub fn render(live: Live, frame: &mut Frame<'_>) {
    let area = frame.area();
    frame.render_widget(Paragraph::new(live.lines), area);
    if let Some((x, y)) = live.cursor {
        let (x, y) = (area.x + x.min(area.width.saturating_sub(1)), area.y + y);
        if y < area.y + area.height {
            let cell = &mut frame.buffer_mut()[(x, y)];
            cell.set_style(Style::default().add_modifier(Modifier::REVERSED));
        }
    }
}

/// Draw the live area into a frame of its own size (tests).
#[cfg(test)]
pub fn draw(app: &mut App, frame: &mut Frame<'_>) {
    let area = frame.area();
    let live = live(app, area.width, area.height);
    render(live, frame);
}
