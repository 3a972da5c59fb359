//! Finished lines on their way out: into the terminal's scrollback (once) and into the
//! session log that Ctrl+O shows in full (where a tool call's whole output replaces its
//! folded summary).

use ratatui::text::Line;

/// Where a finished line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Where {
    Both,
    /// The scrollback only (a folded summary).
    Screen,
    /// The Ctrl+O view only (the whole output).
    Log,
}

#[derive(Debug, Default)]
pub(crate) struct Out {
    items: Vec<(Line<'static>, Where)>,
}

impl Out {
    pub(crate) fn push(&mut self, line: Line<'static>) {
        self.items.push((line, Where::Both));
    }

    pub(crate) fn push_to(&mut self, line: Line<'static>, to: Where) {
        self.items.push((line, to));
    }

    pub(crate) fn extend(&mut self, lines: impl IntoIterator<Item = Line<'static>>) {
        self.items.extend(lines.into_iter().map(|l| (l, Where::Both)));
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub(crate) fn take(&mut self) -> Vec<(Line<'static>, Where)> {
        std::mem::take(&mut self.items)
    }
}
