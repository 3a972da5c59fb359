//! Where the live area sits on the terminal. Finished lines go above it, once, into the
//! terminal's own scrollback; the live area sits right below them and is as tall as
//! what it must show (up to the window) — it grows for a long dialog and shrinks back,
//! so the prompt follows the conversation instead of floating mid-screen.
//!
//! The terminal's cursor is hidden and parked at the live area's first cell between
//! frames (the input box draws its own cursor), so after a resize — when the terminal
//! reflows and moves rows — the live area is found again from where the cursor went,
//! and cleared from there down: nothing of it is left behind in the scrollback. The
//! cursor position is asked for at start and after a resize only, never at exit (a
//! late reply would be echoed into the shell).

use std::io::{self, Stdout, Write};

use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::crossterm::cursor::{Hide, MoveTo, Show};
use ratatui::crossterm::queue;
use ratatui::crossterm::terminal::{Clear, ClearType};
use ratatui::layout::{Position, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Frame, Terminal, TerminalOptions, Viewport};

type Term = Terminal<CrosstermBackend<Stdout>>;

pub(crate) struct Screen {
    term: Term,
    width: u16,
    rows: u16,
    /// The first row below the history: where the live area starts.
    top: u16,
    /// The live area's height as last drawn (0: to be placed again).
    height: u16,
}

fn term_at(area: Rect) -> io::Result<Term> {
    Terminal::with_options(CrosstermBackend::new(io::stdout()), TerminalOptions { viewport: Viewport::Fixed(area) })
}

impl Screen {
    /// Start below whatever the terminal shows now.
    pub(crate) fn new() -> io::Result<Screen> {
        let (width, rows) = ratatui::crossterm::terminal::size()?;
        let (col, row) = ratatui::crossterm::cursor::position().unwrap_or((0, rows.saturating_sub(1)));
        let mut screen = Screen {
            term: term_at(Rect::new(0, 0, width.max(1), 1))?,
            width: width.max(1),
            rows: rows.max(1),
            top: row.min(rows.saturating_sub(1)),
            height: 0,
        };
        if col > 0 {
            // Start on a line of our own.
            screen.top = (screen.top + 1).min(screen.rows);
        }
        queue!(io::stdout(), Hide)?;
        Ok(screen)
    }

    pub(crate) fn width(&self) -> u16 {
        self.width
    }

    pub(crate) fn rows(&self) -> u16 {
        self.rows
    }

    /// Scroll the whole screen up `n` rows: the top rows go into the scrollback.
    fn scroll(&mut self, n: u16) -> io::Result<()> {
        if n == 0 {
            return Ok(());
        }
        let mut out = io::stdout();
        queue!(out, MoveTo(0, self.rows.saturating_sub(1)))?;
        for _ in 0..n {
            out.write_all(b"\n")?;
        }
        self.top = self.top.saturating_sub(n);
        Ok(())
    }

    /// Clear from the live area's top to the bottom of the screen, row by row: a
    /// clear-to-end from the top-left corner is a "clear screen" to tmux, which would
    /// push the live area into the scrollback.
    fn clear_live(&mut self) -> io::Result<()> {
        let mut out = io::stdout();
        for row in self.top..self.rows {
            queue!(out, MoveTo(0, row), Clear(ClearType::CurrentLine))?;
        }
        self.height = 0;
        Ok(())
    }

    /// Write `lines` (each at most the width) into the history, above the live area.
    pub(crate) fn insert(&mut self, lines: &[Line<'static>]) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        self.clear_live()?;
        let mut rest = lines;
        while !rest.is_empty() {
            if self.top >= self.rows {
                let n = (rest.len() as u16).min(self.rows);
                self.scroll(n)?;
            }
            let n = (rest.len()).min((self.rows - self.top) as usize);
            let area = Rect::new(0, self.top, self.width, n as u16);
            let mut buf = Buffer::empty(area);
            Paragraph::new(rest[..n].to_vec()).render(area, &mut buf);
            // The rows were cleared: only what is not a plain blank is written.
            let blank = ratatui::buffer::Cell::default();
            let cells = buf.content.iter().enumerate().filter(|(_, c)| **c != blank).map(|(i, c)| {
                let x = (i % self.width as usize) as u16;
                let y = self.top + (i / self.width as usize) as u16;
                (x, y, c)
            });
            self.term.backend_mut().draw(cells)?;
            self.top += n as u16;
            rest = &rest[n..];
        }
        Ok(())
    }

    /// Draw the live area `height` rows tall (at most the window). `render` draws into
    /// the frame; the frame's area is the live area.
    pub(crate) fn draw(&mut self, height: u16, render: impl FnOnce(&mut Frame<'_>)) -> io::Result<()> {
        let height = height.clamp(1, self.rows);
        if height != self.height {
            self.clear_live()?;
            if self.top + height > self.rows {
                let over = self.top + height - self.rows;
                self.scroll(over)?;
            }
            self.term = term_at(Rect::new(0, self.top, self.width, height))?;
            self.height = height;
        }
        self.term.draw(|f| {
            render(f);
            f.set_cursor_position(Position::new(0, f.area().y));
        })?;
        queue!(io::stdout(), Hide)?;
        Ok(())
    }

    /// Draw everything again on the next frame (after an editor or the Ctrl+O view).
    pub(crate) fn invalidate(&mut self) -> io::Result<()> {
        self.clear_live()
    }

    /// The terminal changed size: find the live area again where the parked cursor
    /// went, clear it and everything below.
    pub(crate) fn resized(&mut self, width: u16, rows: u16) -> io::Result<()> {
        self.width = width.max(1);
        self.rows = rows.max(1);
        let row = ratatui::crossterm::cursor::position().map(|(_, r)| r).unwrap_or(self.top);
        self.top = row.min(self.rows.saturating_sub(1));
        self.clear_live()
    }

    /// The terminal was cleared (and is `width` × `rows`): the live area starts at the
    /// top. Nothing is asked of the terminal: the cursor is home.
    pub(crate) fn cleared(&mut self, width: u16, rows: u16) {
        self.width = width.max(1);
        self.rows = rows.max(1);
        self.top = 0;
        self.height = 0;
    }

    /// Leave: clear the live area and put the cursor where the next output goes.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.clear_live()?;
        queue!(io::stdout(), MoveTo(0, self.top), Show)?;
        io::stdout().flush()
    }
}
