//! Drawing the live area: the line still streaming, the calls running, the spinner,
//! the permission dialog or the input box, and the footer (mode, hints). Everything
//! above it is scrollback, written once.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use rein_policy::PermissionMode;

use crate::app::App;
use crate::{dialog, summary};

const GLYPHS: &[&str] = &["·", "✢", "✳", "✶", "✻", "✽", "✻", "✶", "✳", "✢"];

/// The live area's lines above the input box.
fn live_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    if !app.stream.partial().is_empty() {
        out.push(Line::from(summary::one_line(&format!("  {}", app.stream.partial()), width)));
    }
    for (call, since) in &app.running {
        let secs = since.elapsed().as_secs();
        out.push(Line::from(vec![
            Span::styled("⏺ ", Style::default().fg(Color::Yellow)),
            Span::raw(summary::one_line(&summary::header(call, &app.cwd), width.saturating_sub(16))),
            Span::styled(format!(" ({secs}s)"), Style::default().add_modifier(Modifier::DIM)),
        ]));
    }
    if let Some(b) = &app.busy {
        let elapsed = b.since.elapsed();
        let glyph = GLYPHS[(elapsed.as_millis() / 120) as usize % GLYPHS.len()];
        let secs = elapsed.as_secs();
        let time = if secs >= 60 { format!("{}m {}s", secs / 60, secs % 60) } else { format!("{secs}s") };
        let tokens = if app.turn_tokens >= 1000 {
            format!("{:.1}k", app.turn_tokens as f64 / 1000.0)
        } else {
            app.turn_tokens.to_string()
        };
        let what = if app.thinking { " · thinking" } else { "" };
        out.push(Line::from(Span::styled(
            format!("{glyph} Working… ({time} · ↓ {tokens} tokens{what})"),
            Style::default().fg(Color::Magenta),
        )));
    }
    if !app.queue.is_empty() {
        out.push(Line::from(Span::styled(
            format!("  {} message(s) queued", app.queue.len()),
            Style::default().add_modifier(Modifier::DIM),
        )));
    }
    out
}

/// The footer: the mode, and what the keys do now.
fn footer(app: &App) -> Line<'static> {
    if let Some((hint, at)) = &app.hint
        && at.elapsed().as_secs() < 2
    {
        return Line::from(Span::styled(hint.clone(), Style::default().add_modifier(Modifier::DIM)));
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
        return Line::from(vec![
            Span::raw(line),
            Span::styled(format!("  {mode}"), Style::default().add_modifier(Modifier::DIM)),
        ]);
    }
    let mut text = format!("{mode} (shift+tab to cycle)");
    if let Some((used, _, at)) = app.context
        && at > 0
    {
        let left = 100u64.saturating_sub(used.saturating_mul(100) / at);
        text.push_str(&format!(" · {left}% until compaction"));
    }
    if app.busy.is_some() {
        text.push_str(" · esc to interrupt");
    }
    Line::from(Span::styled(text, Style::default().add_modifier(Modifier::DIM)))
}

/// Draw the live area into `area` (the inline viewport).
pub fn draw(app: &mut App, frame: &mut Frame<'_>) {
    let mentions = app.mention_candidates();
    draw_with(app, frame, &mentions);
}

fn draw_with(app: &App, frame: &mut Frame<'_>, mentions: &[String]) {
    let area = frame.area();
    let width = area.width as usize;
    let mut lines = live_lines(app, width);
    let mut cursor = None;
    if let Some((q, selected)) = &app.question {
        let project = app.project_root.display().to_string();
        let mut body = dialog::lines(q, &project, *selected, width.saturating_sub(4), app.offer_auto());
        match &app.comment {
            Some(c) => body.push(Line::from(Span::styled(format!("✎ {c}▏"), Style::default().fg(Color::Cyan)))),
            None => body.push(Line::from(Span::styled(
                "tab: add a note for rein",
                Style::default().add_modifier(Modifier::DIM),
            ))),
        }
        let top = lines.len() as u16;
        let height = (body.len() as u16 + 2).min(area.height.saturating_sub(top));
        let rect = Rect { x: area.x, y: area.y + top, width: area.width, height };
        let block = Block::default().borders(Borders::ALL).border_style(Style::default().fg(Color::Yellow));
        frame.render_widget(Paragraph::new(lines.clone()), Rect { height: top, ..area });
        frame.render_widget(Paragraph::new(body).block(block), rect);
        let below = Rect { x: area.x, y: rect.y + rect.height, width: area.width, height: 1 };
        if below.y < area.y + area.height {
            frame.render_widget(Paragraph::new(footer(app)), below);
        }
        return;
    }
    let rule = "─".repeat(width);
    if let Some((list, selected)) = &app.sessions {
        lines.push(Line::from(Span::styled("Resume which session? (enter, esc)", Style::default().fg(Color::Yellow))));
        for (i, (_, label)) in list.iter().enumerate().take(10) {
            let marker = if i == *selected { "❯ " } else { "  " };
            let style = if i == *selected { Style::default().fg(Color::Cyan) } else { Style::default() };
            lines.push(Line::from(Span::styled(
                summary::one_line(&format!("{marker}{}. {label}", i + 1), width),
                style,
            )));
        }
    }
    if let Some((list, selected)) = &app.picker {
        lines.push(Line::from(Span::styled(
            "Go back to before which prompt? (enter: code and conversation · c: conversation · f: code · esc)",
            Style::default().fg(Color::Yellow),
        )));
        let start = list.len().saturating_sub(8).min(*selected);
        for (i, p) in list.iter().enumerate().skip(start).take(8) {
            let marker = if i == *selected { "❯ " } else { "  " };
            let style = if i == *selected { Style::default().fg(Color::Cyan) } else { Style::default() };
            lines.push(Line::from(Span::styled(summary::one_line(&format!("{marker}{}. {p}", i + 1), width), style)));
        }
    }
    if let Some(menu) = &app.rewind {
        lines.extend(menu.lines(width));
    }
    lines.push(Line::from(Span::styled(rule.clone(), Style::default().add_modifier(Modifier::DIM))));
    let input_top = lines.len();
    if let Some(search) = app.search_line() {
        lines.push(Line::from(search));
        lines.push(Line::from(Span::styled(rule, Style::default().add_modifier(Modifier::DIM))));
        lines.push(footer(app));
        let skip = lines.len().saturating_sub(area.height as usize);
        frame.render_widget(Paragraph::new(lines.into_iter().skip(skip).collect::<Vec<_>>()), area);
        return;
    }
    for (i, l) in app.composer.text().split('\n').enumerate() {
        let prefix = if i == 0 { "❯ " } else { "  " };
        lines.push(Line::from(format!("{prefix}{l}")));
    }
    let (row, col) = app.composer.cursor();
    cursor = cursor.or(Some((col as u16 + 2, (input_top + row) as u16)));
    lines.push(Line::from(Span::styled(rule, Style::default().add_modifier(Modifier::DIM))));
    for m in mentions {
        lines.push(Line::from(Span::styled(format!("  @{m}"), Style::default().fg(Color::Cyan))));
    }
    lines.push(footer(app));
    // Keep the input box and footer in view when the live area is tall.
    let skip = lines.len().saturating_sub(area.height as usize);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(skip).collect();
    frame.render_widget(Paragraph::new(shown), area);
    if let Some((x, y)) = cursor
        && (y as usize) >= skip
    {
        frame.set_cursor_position((area.x + x.min(area.width.saturating_sub(1)), area.y + y - skip as u16));
    }
}
