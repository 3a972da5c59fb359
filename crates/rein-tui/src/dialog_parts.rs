//! What every dialog is drawn from, whichever question it asks.

use ratatui::text::Line;

/// A dialog's lines, wrapped to its inner width: a title, a subject that may scroll,
/// and what always shows below it.
pub(crate) struct Parts {
    pub title: Line<'static>,
    pub subject: Vec<Line<'static>>,
    /// Why it is asked (gives way first in a short window).
    pub reason: Vec<Line<'static>>,
    pub fixed: Vec<Line<'static>>,
}
