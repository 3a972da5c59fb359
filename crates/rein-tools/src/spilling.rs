//! A command's output, kept whole: in memory while it fits the inline budget, and past
//! it written — all of it — to a file under the session's saved outputs, with only a
//! head and a tail kept in memory for the preview. Memory stays bounded however much is
//! written; nothing is lost.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Characters of the head and of the tail the preview shows.
const PREVIEW_HALF: usize = 800;
/// A saved output stops growing here (an endless printer must not fill the disk); the
/// preview's tail and the counts still cover everything.
const MAX_SAVED_BYTES: u64 = 64 << 20;

/// A new file under the session's saved outputs (`tool-results`) for one result;
/// `what` (a tool's name, a background job's id) names it.
pub(crate) fn new_file(ctx: &crate::ToolContext, what: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let what: String = what.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').take(40).collect();
    ctx.session_dir.join("tool-results").join(format!("{what}-{}-{n}.txt", std::process::id()))
}

/// Where a too-large output went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Saved {
    pub path: PathBuf,
    pub chars: usize,
    pub lines: usize,
    /// Only the first [`MAX_SAVED_BYTES`] were written.
    pub cut: bool,
}

/// What was collected: the whole text, or a preview and where the whole of it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Collected {
    Whole(String),
    Spilled { head: String, tail: String, saved: Result<Saved, SaveFailed> },
}

/// Why an output could not be saved (the kind of failure and the system's words; kept
/// comparable, as what was collected is).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct SaveFailed {
    pub(crate) kind: std::io::ErrorKind,
    pub(crate) message: String,
}

impl From<std::io::Error> for SaveFailed {
    fn from(e: std::io::Error) -> Self {
        SaveFailed { kind: e.kind(), message: e.to_string() }
    }
}

pub(crate) struct Spilling {
    limit: usize,
    path: PathBuf,
    text: String,
    chars: usize,
    lines: usize,
    file: Option<Result<std::fs::File, SaveFailed>>,
    written: u64,
    tail: String,
}

impl Spilling {
    /// Keep up to `limit` characters in memory; past that, write to `path`.
    pub(crate) fn new(limit: usize, path: &Path) -> Self {
        Spilling {
            limit,
            path: path.to_path_buf(),
            text: String::new(),
            chars: 0,
            lines: 0,
            file: None,
            written: 0,
            tail: String::new(),
        }
    }

    pub(crate) fn push_str(&mut self, s: &str) {
        self.chars += s.chars().count();
        self.lines += s.bytes().filter(|b| *b == b'\n').count();
        match &mut self.file {
            None if self.chars <= self.limit => self.text.push_str(s),
            None => {
                // Over the budget: everything so far, and all that follows, to the file.
                let opened = self
                    .path
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    // A new file only: never through a link someone left at that name.
                    .and_then(|_| std::fs::OpenOptions::new().write(true).create_new(true).open(&self.path))
                    .and_then(|mut f| f.write_all(self.text.as_bytes()).and(f.write_all(s.as_bytes())).map(|_| f))
                    .map_err(SaveFailed::from);
                self.written = (self.text.len() + s.len()) as u64;
                self.file = Some(opened);
                self.keep_tail(s);
            }
            Some(Ok(f)) => {
                if self.written < MAX_SAVED_BYTES
                    && let Err(e) = f.write_all(s.as_bytes())
                {
                    self.file = Some(Err(SaveFailed::from(e)));
                }
                self.written += s.len() as u64;
                self.keep_tail(s);
            }
            Some(Err(_)) => self.keep_tail(s),
        }
    }

    fn keep_tail(&mut self, s: &str) {
        self.tail.push_str(s);
        if self.tail.len() > 8 * PREVIEW_HALF {
            let cut = self.tail.len() - 4 * PREVIEW_HALF;
            let cut = (cut..self.tail.len()).find(|i| self.tail.is_char_boundary(*i)).unwrap_or(self.tail.len());
            self.tail.drain(..cut);
        }
    }

    pub(crate) fn finish(self) -> Collected {
        let Some(file) = self.file else { return Collected::Whole(self.text) };
        let head: String = self.text.chars().take(PREVIEW_HALF).collect();
        let skip = self.tail.chars().count().saturating_sub(PREVIEW_HALF);
        let tail: String = self.tail.chars().skip(skip).collect();
        let cut = self.written > MAX_SAVED_BYTES;
        let saved = file.map(|_| Saved { path: self.path, chars: self.chars, lines: self.lines, cut });
        Collected::Spilled { head, tail, saved }
    }
}

impl Collected {
    /// The file holding the whole output, when it was saved.
    pub(crate) fn saved(&self) -> Option<PathBuf> {
        match self {
            Collected::Spilled { saved: Ok(s), .. } => Some(s.path.clone()),
            _ => None,
        }
    }

    /// What the model reads: the whole output, or its head and tail and a note naming
    /// the file that holds all of it.
    pub(crate) fn for_model(&self) -> String {
        match self {
            Collected::Whole(text) => text.clone(),
            Collected::Spilled { head, tail, saved: Ok(s) } => format!(
                "{head}\n…\n{tail}\n\n[Output too large for the context: {} lines, {} characters. {} saved to {}. \
                 Use Read with offset/limit, or Grep, to see the rest.]",
                s.lines,
                s.chars,
                if s.cut { "Its first 64 MB were" } else { "All of it was" },
                s.path.display()
            ),
            Collected::Spilled { head, tail, saved: Err(e) } => {
                format!("{head}\n…\n{tail}\n\n[Output too large for the context; saving it failed ({e}).]")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_within_the_budget_stays_in_memory() {
        let d = tempfile::tempdir().unwrap();
        let mut s = Spilling::new(100, &d.path().join("out.txt"));
        s.push_str("hello\n");
        assert_eq!(s.finish(), Collected::Whole("hello\n".into()));
        assert!(!d.path().join("out.txt").exists());
    }

    #[test]
    fn output_past_the_budget_is_saved_whole_with_a_small_preview() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("saved/out.txt");
        let mut s = Spilling::new(30_000, &path);
        let mut whole = String::new();
        for i in 1..=200_000 {
            let line = format!("{i}\n");
            whole.push_str(&line);
            s.push_str(&line);
        }
        let collected = s.finish();
        let text = collected.for_model();
        assert!(text.len() < 2600, "{}", text.len());
        assert!(text.starts_with("1\n2\n") && text.contains("200000\n"), "{text}");
        assert!(text.contains("200000 lines") && text.contains(&path.display().to_string()), "{text}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), whole, "every line is in the file");
    }
}
