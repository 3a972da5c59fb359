//! The interface's side of the modal stack: opening a view, a question shown now or
//! after the one on screen, keys to the top view, the top view's lines.

use std::time::Instant;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::App;
use crate::approver::Question;
use crate::modal::{Drawn, Flow, Modal};
use crate::on_purpose::Gate;

impl App {
    /// Open `view` on top; a question gets its gate.
    pub(crate) fn open(&mut self, view: Box<dyn Modal<App>>) {
        if view.is_question() {
            self.modals.gate = Some(Gate::new(Instant::now(), self.answer_pause, self.last_key));
        }
        self.modals.views.push(view);
    }

    /// A question from the engine: shown now, or after the one on screen.
    pub(crate) fn on_question(&mut self, q: Question) {
        self.bell = true;
        // A terminal that shows notifications (and a background session's host) says so.
        self.notify = Some(format!("rein needs your permission to use {}", q.call.name));
        if self.modals.asking() {
            self.modals.waiting.push_back(q);
        } else {
            self.open(Box::new(crate::permission_view::PermissionView::new(q)));
        }
    }

    /// Give `key` to the top view; `false` when none is open. A question takes only
    /// keys pressed on purpose: what was typed on goes to the draft under it, as it was
    /// meant to.
    pub(crate) fn modal_key(&mut self, key: KeyEvent) -> bool {
        // Ctrl+Z suspends rein whatever is open (the shell's `fg` typed next must not
        // land in a question).
        if key.code == KeyCode::Char('z') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return false;
        }
        let Some(mut top) = self.modals.views.pop() else { return false };
        let at = self.modals.views.len();
        // A question taking text the person chose to type (a note) takes every key.
        let gated = top.is_question() && !top.takes_text();
        let held = gated && self.modals.gate.as_mut().is_some_and(|g| !g.admits(&key, Instant::now()));
        if held {
            match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    self.composer.insert(&c.to_string());
                }
                KeyCode::Backspace => {
                    let _ = self.composer.key(key);
                }
                _ => {}
            }
            self.modals.views.push(top);
            return true;
        }
        let closed = top.key(key, self) == Flow::Close;
        if !closed {
            let at = at.min(self.modals.views.len());
            self.modals.views.insert(at, top);
        } else if top.is_question()
            && let Some(next) = self.modals.waiting.pop_front()
        {
            self.open(Box::new(crate::permission_view::PermissionView::new(next)));
        }
        true
    }

    /// rein came back from a suspend (`fg`): the question on screen is new to the
    /// person again, and what they type next is not yet an answer.
    pub(crate) fn resumed(&mut self) {
        if self.modals.asking() {
            self.modals.gate = Some(Gate::new(Instant::now(), self.answer_pause, Some(Instant::now())));
        }
    }

    /// The top view as drawn now.
    pub(crate) fn modal_lines(&mut self, width: usize, rows: usize) -> Option<Drawn> {
        let mut top = self.modals.views.pop()?;
        let lines = top.lines(self, width, rows);
        let cursor = top.cursor();
        self.modals.views.push(top);
        Some(Drawn { lines, cursor })
    }
}
