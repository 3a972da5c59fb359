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
    /// The fixed part at its shortest, for a window too short for `fixed`: every option
    /// on one row (cut with `…`), nothing else.
    pub compact: Vec<Line<'static>>,
}

/// Every option on one row of `width` (cut with `…`).
pub(crate) fn one_row_each(options: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    options.iter().map(|l| crate::wrap::clip(l, width)).collect()
}
