//! FileChanged, as Claude Code raises it: the files named by FileChanged matchers
//! (`.envrc|.env`, in the session's working directory) and the paths SessionStart,
//! CwdChanged and FileChanged hooks ask for (`watchPaths`) are watched; a change,
//! creation or removal fires FileChanged with the file's path and what happened. The
//! session looks before each prompt and after each batch of tool calls — the moments
//! its next command would first see the file — with one `stat` per watched file, so an
//! idle session costs nothing.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::{HookEvent, HookInput, Hooks, Matcher, Outcome};

/// The most files a session watches for FileChanged hooks.
const MAX_WATCHED: usize = 1_000;

/// What a file was when last looked at: absent, or its modification time and length.
type Stamp = Option<(Option<SystemTime>, u64)>;

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

/// The watched files and how each was last seen.
#[derive(Debug, Default)]
pub struct FileWatch {
    files: Vec<(PathBuf, Stamp)>,
    /// The same paths, to find one at once (hooks may name thousands).
    known: std::collections::HashSet<PathBuf>,
    /// The directory the matchers' names were taken in.
    cwd: Option<PathBuf>,
}

/// The watch shared by every copy of a session's hooks.
pub type SharedWatch = Arc<Mutex<FileWatch>>;

impl FileWatch {
    /// Watch `path` from how it is now (once).
    pub fn add(&mut self, path: PathBuf) {
        // At most MAX_WATCHED: a hook's list cannot make every look slow.
        if self.files.len() < MAX_WATCHED && self.known.insert(path.clone()) {
            let now = stamp(&path);
            self.files.push((path, now));
        }
    }

    /// The files changed since the last look, with `change`, `add` or `unlink`; each
    /// change is reported once.
    pub fn changes(&mut self) -> Vec<(PathBuf, &'static str)> {
        let mut out = Vec::new();
        for (path, seen) in &mut self.files {
            let now = stamp(path);
            if now != *seen {
                let what = match (&seen, &now) {
                    (None, Some(_)) => "add",
                    (Some(_), None) => "unlink",
                    _ => "change",
                };
                *seen = now;
                out.push((path.clone(), what));
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// The literal file names FileChanged matchers list.
fn matcher_names(hooks: &Hooks) -> Vec<String> {
    let groups = hooks.config.events.get(&HookEvent::FileChanged).into_iter().flatten();
    let mut names: Vec<String> = Vec::new();
    for g in groups {
        if let Matcher::Names(list) = &g.matcher {
            names.extend(list.iter().filter(|n| !n.contains('/')).cloned());
        }
    }
    names
}

impl Outcome {
    /// The paths hooks asked to watch (`hookSpecificOutput.watchPaths`), absolute.
    pub fn watch_paths(&self, cwd: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for p in self.parsed().filter(|p| p.ok()) {
            for path in p.specific().and_then(|s| s.watch_paths.clone()).unwrap_or_default() {
                out.push(cwd.join(path));
            }
        }
        out
    }
}

impl Hooks {
    /// Watch what FileChanged matchers name in the session's directory now and
    /// what `outcome`'s hooks asked for. Nothing is watched without a FileChanged hook.
    pub fn watch_from(&self, outcome: Option<&Outcome>) {
        if !self.has(HookEvent::FileChanged) {
            return;
        }
        let cwd = &self.cwd_now();
        let mut watch = self.watch.lock().unwrap_or_else(|p| p.into_inner());
        if watch.cwd.as_deref() != Some(cwd) {
            for name in matcher_names(self) {
                watch.add(cwd.join(name));
            }
            watch.cwd = Some(cwd.to_path_buf());
        }
        for path in outcome.map(|o| o.watch_paths(cwd)).unwrap_or_default() {
            watch.add(path);
        }
    }

    /// Fire FileChanged for each watched file that changed since the last look; the
    /// notices of the hooks that ran (their output is for the person only).
    pub async fn file_changes(&self) -> Vec<String> {
        if !self.has(HookEvent::FileChanged) {
            return Vec::new();
        }
        self.watch_from(None);
        let changed = self.watch.lock().unwrap_or_else(|p| p.into_inner()).changes();
        let mut notices = Vec::new();
        for (path, what) in changed {
            let input = HookInput::FileChanged { file_path: path.display().to_string(), event: what.to_string() };
            let out = self.fire_input(&input, |_| true).await;
            notices.extend(out.notices(HookEvent::FileChanged));
            self.watch_from(Some(&out));
        }
        notices
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_told_apart_and_reported_once() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join(".envrc"), dir.path().join(".env"));
        std::fs::write(&a, "x").unwrap();
        let mut watch = FileWatch::default();
        watch.add(a.clone());
        watch.add(b.clone());
        watch.add(a.clone());
        assert!(watch.changes().is_empty());
        std::fs::write(&a, "longer").unwrap();
        std::fs::write(&b, "new").unwrap();
        assert_eq!(watch.changes(), vec![(a.clone(), "change"), (b, "add")]);
        assert!(watch.changes().is_empty(), "reported once");
        std::fs::remove_file(&a).unwrap();
        assert_eq!(watch.changes(), vec![(a, "unlink")]);
    }
}
