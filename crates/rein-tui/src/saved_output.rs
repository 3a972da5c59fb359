//! A result the model got only a preview of, read back whole for the person: the file
//! it was saved to gives the shown lines, the Ctrl+O view's lines and the true count.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// What the screen and the Ctrl+O view take from a saved output.
pub(crate) struct SavedOutput {
    /// The output's first `kept` lines.
    pub head: Vec<String>,
    /// How many lines the whole output has.
    pub lines: usize,
}

/// Read the first `kept` lines of the file at `path` and count the rest (the file is
/// streamed, never held whole). `None` when it cannot be read: the preview is shown.
pub(crate) fn read(path: &Path, kept: usize) -> Option<SavedOutput> {
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).ok()?);
    let mut head = Vec::new();
    let mut lines = 0;
    let mut line = Vec::new();
    while head.len() < kept {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return Some(SavedOutput { head, lines });
        }
        lines += 1;
        let text = String::from_utf8_lossy(&line);
        head.push(text.trim_end_matches(['\n', '\r']).to_string());
    }
    // Count the rest a buffer at a time.
    let mut ends_open = false;
    loop {
        let buf = reader.fill_buf().ok()?;
        if buf.is_empty() {
            break;
        }
        lines += buf.iter().filter(|b| **b == b'\n').count();
        ends_open = buf.last() != Some(&b'\n');
        let n = buf.len();
        reader.consume(n);
    }
    Some(SavedOutput { head, lines: lines + usize::from(ends_open) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_is_kept_and_every_line_counted() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("out.txt");
        let text: String = (1..=200_000).map(|i| format!("{i}\n")).collect();
        std::fs::write(&path, format!("{text}no newline")).unwrap();
        let saved = read(&path, 3).unwrap();
        assert_eq!(saved.head, ["1", "2", "3"]);
        assert_eq!(saved.lines, 200_001);
        std::fs::write(&path, "a\nb\n").unwrap();
        let short = read(&path, 10).unwrap();
        assert_eq!((short.head.len(), short.lines), (2, 2));
        assert!(read(&d.path().join("gone"), 3).is_none());
    }
}
