//! The terminal: raw mode, bracketed paste, the live area at the bottom of what has been
//! written ([`crate::screen`]), finished lines written above it into the terminal's own
//! scrollback once (wrapped at word boundaries), each frame one synchronized update at
//! most 60 times a second; restored on exit and on panic, with the line that resumes the
//! session printed.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use futures::StreamExt;
use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::event::{DisableBracketedPaste, EnableBracketedPaste, Event, EventStream, KeyEventKind};
use ratatui::crossterm::terminal::{self, BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::crossterm::{execute, queue};
use ratatui::text::Line;
use tokio::sync::mpsc;

use crate::app::App;
use crate::approver::Question;
use crate::out::Where;
use crate::screen::Screen;
use crate::view;
use crate::worker::FromEngine;

/// Lines the Ctrl+O view keeps.
const LOG_LINES: usize = 20_000;
/// At most one frame in this time (60 fps) for streaming and ticks…
const FRAME: Duration = Duration::from_millis(16);
/// …and this for what the person types, whose echo is worth the extra frames.
const KEY_FRAME: Duration = Duration::from_millis(4);
/// How long a resized window keeps its size before it is drawn again whole.
const SETTLE: Duration = Duration::from_millis(150);

/// Put the terminal back as it was.
fn restore() {
    let _ = execute!(io::stdout(), DisableBracketedPaste, Show);
    let _ = terminal::disable_raw_mode();
}

/// Run the UI until the person exits; the session to resume instead, if they asked.
pub(crate) async fn run(
    mut app: App,
    mut engine: mpsc::UnboundedReceiver<FromEngine>,
    mut questions: mpsc::UnboundedReceiver<Question>,
    mut repaint: Option<crate::repaint::RepaintSignal>,
) -> io::Result<(Option<String>, Option<crate::app::Reload>)> {
    terminal::enable_raw_mode()?;
    execute!(io::stdout(), EnableBracketedPaste)?;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        hook(info);
    }));
    // The cursor is asked for here, before anything reads the keyboard.
    let mut screen = Screen::new()?;
    let result = event_loop(&mut app, &mut screen, &mut engine, &mut questions, &mut repaint).await;
    // Leave the finished lines, clear the live area, and put the cursor below them.
    let _ = flush_history(&mut app, &mut screen);
    let _ = screen.finish();
    restore();
    if app.resume_to.is_none() && app.reload.is_none() && !app.session_id.is_empty() && app.turns_taken {
        #[allow(clippy::print_stdout)] // the terminal is the interface's again: its last line
        {
            println!("Resume this session with: rein --resume {}", app.session_id);
        }
    }
    result.map(|()| (app.resume_to.take(), app.reload.take()))
}

async fn event_loop(
    app: &mut App,
    screen: &mut Screen,
    engine: &mut mpsc::UnboundedReceiver<FromEngine>,
    questions: &mut mpsc::UnboundedReceiver<Question>,
    repaint: &mut Option<crate::repaint::RepaintSignal>,
) -> io::Result<()> {
    let mut events = EventStream::new();
    let mut hangup = crate::hangup::Hangup::listen();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let mut last_draw = Instant::now() - FRAME;
    let mut dirty = true;
    let mut typed = false;
    // When the window last changed size. A terminal reflows what it shows as it
    // resizes (a narrower window re-wraps the live area's rows, a shorter one pushes its
    // top into the scrollback), and the sizes a storm of resizes passes through are not
    // all reported: once the window has kept its size for a moment, everything is drawn
    // again whole, once, at the size it ends with.
    let mut resized: Option<Instant> = None;
    loop {
        if resized.is_some_and(|t| t.elapsed() >= SETTLE) {
            resized = None;
            flush_history(app, screen)?;
            crate::repaint::repaint(app, screen)?;
            dirty = true;
        }
        app.tick_status_line();
        let gap = if typed { KEY_FRAME } else { FRAME };
        if dirty && last_draw.elapsed() >= gap {
            draw(app, screen)?;
            last_draw = Instant::now();
            dirty = false;
            typed = false;
        }
        if app.quit {
            return Ok(());
        }
        if let Some(path) = app.edit.take() {
            flush_history(app, screen)?;
            screen.invalidate()?;
            let editor = editor();
            let ended = edit(&path, &editor).await?;
            let prompt = std::mem::take(&mut app.editing_prompt);
            match ended {
                // Ctrl+G: the prompt was edited in the editor; it comes back to the input box.
                Ok(status) if status.success() => {
                    if prompt && let Ok(back) = std::fs::read_to_string(&path) {
                        app.composer.set_text(back.trim_end_matches('\n'));
                    }
                }
                Ok(status) => app.note(format!("The editor ({editor}) ended with {status}: nothing was taken from it")),
                Err(e) => app.note(format!("Could not start the editor ({editor}): {e}")),
            }
            if prompt {
                let _ = std::fs::remove_file(&path);
            }
            screen.invalidate()?;
            dirty = true;
            continue;
        }
        if std::mem::take(&mut app.suspend) {
            // Ctrl+Z: the finished lines stay, the live area goes, the terminal is the
            // shell's until `fg`; then everything is drawn again.
            flush_history(app, screen)?;
            screen.finish()?;
            restore();
            #[allow(clippy::print_stdout)] // the terminal is the shell's until `fg`
            {
                println!("rein is stopped: `fg` brings it back");
            }
            rein_process::suspend_self();
            app.resumed();
            terminal::enable_raw_mode()?;
            execute!(io::stdout(), EnableBracketedPaste)?;
            // The shell wrote below: the live area starts where the cursor is now.
            let (width, rows) = terminal::size()?;
            screen.resized(width, rows)?;
            dirty = true;
            continue;
        }
        if std::mem::take(&mut app.open_log) {
            flush_history(app, screen)?;
            crate::overlay::show(&app.log, &mut events).await?;
            screen.invalidate()?;
            dirty = true;
            continue;
        }
        let wait = if dirty { gap.saturating_sub(last_draw.elapsed()) } else { Duration::from_secs(3600) };
        let wait = resized.map_or(wait, |t| wait.min(SETTLE.saturating_sub(t.elapsed())));
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
                Some(Ok(Event::Resize(w, h))) => {
                    resized = Some(Instant::now());
                    screen.resized(w, h)?;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e),
                None => return Ok(()),
            },
            m = engine.recv() => match m {
                Some(m) => app.on_engine(m),
                None => return Ok(()),
            },
            Some(q) = questions.recv() => app.on_question(q),
            // The terminal went away (it closed, or `rein stop`): the session ends as
            // when the person quits, and no command it started outlives it.
            () = hangup.next() => {
                // The turn in progress is interrupted, not finished without the person:
                // an open question is not taken as a "no" the model then works on.
                if let Some(busy) = &app.busy {
                    busy.token.cancel();
                }
                rein_process::kill_all_process_groups();
                return Ok(());
            }
            () = crate::repaint::requested(repaint) => {
                flush_history(app, screen)?;
                crate::repaint::repaint(app, screen)?;
            }
            _ = tick.tick(), if app.busy.is_some() || app.hint.is_some() || app.status_line.is_some() => {}
            _ = tokio::time::sleep(wait) => {}
        }
        dirty = true;
    }
}

/// The editor a person chose: `$VISUAL`, else `$EDITOR`, else vi.
fn editor() -> String {
    use rein_process::env::{Var, text};
    text(Var::Visual).or_else(|| text(Var::Editor)).unwrap_or_else(|| "vi".into())
}

/// Open `path` in `editor`, with the terminal given back to it meanwhile: how it ended
/// (the outer error is the terminal's).
async fn edit(path: &std::path::Path, editor: &str) -> io::Result<io::Result<std::process::ExitStatus>> {
    restore();
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c").arg(format!("{editor} \"$1\"")).arg("rein-editor").arg(path);
    // rein's own credentials stay out of every process it starts.
    rein_process::env::for_child(cmd.as_std_mut());
    let status = cmd.status().await;
    terminal::enable_raw_mode()?;
    execute!(io::stdout(), EnableBracketedPaste)?;
    Ok(status)
}

/// One frame: finished lines into scrollback, then the live area, in one synchronized
/// update.
fn draw(app: &mut App, screen: &mut Screen) -> io::Result<()> {
    let mut out = io::stdout();
    queue!(out, BeginSynchronizedUpdate)?;
    app.width = screen.width() as usize;
    flush_history(app, screen)?;
    if std::mem::take(&mut app.bell) {
        out.write_all(b"\x07")?;
    }
    if let Some(text) = app.notify.take() {
        write!(out, "\x1b]9;{text}\x07")?;
    }
    if std::mem::take(&mut app.redraw) {
        screen.invalidate()?;
    }
    let live = view::live(app, screen.width(), screen.rows());
    screen.draw(live.lines.len() as u16, |f| view::render(live, f))?;
    execute!(out, EndSynchronizedUpdate)?;
    Ok(())
}

/// Write the pending lines above the live area, wrapped to the width, once.
fn flush_history(app: &mut App, screen: &mut Screen) -> io::Result<()> {
    if app.pending.is_empty() {
        return Ok(());
    }
    let width = screen.width().max(1) as usize;
    let mut lines: Vec<Line<'static>> = Vec::new();
    for (line, to) in app.pending.take() {
        if to != Where::Screen {
            app.log.push_back(line.clone());
            if app.log.len() > LOG_LINES {
                app.log.pop_front();
            }
        }
        if to != Where::Log {
            lines.extend(crate::wrap::wrap(&line, width));
            app.drawn.push_back(line);
            if app.drawn.len() > crate::repaint::DRAWN_LINES {
                app.drawn.pop_front();
            }
        }
    }
    screen.insert(&lines)
}
