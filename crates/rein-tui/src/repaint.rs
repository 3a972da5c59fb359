//! The screen drawn whole again: the screen and its scrollback are cleared and the
//! finished lines (the last [`DRAWN_LINES`] of them, kept unwrapped) are drawn again at
//! the terminal's width, with the live area (a waiting question among it) below. After a
//! resize that tore the live area (a narrower window re-wraps its rows, a shorter one
//! pushes its top into the scrollback), and when a terminal attaches to a background
//! session: its host (`rein-jobs`) asks for it with SIGUSR1. The signal is taken over as soon as the session knows it is a background one,
//! so that it never ends the process.

use std::io::{self, Write};

use ratatui::crossterm::event::EnableBracketedPaste;
use ratatui::crossterm::{execute, terminal};

use crate::app::App;
use crate::screen::Screen;

/// How many finished lines a background session keeps to draw again.
pub(crate) const DRAWN_LINES: usize = 10_000;

/// Where a host's requests to draw everything again arrive.
pub struct RepaintSignal {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl RepaintSignal {
    /// Take SIGUSR1 over (inside a Tokio runtime).
    pub fn listen() -> io::Result<RepaintSignal> {
        #[cfg(unix)]
        {
            let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::user_defined1())?;
            Ok(RepaintSignal { signal })
        }
        #[cfg(not(unix))]
        Ok(RepaintSignal {})
    }

    /// The next request.
    pub(crate) async fn next(&mut self) {
        #[cfg(unix)]
        if self.signal.recv().await.is_some() {
            return;
        }
        std::future::pending::<()>().await;
    }
}

/// The next request of `signal`, or never without one.
pub(crate) async fn requested(signal: &mut Option<RepaintSignal>) {
    match signal {
        Some(s) => s.next().await,
        None => std::future::pending().await,
    }
}

/// Clear the terminal and its scrollback and draw the finished lines again at its size
/// now; the live area follows on the next frame.
pub(crate) fn repaint(app: &mut App, screen: &mut Screen) -> io::Result<()> {
    let mut out = io::stdout();
    out.write_all(b"\x1b[H\x1b[2J\x1b[3J")?;
    out.flush()?;
    execute!(out, EnableBracketedPaste)?;
    let (width, rows) = terminal::size()?;
    screen.cleared(width, rows);
    app.width = width as usize;
    let lines: Vec<_> = app.drawn.iter().flat_map(|l| crate::wrap::wrap(l, app.width.max(1))).collect();
    screen.insert(&lines)
}
