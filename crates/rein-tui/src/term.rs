//! The terminal: raw mode, bracketed paste, an inline viewport at the bottom for the
//! live area, finished lines written above it into the terminal's own scrollback once,
//! each frame one synchronized update at most 60 times a second; restored on exit and
//! on panic.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use futures::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{DisableBracketedPaste, EnableBracketedPaste, Event, EventStream, KeyEventKind};
use ratatui::crossterm::terminal::{self, BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::crossterm::{execute, queue};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Terminal, TerminalOptions, Viewport};
use tokio::sync::mpsc;
use unicode_width::UnicodeWidthStr;

use crate::app::App;
use crate::approver::Question;
use crate::out::Where;
use crate::view;
use crate::worker::FromEngine;

/// Rows of the live area (input box, spinner, dialog).
const LIVE_ROWS: u16 = 14;
/// Lines the Ctrl+O view keeps.
const LOG_LINES: usize = 20_000;
/// At most one frame in this time (60 fps) for streaming and ticks…
const FRAME: Duration = Duration::from_millis(16);
/// …and this for what the person types, whose echo is worth the extra frames.
const KEY_FRAME: Duration = Duration::from_millis(4);

type Term = Terminal<CrosstermBackend<io::Stdout>>;

/// Put the terminal back as it was.
fn restore() {
    let _ = execute!(io::stdout(), DisableBracketedPaste);
    let _ = terminal::disable_raw_mode();
}

/// Run the UI until the person exits; the session to resume instead, if they asked.
pub async fn run(
    mut app: App,
    mut engine: mpsc::UnboundedReceiver<FromEngine>,
    mut questions: mpsc::UnboundedReceiver<Question>,
) -> io::Result<Option<String>> {
    terminal::enable_raw_mode()?;
    execute!(io::stdout(), EnableBracketedPaste)?;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        hook(info);
    }));
    let rows = terminal::size().map(|(_, h)| h).unwrap_or(24);
    let options = TerminalOptions { viewport: Viewport::Inline(LIVE_ROWS.min(rows.saturating_sub(1)).max(3)) };
    let mut term = Terminal::with_options(CrosstermBackend::new(io::stdout()), options)?;
    let result = event_loop(&mut app, &mut term, &mut engine, &mut questions).await;
    // Leave the finished lines, clear the live area, and put the cursor below them.
    let _ = flush_history(&mut app, &mut term);
    let _ = term.clear();
    restore();
    println!();
    result.map(|()| app.resume_to.take())
}

async fn event_loop(
    app: &mut App,
    term: &mut Term,
    engine: &mut mpsc::UnboundedReceiver<FromEngine>,
    questions: &mut mpsc::UnboundedReceiver<Question>,
) -> io::Result<()> {
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let mut last_draw = Instant::now() - FRAME;
    let mut dirty = true;
    let mut typed = false;
    loop {
        app.tick_status_line();
        let gap = if typed { KEY_FRAME } else { FRAME };
        if dirty && last_draw.elapsed() >= gap {
            draw(app, term)?;
            last_draw = Instant::now();
            dirty = false;
            typed = false;
        }
        if app.quit {
            return Ok(());
        }
        if let Some(path) = app.edit.take() {
            flush_history(app, term)?;
            edit(&path).await?;
            term.clear()?;
            dirty = true;
            continue;
        }
        if std::mem::take(&mut app.open_log) {
            flush_history(app, term)?;
            crate::overlay::show(&app.log, &mut events).await?;
            term.clear()?;
            dirty = true;
            continue;
        }
        let wait = if dirty { gap.saturating_sub(last_draw.elapsed()) } else { Duration::from_secs(3600) };
        tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => {
                    app.on_key(k);
                    typed = true;
                }
                Some(Ok(Event::Paste(text))) => {
                    app.on_paste(&text);
                    typed = true;
                }
                Some(Ok(Event::Resize(..))) => term.autoresize()?,
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            },
            m = engine.recv() => match m {
                Some(m) => app.on_engine(m),
                None => return Ok(()),
            },
            Some(q) = questions.recv() => app.on_question(q),
            _ = tick.tick(), if app.busy.is_some() || app.hint.is_some() || app.status_line.is_some() => {}
            _ = tokio::time::sleep(wait) => {}
        }
        dirty = true;
    }
}

/// Open `path` in `$VISUAL`/`$EDITOR` (vi when unset), with the terminal given back to
/// it meanwhile.
async fn edit(path: &std::path::Path) -> io::Result<()> {
    restore();
    let editor = std::env::var("VISUAL").or_else(|_| std::env::var("EDITOR")).unwrap_or_else(|_| "vi".into());
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c").arg(format!("{editor} \"$1\"")).arg("rein-editor").arg(path);
    // rein's own credentials stay out of every process it starts.
    for var in rein_process::CREDENTIAL_VARS {
        cmd.env_remove(var);
    }
    let status = cmd.status().await;
    terminal::enable_raw_mode()?;
    execute!(io::stdout(), EnableBracketedPaste)?;
    status.map(|_| ())
}

/// One frame: finished lines into scrollback, then the live area, in one synchronized
/// update.
fn draw(app: &mut App, term: &mut Term) -> io::Result<()> {
    let mut out = io::stdout();
    queue!(out, BeginSynchronizedUpdate)?;
    flush_history(app, term)?;
    if std::mem::take(&mut app.bell) {
        out.write_all(b"\x07")?;
    }
    if let Some(text) = app.notify.take() {
        write!(out, "\x1b]9;{text}\x07")?;
    }
    if std::mem::take(&mut app.redraw) {
        term.clear()?;
    }
    term.draw(|f| view::draw(app, f))?;
    execute!(out, EndSynchronizedUpdate)?;
    Ok(())
}

/// Write the pending lines above the viewport, wrapped to the width, once.
fn flush_history(app: &mut App, term: &mut Term) -> io::Result<()> {
    if app.pending.is_empty() {
        return Ok(());
    }
    let width = term.size()?.width.max(1) as usize;
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (line, to) in app.pending.take() {
        if to != Where::Screen {
            app.log.push_back(line.clone());
            if app.log.len() > LOG_LINES {
                app.log.pop_front();
            }
        }
        if to != Where::Log {
            lines.extend(wrap(line, width));
        }
    }
    if lines.is_empty() {
        return Ok(());
    }
    let height = lines.len() as u16;
    term.insert_before(height, |buf| Paragraph::new(lines).render(buf.area, buf))
}

/// Cut a line into rows of at most `width` columns, keeping each span's style.
pub fn wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line.width() <= width {
        return vec![line];
    }
    let mut rows: Vec<Line<'static>> = Vec::new();
    let mut row: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut piece = String::new();
        for ch in span.content.chars() {
            let w = UnicodeWidthStr::width(ch.encode_utf8(&mut [0; 4]) as &str);
            if used + w > width {
                if !piece.is_empty() {
                    row.push(Span::styled(std::mem::take(&mut piece), span.style));
                }
                rows.push(Line::from(std::mem::take(&mut row)));
                used = 0;
            }
            piece.push(ch);
            used += w;
        }
        if !piece.is_empty() {
            row.push(Span::styled(piece, span.style));
        }
    }
    if !row.is_empty() {
        rows.push(Line::from(row));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_to_the_width_keeping_styles() {
        let line = Line::from(vec![Span::raw("abcdef"), Span::styled("ghij", ratatui::style::Style::default().bold())]);
        let rows = wrap(line, 4);
        let text: Vec<String> = rows.iter().map(|r| r.spans.iter().map(|s| s.content.as_ref()).collect()).collect();
        assert_eq!(text, ["abcd", "efgh", "ij"]);
        assert!(rows[1].spans[1].style.add_modifier.contains(ratatui::style::Modifier::BOLD));
    }
}
