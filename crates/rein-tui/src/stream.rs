//! Streaming assistant text. A message stays in the live area, rendered as Markdown
//! ([`crate::markdown`]) and wrapped to the window, until it ends: only then does it
//! enter the history (the terminal's scrollback, which cannot be taken back). So when a
//! stream breaks and the request is retried, what the broken answer said is dropped
//! from the screen and the retried answer takes its place ([`Stream::discard`]). While
//! it streams, the live area shows the message's last lines that fit.

use ratatui::text::{Line, Span};

use crate::markdown::Blocks;

/// Text of the message being streamed.
#[derive(Debug, Default)]
pub(crate) struct Stream {
    /// The message's complete lines so far, as they came.
    text: String,
    /// What has arrived after the last newline.
    partial: String,
    /// `text` rendered at `width` (`None`: not rendered since the width changed).
    rendered: Vec<Line<'static>>,
    width: Option<usize>,
    blocks: Blocks,
}

impl Stream {
    /// Take `delta` (its complete lines are rendered at `width`).
    pub(crate) fn push(&mut self, delta: &str, width: usize) {
        self.partial.push_str(delta);
        while let Some(i) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=i).collect();
            self.text.push_str(&line);
            if self.width == Some(width) {
                self.render_line(&line, width);
            }
        }
    }

    /// The message ended: all of it, for the history; then start afresh.
    pub(crate) fn finish(&mut self, width: usize) -> Vec<Line<'static>> {
        let rest = std::mem::take(&mut self.partial);
        if !rest.is_empty() {
            self.push(&format!("{rest}\n"), width);
        }
        self.render_at(width);
        let tail = self.blocks.finish(width.saturating_sub(2));
        self.add(tail);
        let out = std::mem::take(&mut self.rendered);
        *self = Stream::default();
        out
    }

    /// The message broke off (its request is asked again): forget it. Whether there
    /// was anything to forget.
    pub(crate) fn discard(&mut self) -> bool {
        let had = !self.text.is_empty() || !self.partial.is_empty();
        *self = Stream::default();
        had
    }

    /// The last `rows` lines of the message as it would show now (for the live area).
    pub(crate) fn pending(&mut self, width: usize, rows: usize) -> Vec<Line<'static>> {
        self.render_at(width);
        let w = width.saturating_sub(2);
        let mut open = self.blocks.pending(w);
        if !self.partial.is_empty() {
            let mut probe = Blocks::default();
            open.extend(probe.line(&self.partial, w));
        }
        let first = self.rendered.is_empty();
        let open = open.into_iter().enumerate().map(|(i, l)| indent(l, if first && i == 0 { "⏺ " } else { "  " }));
        let open: Vec<Line<'static>> = open.collect();
        let from = (self.rendered.len() + open.len()).saturating_sub(rows).min(self.rendered.len());
        let mut out: Vec<Line<'static>> = self.rendered[from..].to_vec();
        out.extend(open);
        let cut = out.len().saturating_sub(rows);
        out.drain(..cut);
        out
    }

    /// Render what came at `width`, again from the start if it was rendered at another.
    fn render_at(&mut self, width: usize) {
        if self.width == Some(width) {
            return;
        }
        self.width = Some(width);
        self.rendered.clear();
        self.blocks = Blocks::default();
        let text = std::mem::take(&mut self.text);
        for line in text.split_inclusive('\n') {
            self.render_line(line, width);
        }
        self.text = text;
    }

    fn render_line(&mut self, line: &str, width: usize) {
        let lines = self.blocks.line(line.trim_end_matches(['\n', '\r']), width.saturating_sub(2));
        self.add(lines);
    }

    /// Add rendered lines: the message's first gets the `⏺` bullet.
    fn add(&mut self, lines: Vec<Line<'static>>) {
        for l in lines {
            let mark = if self.rendered.is_empty() { "⏺ " } else { "  " };
            self.rendered.push(indent(l, mark));
        }
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

    /// Feeding the text in any pieces gives the same message at its end.
    #[test]
    fn the_message_is_the_same_whatever_the_chunks() {
        let text = "# Title\nSome `code` here\n```rust\nfn main() {}\n```\nlast line";
        let whole = {
            let mut s = Stream::default();
            s.push(text, 80);
            plain(&s.finish(80))
        };
        for size in 1..8 {
            let mut s = Stream::default();
            let chars: Vec<char> = text.chars().collect();
            for chunk in chars.chunks(size) {
                s.push(&chunk.iter().collect::<String>(), 80);
                let _ = s.pending(80, 24);
            }
            assert_eq!(plain(&s.finish(80)), whole, "chunks of {size}");
        }
        assert_eq!(whole[0], "⏺ Title");
        assert_eq!(whole.len(), 4, "the fences are not drawn: {whole:?}");
    }

    /// A broken answer is forgotten: the retried one is all the message holds.
    #[test]
    fn a_discarded_answer_leaves_nothing() {
        let mut s = Stream::default();
        s.push("The answer is\nforty", 80);
        assert!(plain(&s.pending(80, 24)).iter().any(|l| l.contains("forty")));
        assert!(s.discard());
        assert!(s.pending(80, 24).is_empty());
        s.push("The answer is 42.", 80);
        assert_eq!(plain(&s.finish(80)), ["⏺ The answer is 42."]);
        assert!(!s.discard(), "nothing left after the end");
    }

    /// The live area gets the message's last lines that fit, wrapped at the width it has
    /// now (a resize renders what came again).
    #[test]
    fn the_live_area_shows_the_tail_at_the_width_it_has_now() {
        let mut s = Stream::default();
        let text: String = (1..=30).map(|i| format!("line {i} of a paragraph\n")).collect();
        s.push(&text, 80);
        s.push("still com", 80);
        let tail = plain(&s.pending(80, 5));
        assert_eq!(tail.len(), 5);
        assert!(tail[0].contains("line 27") && tail[4].contains("still com"), "{tail:?}");
        let narrow = plain(&s.pending(12, 4));
        assert!(narrow.iter().all(|l| l.chars().count() <= 12), "{narrow:?}");
        let all = plain(&s.finish(80));
        assert_eq!(all.len(), 31);
        assert_eq!(all[0], "⏺ line 1 of a paragraph");
    }
}
