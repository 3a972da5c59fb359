//! A question drawn inline below what is on the screen, before the interactive session
//! (the trust question, the project's MCP servers, `rein -r`'s picker): its rows are
//! written again in place after each key — each row cleared on its own, never the screen
//! from the cursor down, which some terminals (tmux) keep in the scrollback. After a
//! resize the rows drawn last are found again where the terminal re-wrapped them, and
//! the question is laid out at the new width over them. Like every question rein asks,
//! it takes only keys pressed on purpose ([`crate::on_purpose`]): keys typed ahead
//! while rein started answer nothing.

use std::io::Write;
use std::time::Instant;

use crossterm::event::{self, Event, KeyEvent, KeyEventKind};
use crossterm::{cursor, execute};

use crate::on_purpose::Gate;

/// The rows drawn last, how many terminal rows they take now, and the question's gate
/// (from when it was first drawn).
#[derive(Default)]
pub(crate) struct Inline {
    drawn: usize,
    last: Vec<String>,
    gate: Option<Gate>,
}

impl Inline {
    /// Draw `rows` (each at most the width), over the previous ones; the cursor stays at
    /// the end of the last.
    pub(crate) fn draw(&mut self, rows: &[String]) -> std::io::Result<()> {
        let gate = self.gate.get_or_insert_with(|| Gate::new(Instant::now(), crate::on_purpose::pause(), None));
        // Nothing but text reaches the terminal: a name from a project's file (an MCP
        // server's) or a model's (a session title) may hold escape sequences that would
        // redraw the question or make the terminal type answers back.
        let mut rows: Vec<String> = rows.iter().map(|r| r.chars().filter(|c| !c.is_control()).collect()).collect();
        if let Some(hint) = gate.hint(false) {
            rows.push(crate::summary::one_line(&hint, width().saturating_sub(1)));
        }
        let mut out = std::io::stdout();
        if self.drawn > rows.len() {
            // Fewer rows than the old ones take: the old ones are cleared first.
            self.to_first_row(&mut out)?;
            for i in 0..self.drawn {
                let end = if i + 1 < self.drawn { "\r\n" } else { "" };
                write!(out, "\x1b[2K{end}")?;
            }
        }
        self.to_first_row(&mut out)?;
        for (i, row) in rows.iter().enumerate() {
            let end = if i + 1 < rows.len() { "\r\n" } else { "" };
            write!(out, "\x1b[2K{row}{end}")?;
        }
        self.drawn = rows.len();
        self.last = rows;
        out.flush()
    }

    /// The terminal changed size: the rows drawn last take as many rows as it re-wrapped
    /// them into at the width it has now (not the width the event reported: a storm of
    /// resizes reports some sizes late, or not at all).
    fn resized(&mut self) {
        let width = width();
        self.drawn =
            self.last.iter().map(|r| ratatui::text::Line::from(r.as_str()).width().max(1).div_ceil(width)).sum();
    }

    /// Put the cursor at the start of the first row drawn last.
    fn to_first_row(&self, out: &mut std::io::Stdout) -> std::io::Result<()> {
        if self.drawn > 1 {
            execute!(out, cursor::MoveToColumn(0), cursor::MoveUp(self.drawn as u16 - 1))
        } else {
            execute!(out, cursor::MoveToColumn(0))
        }
    }
}

/// How long the window keeps its size before a question is laid out again.
const SETTLE: std::time::Duration = std::time::Duration::from_millis(150);

/// The next key pressed on purpose, or `None` when the caller draws again: a key was
/// held back (the question says so), or the window was resized — the storm of resizes
/// is waited out (until the size holds for a moment; a key meanwhile ends the wait),
/// and `frame` learns where the terminal re-wrapped its rows.
pub(crate) fn read_key(frame: &mut Inline) -> std::io::Result<Option<KeyEvent>> {
    let admits = |frame: &mut Inline, key: &KeyEvent| frame.gate.as_mut().is_none_or(|g| g.admits(key, Instant::now()));
    loop {
        match event::read()? {
            Event::Key(key) if key.kind == KeyEventKind::Press => {
                return Ok(admits(frame, &key).then_some(key));
            }
            Event::Resize(..) => {
                let mut key = None;
                while key.is_none() && event::poll(SETTLE)? {
                    if let Event::Key(k) = event::read()?
                        && k.kind == KeyEventKind::Press
                    {
                        key = Some(k).filter(|k| admits(frame, k));
                    }
                }
                frame.resized();
                return Ok(key);
            }
            _ => {}
        }
    }
}

/// `text` word-wrapped to `width`, a row each.
pub(crate) fn wrap_rows(text: &[String], width: usize) -> Vec<String> {
    text.iter()
        .flat_map(|l| crate::wrap::wrap(&ratatui::text::Line::from(l.as_str()), width))
        .map(|row| row.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

/// The terminal's width now (80 when it cannot be told).
pub(crate) fn width() -> usize {
    crossterm::terminal::size().map_or(80, |(w, _)| w.max(1) as usize)
}
