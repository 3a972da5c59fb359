//! Streaming assistant text, committed as it completes: a line enters the history once
//! its newline has arrived (a table once its last row has), rendered as Markdown
//! ([`crate::markdown`]) and wrapped to the window; what is still arriving shows in the
//! live area, wrapped, growing as it streams.

use ratatui::text::{Line, Span};

use crate::markdown::Blocks;

/// Text of the message being streamed.
#[derive(Debug, Default)]
pub(crate) struct Stream {
    /// What has arrived after the last newline.
    partial: String,
    blocks: Blocks,
    /// The message produced a line already (the first one gets the `⏺` bullet).
    started: bool,
}

impl Stream {
    /// Take `delta`; return the lines it completed, rendered at `width`.
    pub(crate) fn push(&mut self, delta: &str, width: usize) -> Vec<Line<'static>> {
        self.partial.push_str(delta);
        let mut out = Vec::new();
        while let Some(i) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=i).collect();
            let rendered = self.blocks.line(line.trim_end_matches(['\n', '\r']), width.saturating_sub(2));
            out.extend(self.bullet(rendered));
        }
        out
    }

    /// The message ended: the rest, if any; then start afresh.
    pub(crate) fn finish(&mut self, width: usize) -> Vec<Line<'static>> {
        let rest = std::mem::take(&mut self.partial);
        let w = width.saturating_sub(2);
        let mut rendered = if rest.is_empty() { Vec::new() } else { self.blocks.line(&rest, w) };
        rendered.extend(self.blocks.finish(w));
        let out = self.bullet(rendered);
        *self = Stream::default();
        out
    }

    /// What is still arriving, as it would show now (for the live area).
    pub(crate) fn pending(&self, width: usize) -> Vec<Line<'static>> {
        let w = width.saturating_sub(2);
        let mut lines = self.blocks.pending(w);
        if !self.partial.is_empty() {
            let mut probe = Blocks::default();
            lines.extend(probe.line(&self.partial, w));
        }
        lines.into_iter().map(|l| indent(l, "  ")).collect()
    }

    fn bullet(&mut self, lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
        lines
            .into_iter()
            .map(|l| {
                let mark = if self.started { "  " } else { "⏺ " };
                self.started = true;
                indent(l, mark)
            })
            .collect()
    }
}

fn indent(line: Line<'static>, mark: &str) -> Line<'static> {
    let mut spans = vec![Span::raw(mark.to_string())];
    spans.extend(line.spans);
    Line::from(spans).style(line.style)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect()).collect()
    }

    /// Feeding the text in any pieces commits the same lines, each once, and never the
    /// partial last line before the end.
    #[test]
    fn lines_are_committed_once_whatever_the_chunks() {
        let text = "# Title\nSome `code` here\n```rust\nfn main() {}\n```\nlast line";
        let whole = {
            let mut s = Stream::default();
            let mut l = s.push(text, 80);
            l.extend(s.finish(80));
            plain(&l)
        };
        for size in 1..8 {
            let mut s = Stream::default();
            let mut l = Vec::new();
            let chars: Vec<char> = text.chars().collect();
            for chunk in chars.chunks(size) {
                l.extend(s.push(&chunk.iter().collect::<String>(), 80));
                assert!(!plain(&l).iter().any(|x| x.contains("last line")), "a partial line was committed");
            }
            l.extend(s.finish(80));
            assert_eq!(plain(&l), whole, "chunks of {size}");
        }
        assert_eq!(whole[0], "⏺ Title");
        assert_eq!(whole.len(), 4, "the fences are not drawn: {whole:?}");
    }
}
