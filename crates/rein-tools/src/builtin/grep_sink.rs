//! Collects one file's matches and context lines for Grep.

use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

/// One line of output: a match or a context line, or a break between groups.
enum Line {
    Match(u64, String),
    Context(u64, String),
    Break,
}

/// What one file produced.
pub(super) struct FileHits {
    lines: Vec<Line>,
    pub match_lines: u64,
}

impl FileHits {
    /// Lines in ripgrep's format: `path:N:text` for matches, `path-N-text` for context,
    /// `--` between groups. An empty prefix leaves the path out.
    pub(super) fn render(&self, prefix: &str, numbers: bool) -> Vec<String> {
        let fmt = |sep: char, n: u64, text: &str| {
            let mut s = String::new();
            if !prefix.is_empty() {
                s.push_str(prefix);
                s.push(sep);
            }
            if numbers {
                s.push_str(&n.to_string());
                s.push(sep);
            }
            s.push_str(text);
            s
        };
        self.lines
            .iter()
            .map(|l| match l {
                Line::Match(n, t) => fmt(':', *n, t),
                Line::Context(n, t) => fmt('-', *n, t),
                Line::Break => "--".to_string(),
            })
            .collect()
    }
}

pub(super) struct HitSink {
    first_only: bool,
    hits: FileHits,
}

impl HitSink {
    pub(super) fn new(first_only: bool) -> Self {
        HitSink { first_only, hits: FileHits { lines: Vec::new(), match_lines: 0 } }
    }

    pub(super) fn finish(self) -> Option<FileHits> {
        (self.hits.match_lines > 0).then_some(self.hits)
    }
}

fn text_lines(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    let text = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    text.split(|b| *b == b'\n').map(|l| String::from_utf8_lossy(l.strip_suffix(b"\r").unwrap_or(l)).into_owned())
}

impl Sink for HitSink {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let first = m.line_number().unwrap_or(0);
        for (i, line) in text_lines(m.bytes()).enumerate() {
            self.hits.lines.push(Line::Match(first + i as u64, line));
            self.hits.match_lines += 1;
        }
        Ok(!self.first_only)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let first = c.line_number().unwrap_or(0);
        for (i, line) in text_lines(c.bytes()).enumerate() {
            self.hits.lines.push(Line::Context(first + i as u64, line));
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.hits.lines.push(Line::Break);
        Ok(true)
    }
}
