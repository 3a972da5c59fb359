//! Prompt history kept across sessions, per working directory, in
//! `<rein home>/history.jsonl` (one `{"cwd", "prompt"}` line each); and Ctrl+R's
//! reverse search over it.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// At most this many earlier prompts are loaded.
const KEPT: usize = 500;

/// The history file of one working directory.
pub(crate) struct History {
    file: PathBuf,
    cwd: String,
}

impl History {
    pub(crate) fn new(rein_home: &Path, cwd: &Path) -> Self {
        History { file: rein_home.join("history.jsonl"), cwd: cwd.display().to_string() }
    }

    /// Earlier prompts of this directory, oldest first.
    pub(crate) fn load(&self) -> Vec<String> {
        let Ok(text) = std::fs::read_to_string(&self.file) else { return Vec::new() };
        let mut out: Vec<String> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["cwd"] == self.cwd.as_str())
            .filter_map(|v| v["prompt"].as_str().map(str::to_string))
            .collect();
        out.dedup();
        let skip = out.len().saturating_sub(KEPT);
        out.split_off(skip)
    }

    /// Keep `prompt` (failures are not worth stopping for).
    pub(crate) fn append(&self, prompt: &str) {
        if let Some(dir) = self.file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let line = json!({"cwd": self.cwd, "prompt": prompt}).to_string();
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(&self.file) {
            let _ = writeln!(f, "{line}");
        }
    }
}

/// The newest entry before `before` (an index) that contains `query`.
pub(crate) fn search(entries: &[String], query: &str, before: usize) -> Option<usize> {
    entries[..before.min(entries.len())].iter().rposition(|e| e.contains(query))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_are_kept_per_directory_and_searched() {
        let d = tempfile::tempdir().unwrap();
        let a = History::new(d.path(), Path::new("/a"));
        let b = History::new(d.path(), Path::new("/b"));
        a.append("fix the tests");
        b.append("other project");
        a.append("run the build");
        let entries = a.load();
        assert_eq!(entries, ["fix the tests", "run the build"]);
        assert_eq!(search(&entries, "test", entries.len()), Some(0));
        assert_eq!(search(&entries, "build", entries.len()), Some(1));
        assert_eq!(search(&entries, "build", 1), None);
    }
}
