//! Streaming assistant text, committed line by line: only complete lines enter the
//! history (a partial line stays in the live area until its newline arrives or the
//! message ends), styled as light Markdown — headings bold, code blocks coloured,
//! inline `code` highlighted, bullets kept.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Text of the message being streamed.
#[derive(Debug, Default)]
pub struct Stream {
    /// What has arrived after the last newline.
    partial: String,
    /// Inside a fenced code block of this language.
    in_code: Option<String>,
    /// The message produced a line already (the first one gets the `⏺` bullet).
    started: bool,
}

impl Stream {
    /// Take `delta`; return the lines it completed, styled.
    pub fn push(&mut self, delta: &str) -> Vec<Line<'static>> {
        self.partial.push_str(delta);
        let mut out = Vec::new();
        while let Some(i) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=i).collect();
            out.push(self.style(line.trim_end_matches('\n')));
        }
        out
    }

    /// The message ended: the rest, if any, as a last line; then start afresh.
    pub fn finish(&mut self) -> Vec<Line<'static>> {
        let rest = std::mem::take(&mut self.partial);
        let out = if rest.is_empty() { Vec::new() } else { vec![self.style(&rest)] };
        *self = Stream::default();
        out
    }

    /// The line still arriving, for the live area.
    pub fn partial(&self) -> &str {
        &self.partial
    }

    fn style(&mut self, line: &str) -> Line<'static> {
        let bullet = if self.started { "  " } else { "⏺ " };
        self.started = true;
        let mut spans = vec![Span::raw(bullet.to_string())];
        if let Some(fence) = line.trim_start().strip_prefix("```") {
            self.in_code = match self.in_code {
                Some(_) => None,
                None => Some(fence.trim().to_string()),
            };
            spans.push(Span::styled(line.to_string(), Style::default().add_modifier(Modifier::DIM)));
            return Line::from(spans);
        }
        if let Some(lang) = &self.in_code {
            spans.extend(crate::highlight::line(line, lang));
            return Line::from(spans);
        }
        if line.starts_with('#') {
            let text = line.trim_start_matches('#').trim_start().to_string();
            spans.push(Span::styled(text, Style::default().add_modifier(Modifier::BOLD)));
            return Line::from(spans);
        }
        spans.extend(inline_code(line));
        Line::from(spans)
    }
}

/// `text with `code` in it`: code spans coloured, `**bold**` bold.
fn inline_code(line: &str) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    for (i, part) in line.split('`').enumerate() {
        if part.is_empty() {
            continue;
        }
        if i % 2 == 1 {
            out.push(Span::styled(part.to_string(), Style::default().fg(Color::Cyan)));
            continue;
        }
        for (j, piece) in part.split("**").enumerate() {
            if piece.is_empty() {
                continue;
            }
            let style = if j % 2 == 1 { Style::default().add_modifier(Modifier::BOLD) } else { Style::default() };
            out.push(Span::styled(piece.to_string(), style));
        }
    }
    out
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
            let mut l = s.push(text);
            l.extend(s.finish());
            plain(&l)
        };
        for size in 1..8 {
            let mut s = Stream::default();
            let mut l = Vec::new();
            let chars: Vec<char> = text.chars().collect();
            for chunk in chars.chunks(size) {
                l.extend(s.push(&chunk.iter().collect::<String>()));
                assert!(!plain(&l).iter().any(|x| x.contains("last line")), "a partial line was committed");
            }
            l.extend(s.finish());
            assert_eq!(plain(&l), whole, "chunks of {size}");
        }
        assert_eq!(whole[0], "⏺ Title");
        assert_eq!(whole.len(), 6);
    }
}
