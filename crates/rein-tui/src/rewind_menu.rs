//! Going back (Esc Esc) when files changed outside rein since their checkpoint: the
//! files are named, and nothing is overwritten without a yes.

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::modal::{Flow, Modal, Place};
use crate::summary;
use crate::worker::ToEngine;

/// The question before overwriting files changed outside rein.
pub(crate) struct RewindMenu {
    pub n: usize,
    pub paths: Vec<PathBuf>,
    /// What the rewind was to restore.
    pub files: bool,
    pub conversation: bool,
}

impl Modal<App> for RewindMenu {
    fn place(&self) -> Place {
        Place::Above
    }

    fn key(&mut self, key: KeyEvent, app: &mut App) -> Flow {
        match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') => {
                let (n, files, conversation) = (self.n, self.files, self.conversation);
                app.ask_engine(ToEngine::Command(rein_session::Command::Rewind {
                    prompt: n,
                    files,
                    conversation,
                    force: true,
                }));
                Flow::Close
            }
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => {
                app.composer.clear();
                app.note("Nothing was restored");
                Flow::Close
            }
            _ => Flow::Keep,
        }
    }

    fn lines(&mut self, _: &App, width: usize, _: usize) -> Vec<Line<'static>> {
        let yellow = Style::default().fg(crate::theme::palette().warning);
        let mut out =
            vec![Line::from(Span::styled("These files changed outside rein since their checkpoint:", yellow))];
        for p in self.paths.iter().take(8) {
            out.push(Line::from(summary::one_line(&format!("  {}", p.display()), width.saturating_sub(1))));
        }
        out.push(Line::from("Overwrite them and go back? (y/n)"));
        out
    }
}
