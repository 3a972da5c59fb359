//! A question drawn inline below what is on the screen, before the interactive session
//! (the trust question, the project's MCP servers, `rein -r`'s picker): its rows are
//! written again in place after each key — each row cleared on its own, never the screen
//! from the cursor down, which some terminals (tmux) keep in the scrollback.

use std::io::Write;

use crossterm::{cursor, execute};

/// The rows drawn last.
#[derive(Default)]
pub(crate) struct Inline {
    drawn: usize,
}

impl Inline {
    /// Draw `rows` (each at most the width), over the previous ones; the cursor stays at
    /// the end of the last.
    pub(crate) fn draw(&mut self, rows: &[String]) -> std::io::Result<()> {
        let mut out = std::io::stdout();
        if self.drawn > 1 {
            execute!(out, cursor::MoveToColumn(0), cursor::MoveUp(self.drawn as u16 - 1))?;
        } else if self.drawn == 1 {
            execute!(out, cursor::MoveToColumn(0))?;
        }
        for (i, row) in rows.iter().enumerate() {
            let end = if i + 1 < rows.len() { "\r\n" } else { "" };
            write!(out, "\x1b[2K{row}{end}")?;
        }
        self.drawn = rows.len();
        out.flush()
    }
}
