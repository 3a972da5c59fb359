//! Modal views as types, on a stack — as codex's bottom pane keeps its view stack: the
//! permission dialog, the `/resume` list, the Esc Esc picker, the rewind question and
//! Ctrl+R search each own their keys and draw themselves, and the input box's draft
//! survives underneath. A question that arrives while another is open waits its turn.

use std::collections::VecDeque;

use ratatui::crossterm::event::KeyEvent;
use ratatui::text::Line;

use crate::app::App;
use crate::approver::Question;

/// Where a view sits in the live area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// In place of the input box (a dialog, the search line).
    Input,
    /// Above the input box (a list to pick from).
    Above,
}

/// What a key did to a view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Keep,
    Close,
}

pub(crate) trait Modal: Send {
    /// A key, with the session's state at hand.
    fn key(&mut self, key: KeyEvent, app: &mut App) -> Flow;
    /// Its lines at `width` columns, within `rows` rows.
    fn lines(&mut self, app: &App, width: usize, rows: usize) -> Vec<Line<'static>>;
    fn place(&self) -> Place;
    /// A permission or user question (others wait behind it).
    fn is_question(&self) -> bool {
        false
    }
    /// Where the cursor shows within its lines (column, row).
    fn cursor(&self) -> Option<(usize, usize)> {
        None
    }
}

/// A view's lines and where its cursor is in them.
pub(crate) struct Drawn {
    pub lines: Vec<Line<'static>>,
    pub cursor: Option<(usize, usize)>,
}

/// The views open, the top one last, and the questions waiting for their turn.
#[derive(Default)]
pub(crate) struct Stack {
    views: Vec<Box<dyn Modal>>,
    waiting: VecDeque<Question>,
}

impl Stack {
    pub(crate) fn is_open(&self) -> bool {
        !self.views.is_empty()
    }

    /// A question is on screen.
    pub(crate) fn asking(&self) -> bool {
        self.views.iter().any(|v| v.is_question())
    }

    pub(crate) fn top_place(&self) -> Option<Place> {
        self.views.last().map(|v| v.place())
    }
}

impl App {
    /// Open `view` on top.
    pub(crate) fn open(&mut self, view: Box<dyn Modal>) {
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

    /// Give `key` to the top view; `false` when none is open.
    pub(crate) fn modal_key(&mut self, key: KeyEvent) -> bool {
        let Some(mut top) = self.modals.views.pop() else { return false };
        let at = self.modals.views.len();
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

    /// The top view as drawn now.
    pub(crate) fn modal_lines(&mut self, width: usize, rows: usize) -> Option<Drawn> {
        let mut top = self.modals.views.pop()?;
        let lines = top.lines(self, width, rows);
        let cursor = top.cursor();
        self.modals.views.push(top);
        Some(Drawn { lines, cursor })
    }
}
