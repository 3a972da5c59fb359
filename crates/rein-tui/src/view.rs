//! The live area, as lines: the text still streaming, the calls running, the spinner,
//! queued messages, then the permission dialog — or the input box with its completion
//! menu — and the footer (mode, model, context used, hints). It is as tall as what it
//! shows, up to the window: a dialog taller than the window scrolls its subject with its
//! position shown, and its question and every option always show. Everything above it
//! is scrollback, written once.

use ratatui::Frame;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use rein_policy::PermissionMode;

use crate::app::App;
use crate::keybindings::Action;
use crate::{summary, wrap};

const GLYPHS: &[&str] = &["·", "✢", "✳", "✶", "✻", "✽", "✻", "✶", "✳", "✢"];

/// What the live area shows: its lines (each at most the width) and where the input
/// box's cursor is (column, row).
pub(crate) struct Live {
    pub lines: Vec<Line<'static>>,
    pub cursor: Option<(u16, u16)>,
}

fn dim() -> Style {
    Style::default().add_modifier(Modifier::DIM)
}

/// `1.2k` for token counts.
pub(crate) fn tokens(n: u64) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 10_000 => format!("{}k", (n + 500) / 1000),
        n if n >= 1000 => format!("{:.1}k", n as f64 / 1000.0),
        n => n.to_string(),
    }
}

/// A mode as the interface names it everywhere (the footer, the banner, `/status`).
pub(crate) fn mode_label(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::Default => "manual mode",
        PermissionMode::AcceptEdits => "accept edits",
        PermissionMode::Plan => "plan mode",
        PermissionMode::BypassPermissions => "bypass permissions",
        PermissionMode::DontAsk => "don't ask",
        PermissionMode::Auto => "auto mode",
    }
}

/// The calls of an agent working inside a running call shown under it.
const AGENT_STEPS_SHOWN: usize = 3;

/// The lines above the dialog or input box.
fn activity(app: &mut App, width: usize, rows: usize) -> Vec<Line<'static>> {
    let mut out = app.stream.pending(width, rows);
    for r in &app.running {
        let line = match r.took {
            Some(took) => Line::from(vec![
                Span::styled("⏺ ", Style::default().fg(crate::theme::palette().success)),
                Span::raw(summary::header(&r.call, &app.cwd)),
                Span::styled(format!(" (done in {:.1}s)", took.as_secs_f64()), dim()),
            ]),
            // Its clock starts when it may run: while a question waits, it says so.
            None if app.modals.asking() => Line::from(vec![
                Span::styled("⏺ ", Style::default().fg(crate::theme::palette().warning)),
                Span::raw(summary::header(&r.call, &app.cwd)),
                Span::styled(" (waiting for you)", dim()),
            ]),
            None => Line::from(vec![
                Span::styled("⏺ ", Style::default().fg(crate::theme::palette().warning)),
                Span::raw(summary::header(&r.call, &app.cwd)),
                Span::styled(format!(" ({}s)", r.since.elapsed().as_secs()), dim()),
            ]),
        };
        out.extend(wrap::wrap_indent(&line, width, 2, None));
        // An agent working inside the call: its last calls, and how many came before.
        let shown = r.steps.len().saturating_sub(AGENT_STEPS_SHOWN);
        if shown > 0 {
            out.push(Line::from(Span::styled(format!("  ⎿  +{shown} earlier tool uses"), dim())));
        }
        for (i, step) in r.steps[shown..].iter().enumerate() {
            let gutter = if i == 0 && shown == 0 { "  ⎿  " } else { "     " };
            out.push(Line::from(Span::styled(
                summary::one_line(&format!("{gutter}{step}"), width.saturating_sub(1)),
                dim(),
            )));
        }
    }
    if app.busy.is_some() && app.modals.asking() {
        out.push(Line::from(Span::styled(
            "⏸ Waiting for your answer",
            Style::default().fg(crate::theme::palette().warning),
        )));
    } else if let Some(b) = &app.busy {
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
            Style::default().fg(crate::theme::palette().brand),
        )));
    }
    // The task list while the model works through it (Ctrl+T hides it).
    if app.show_todos && app.busy.is_some() && app.todos.iter().any(|(_, s)| s != "completed") {
        for (i, (content, status)) in app.todos.iter().enumerate() {
            let mut spans = vec![Span::raw(if i == 0 { "  ⎿  " } else { "     " })];
            spans.extend(summary::todo_line(content, status).spans);
            out.extend(wrap::wrap(&Line::from(spans), width));
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

/// The footer: a configured status line's rows, then the mode, the model, how much of
/// the context is used, and what the keys do now.
fn footer(app: &App, width: usize) -> Vec<Line<'static>> {
    let mut rows = app.status_line.as_ref().map(|s| s.rows(width.saturating_sub(1))).unwrap_or_default();
    rows.push(footer_line(app, width));
    rows
}

fn footer_line(app: &App, width: usize) -> Line<'static> {
    if let Some((hint, at)) = &app.hint
        && at.elapsed().as_secs() < 2
    {
        return Line::from(Span::styled(summary::one_line(hint, width.saturating_sub(1)), dim()));
    }
    let mode = app.policy.get().mode;
    let glyph = match mode {
        PermissionMode::Default | PermissionMode::Plan => "⏸",
        _ => "⏵⏵",
    };
    let mode = format!("{glyph} {} on", mode_label(mode));
    let vim = match app.vim.as_ref().map(|v| v.mode) {
        Some(crate::vim::Mode::Insert) => "-- INSERT -- · ",
        Some(crate::vim::Mode::Normal) => "-- NORMAL -- · ",
        None => "",
    };
    let cycle = app.keybindings.key_name(Action::CycleMode, "shift+tab");
    let cycle = cycle.map(|k| format!(" ({k} to cycle)")).unwrap_or_default();
    let mut text = format!("{vim}{mode}{cycle} · ");
    // A background session (`rein --bg`) seen through an attached terminal.
    if app.background_session {
        text.push_str("background session: ctrl+z detaches · ");
    }
    // Commands that go on in the background, while they run (before what may be cut).
    let background = app.jobs.as_ref().map_or(0, |j| j.list().iter().filter(|j| j.running).count());
    if background > 0 {
        text.push_str(&format!("{background} in background (/tasks) · "));
    }
    text.push_str(&app.model);
    if let Some((used, window, _)) = app.context
        && window > 0
    {
        let pct = used.saturating_mul(100) / window;
        text.push_str(&format!(" · {pct}% context used ({}/{})", tokens(used), tokens(window)));
    }
    if app.busy.is_some() && !app.modals.asking() {
        text.push_str(" · esc to interrupt");
    }
    Line::from(Span::styled(summary::one_line(&text, width.saturating_sub(1)), dim()))
}

/// Build the live area for a window `width` wide and `rows` tall.
pub(crate) fn live(app: &mut App, width: u16, rows: u16) -> Live {
    let menu = app.menu();
    let width = width.max(8) as usize;
    let rows = rows.max(3) as usize;
    let top = activity(app, width, rows);
    let foot = footer(app, width);
    let rule = Line::from(Span::styled("─".repeat(width), dim()));
    let place = app.modals.top_place();
    // A view in place of the input box gets the rows the footer leaves (and the rules
    // around it, when it is not a question); one above the input box, all but one.
    let reserve = match place {
        Some(crate::modal::Place::Input) if app.modals.asking() => foot.len(),
        Some(crate::modal::Place::Input) => foot.len() + 2,
        _ => 1,
    };
    let modal = app.modal_lines(width, rows.saturating_sub(reserve).max(1));
    if let (Some(crate::modal::Place::Input), Some(crate::modal::Drawn { lines, cursor })) = (place, &modal) {
        // A dialog or the search line in place of the input box.
        let (middle, bottom) = if app.modals.asking() {
            (lines.clone(), foot)
        } else {
            let mut middle = vec![rule.clone()];
            middle.extend(lines.iter().cloned());
            let mut bottom = vec![rule];
            bottom.extend(foot);
            (middle, bottom)
        };
        let cursor = cursor.map(|(x, y)| (x, y + usize::from(!app.modals.asking())));
        return stack(top, middle, bottom, rows, cursor);
    }
    let mut middle = modal.map(|d| d.lines).unwrap_or_default();
    middle.push(rule.clone());
    let (input, at) = input_rows(app, width);
    let cursor = Some((at.0, middle.len() + at.1));
    middle.extend(input);
    let mut bottom = vec![rule];
    if !app.modals.is_open() {
        bottom.extend(menu.lines(width, rows));
    }
    bottom.extend(foot);
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

/// The input box's rows (`❯ ` then the text, wrapped at word boundaries) and the
/// cursor in them.
fn input_rows(app: &App, width: usize) -> (Vec<Line<'static>>, (usize, usize)) {
    let text = app.composer.text();
    let at = app.composer.cursor_byte();
    let ranges = input_ranges(text, width.saturating_sub(2).max(1));
    let row = ranges.iter().rposition(|(start, _)| *start <= at).unwrap_or(0);
    let col = ranges.get(row).map_or(0, |(start, _)| {
        unicode_width::UnicodeWidthStr::width(text.get(*start..at.max(*start)).unwrap_or_default())
    });
    let lines = ranges
        .iter()
        .enumerate()
        .map(|(i, (s, e))| Line::from(format!("{}{}", if i == 0 { "❯ " } else { "  " }, &text[*s..*e])))
        .collect();
    (lines, (2 + col, row))
}

/// Byte ranges of `text`'s rows at `room` columns: each line broken after its last
/// space that fits, a word longer than a row cut.
fn input_ranges(text: &str, room: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut base = 0;
    for line in text.split('\n') {
        let (mut start, mut used, mut space) = (0, 0, None);
        for (i, c) in line.char_indices() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if c == ' ' && used + w > room {
                // A space at the edge ends the row and is not carried to the next.
                out.push((base + start, base + i));
                (start, used, space) = (i + 1, 0, None);
                continue;
            }
            if used + w > room && i > start {
                let cut = space.filter(|s| *s > start).unwrap_or(i);
                out.push((base + start, base + cut));
                start = cut;
                used = unicode_width::UnicodeWidthStr::width(&line[start..i]);
                space = None;
            }
            used += w;
            if c == ' ' {
                space = Some(i + 1);
            }
        }
        out.push((base + start, base + line.len()));
        base += line.len() + 1;
    }
    out
}

/// Draw `live` into the frame, the input box's cursor as a reversed cell.
pub(crate) fn render(live: Live, frame: &mut Frame<'_>) {
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
pub(crate) fn draw(app: &mut App, frame: &mut Frame<'_>) {
    let area = frame.area();
    let live = live(app, area.width, area.height);
    render(live, frame);
}
