//! Modal views as types, on a stack — as codex's bottom pane keeps its view stack: the
//! permission dialog, the `/resume` list, the Esc Esc picker, the rewind question and
//! Ctrl+R search each own their keys and draw themselves, and the input box's draft
//! survives underneath. A question that arrives while another is open waits its turn.

use std::collections::VecDeque;

use ratatui::crossterm::event::KeyEvent;
use ratatui::text::Line;

use crate::approver::Question;
use crate::on_purpose::Gate;

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

/// A view over `Host` (the interface's state, `App`): it owns its keys and its own
/// state, and reads or changes the host's through the key it is given.
pub(crate) trait Modal<Host>: Send {
    /// A key, with the session's state at hand.
    fn key(&mut self, key: KeyEvent, app: &mut Host) -> Flow;
    /// Its lines at `width` columns, within `rows` rows.
    fn lines(&mut self, app: &Host, width: usize, rows: usize) -> Vec<Line<'static>>;
    fn place(&self) -> Place;
    /// A question rein asks unbidden (a permission, the model's question): keys reach
    /// it only on purpose ([`crate::on_purpose`]), and others wait behind it.
    fn is_question(&self) -> bool {
        false
    }
    /// It takes text now, on the person's own choice (a note being typed): every key
    /// is theirs.
    fn takes_text(&self) -> bool {
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
pub(crate) struct Stack<Host> {
    pub(crate) views: Vec<Box<dyn Modal<Host>>>,
    pub(crate) waiting: VecDeque<Question>,
    /// The gate of the question on screen: keys reach it only on purpose
    /// ([`crate::on_purpose`]), whatever the question is.
    pub(crate) gate: Option<Gate>,
}

impl<Host> Default for Stack<Host> {
    fn default() -> Self {
        Stack { views: Vec::new(), waiting: VecDeque::new(), gate: None }
    }
}

impl<Host> Stack<Host> {
    pub(crate) fn is_open(&self) -> bool {
        !self.views.is_empty()
    }

    /// A question is on screen.
    pub(crate) fn asking(&self) -> bool {
        self.views.iter().any(|v| v.is_question())
    }

    /// What to say about keys the question on screen held back, if any were.
    pub(crate) fn typed_on(&self) -> Option<String> {
        self.gate.as_ref().and_then(|g| g.hint(true))
    }

    pub(crate) fn top_place(&self) -> Option<Place> {
        self.views.last().map(|v| v.place())
    }
}
