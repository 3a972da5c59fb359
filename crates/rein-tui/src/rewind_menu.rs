//! Going back (Esc Esc) when files changed outside rein since their checkpoint: the
//! files are named, and nothing is overwritten without a yes.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use crate::summary;

/// The question before overwriting files changed outside rein.
pub struct RewindMenu {
    pub n: usize,
    pub paths: Vec<PathBuf>,
    /// What the rewind was to restore.
    pub files: bool,
    pub conversation: bool,
}

/// What a key did.
pub enum MenuAction {
    None,
    /// No: nothing is restored.
    Close,
    /// Yes: rewind, overwriting.
    Overwrite,
}

impl RewindMenu {
    pub fn key(&self, key: KeyEvent) -> MenuAction {
        match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => MenuAction::Overwrite,
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => MenuAction::Close,
            _ => MenuAction::None,
        }
    }

    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let yellow = Style::default().fg(Color::Yellow);
        let mut out =
            vec![Line::from(Span::styled("These files changed outside rein since their checkpoint:", yellow))];
        for p in self.paths.iter().take(8) {
            out.push(Line::from(summary::one_line(&format!("  {}", p.display()), width)));
        }
        out.push(Line::from("Overwrite them and go back? (y/n)"));
        out
    }
}
