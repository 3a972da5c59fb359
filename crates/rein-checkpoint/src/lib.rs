//! File checkpoints, as Claude Code keeps them for rewind: before Write, Edit, MultiEdit
//! or NotebookEdit changes a file, what it held (or that it did not exist) is saved once
//! per turn — the blob under `objects/<sha256>`, the fact as a line of `index.jsonl`,
//! both in the session's directory, so checkpoints survive `--resume`. After each
//! change the store notes the content rein left, so that a rewind can tell a file
//! changed outside rein since (by a command, an editor) and ask before overwriting it.
//! A confined Bash command's changes are too (`rein_sandbox::record`): made from its
//! layer when it ends, or kept as it makes them.
//! Files are read without following a link, and a rewind writes only through
//! directories with no link on the way (`safe`).

mod safe;

use std::collections::{HashMap, HashSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rein_tools::{FileCheckpoints, RewindError};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One line of the index.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Line {
    /// Turn `turn` began; `ids` name its prompt.
    Turn { turn: usize, ids: Vec<String> },
    /// Before turn `turn` changed `path`, it held `blob` (`None`: it did not exist),
    /// with permission bits `mode` (absent in indexes written before modes were kept).
    Before {
        turn: usize,
        path: PathBuf,
        blob: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<u32>,
        /// Kept as a command changed the file (not a file tool): a rewind never writes
        /// it where the sandbox holds the path by then.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        command: bool,
    },
    /// rein left `path` holding `blob` (`None`: deleted).
    After { path: PathBuf, blob: Option<String> },
    /// Checkpoints of `turn` and later no longer apply.
    Forget { turn: usize },
}

/// What a path held before a turn changed it.
#[derive(Debug, Clone)]
struct Before {
    turn: usize,
    path: PathBuf,
    blob: Option<String>,
    mode: Option<u32>,
    command: bool,
}

#[derive(Debug, Default)]
struct State {
    turn: usize,
    /// Paths saved in the current turn.
    saved: HashSet<PathBuf>,
    befores: Vec<Before>,
    ids: HashMap<String, usize>,
    after: HashMap<PathBuf, Option<String>>,
}

impl State {
    fn apply(&mut self, line: Line) {
        match line {
            Line::Turn { turn, ids } => {
                self.turn = turn;
                self.saved.clear();
                for id in ids {
                    self.ids.insert(id, turn);
                }
            }
            Line::Before { turn, path, blob, mode, command } => {
                if turn == self.turn {
                    self.saved.insert(path.clone());
                }
                self.befores.push(Before { turn, path, blob, mode, command });
            }
            Line::After { path, blob } => {
                self.after.insert(path, blob);
            }
            Line::Forget { turn } => {
                self.befores.retain(|b| b.turn < turn);
                self.ids.retain(|_, t| *t < turn);
                self.saved.clear();
            }
        }
    }
}

/// The checkpoints of one session.
#[derive(Debug)]
pub struct Checkpoints {
    dir: PathBuf,
    state: Mutex<State>,
    /// The workspace roots, whose protected paths a rewind looks for afresh.
    roots: std::sync::OnceLock<Vec<PathBuf>>,
}

/// `path` with the links of its existing directories resolved (the deepest that exists,
/// canonical, and the rest as written): what a rewind later opens with no link followed.
fn real(path: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir {
        if let Ok(c) = std::fs::canonicalize(d) {
            let mut out = c;
            out.extend(rest.iter().rev());
            return path.file_name().map_or(out.clone(), |n| out.join(n));
        }
        rest.extend(d.file_name());
        dir = d.parent();
    }
    path.to_path_buf()
}

/// Whether writing `path` (its missing directories made on the way) would make one of
/// the directories above it a git directory: a repository armed with a config or hooks
/// a command left behind, which the sandbox's guard never saw made (it is not a
/// repository at any moment a command runs). A rewind does not write such a file.
fn arms_a_repository(path: &Path) -> bool {
    const GIT_PARTS: [&str; 4] = ["HEAD", "objects", "refs", "commondir"];
    path.ancestors().skip(1).zip(path.ancestors()).any(|(dir, entry)| {
        let name = entry.file_name().unwrap_or_default();
        let made_git_dir = name == ".git" && entry != path && std::fs::symlink_metadata(entry).is_err();
        made_git_dir || GIT_PARTS.iter().any(|p| name == *p) && rein_sandbox::plan::would_become_git_dir(dir, name)
    })
}

/// What the sandbox holds in the workspace at the time of a rewind: a command's record
/// is never written there (a repository or an included config made since, a name
/// protected wherever it is), whatever the command left in it earlier.
struct Held<'a> {
    roots: &'a [PathBuf],
    found: Option<rein_sandbox::plan::Found>,
}

impl<'a> Held<'a> {
    /// Looked for only when the rewind has something to write.
    fn now(roots: Option<&'a Vec<PathBuf>>, needed: bool) -> Held<'a> {
        let roots = roots.map_or(&[][..], Vec::as_slice);
        let found = (needed && !roots.is_empty()).then(|| rein_sandbox::plan::protected_names(roots, &[]));
        Held { roots, found }
    }

    /// Whether a record of `path` is not written back: one kept as a command changed
    /// it, anywhere the sandbox holds now; a file tool's, inside a repository (its
    /// pre-image may be what a command left in a directory that became a repository
    /// since — a config arming a program). A file tool's record of a protected file
    /// (settings the person approved editing) is rewound.
    fn holds(&self, path: &Path, command: bool) -> bool {
        // Below the root holding the path (a workspace inside `~/.config` is not held
        // whole); every ancestor when the roots are not known.
        let root = self.roots.iter().find(|r| path.starts_with(r));
        let mut below = path.ancestors().take_while(|a| root.is_none_or(|r| *a != r.as_path()));
        let found = self.found.as_ref();
        below.any(|a| {
            let repo = found.is_some_and(|f| f.repos.contains(a)) || rein_sandbox::plan::is_git_dir(a);
            let protected = found.is_some_and(|f| f.protected.contains(a)) || rein_sandbox::plan::is_protected_name(a);
            repo || command && protected
        })
    }
}

/// What the index notes for a path that holds something other than a regular file.
const NOT_A_FILE: &str = "-";

fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

impl Checkpoints {
    /// The store in `dir` (made on first use), with what an earlier run of the session
    /// saved there.
    pub fn open(dir: &Path) -> Checkpoints {
        let mut state = State::default();
        if let Ok(text) = std::fs::read_to_string(dir.join("index.jsonl")) {
            // A torn last line (a crash) is skipped; the rest stands.
            for line in text.lines().filter_map(|l| serde_json::from_str::<Line>(l).ok()) {
                state.apply(line);
            }
        }
        Checkpoints { dir: dir.to_path_buf(), state: Mutex::new(state), roots: std::sync::OnceLock::new() }
    }

    /// The workspace roots: a rewind looks for what the sandbox holds in them (the first
    /// call counts).
    pub fn with_roots(self, roots: Vec<PathBuf>) -> Checkpoints {
        let _ = self.roots.set(roots);
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn record(&self, state: &mut State, line: Line) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut text = serde_json::to_string(&line).map_err(std::io::Error::other)?;
        text.push('\n');
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(self.dir.join("index.jsonl"))?;
        f.write_all(text.as_bytes())?;
        state.apply(line);
        Ok(())
    }

    /// Save `bytes` as a blob; its name.
    fn store(&self, bytes: &[u8]) -> std::io::Result<String> {
        let name = hash(bytes);
        let objects = self.dir.join("objects");
        let path = objects.join(&name);
        if !path.exists() {
            std::fs::create_dir_all(&objects)?;
            let tmp = objects.join(format!(".{name}.{}.tmp", std::process::id()));
            std::fs::write(&tmp, bytes)?;
            std::fs::rename(&tmp, &path)?;
        }
        Ok(name)
    }

    /// What `path` holds now, as the index names it: a file's hash, `None` for nothing
    /// there, and [`NOT_A_FILE`] for a link, a directory or anything else not kept.
    fn now(path: &Path) -> Option<String> {
        match safe::read(path) {
            Ok(safe::Content::File(b, _)) => Some(hash(&b)),
            Ok(safe::Content::Absent) => None,
            _ => Some(NOT_A_FILE.to_string()),
        }
    }

    /// The files a rewind to before `turn` would restore, with what each gets back (its
    /// earliest pre-image of those turns; `blob` `None`: removed).
    fn plan(state: &State, turn: usize) -> Vec<Before> {
        let mut seen: HashSet<&Path> = HashSet::new();
        state.befores.iter().filter(|b| b.turn >= turn && seen.insert(b.path.as_path())).cloned().collect()
    }

    /// The files a rewind to before `turn` would overwrite although they changed
    /// outside rein since its last write.
    pub fn changed_outside(&self, turn: usize) -> Vec<PathBuf> {
        let state = self.lock();
        Self::plan(&state, turn)
            .into_iter()
            .filter(|b| state.after.get(&b.path).is_some_and(|left| *left != Self::now(&b.path)))
            .map(|b| b.path)
            .collect()
    }

    /// Save what `path` (no link on the way) holds, once per turn. A link, a FIFO, a
    /// directory: nothing is read through it, and nothing kept.
    fn keep_before(&self, path: &Path, command: bool) {
        let mut state = self.lock();
        if state.saved.contains(path) {
            return;
        }
        let saved = match safe::read(path) {
            Ok(safe::Content::File(bytes, mode)) => self.store(&bytes).map(|blob| (Some(blob), Some(mode))),
            Ok(safe::Content::Absent) => Ok((None, None)),
            Ok(safe::Content::Other) => return,
            Err(e) => Err(e),
        };
        let turn = state.turn;
        let result = saved.and_then(|(blob, mode)| {
            self.record(&mut state, Line::Before { turn, path: path.to_path_buf(), blob, mode, command })
        });
        if let Err(e) = result {
            tracing::warn!(path = %path.display(), error = %e, "could not save a checkpoint");
        }
    }

    /// Note what `path` holds now that rein is done changing it.
    fn note_after(&self, path: &Path) {
        let mut state = self.lock();
        let blob = Self::now(path);
        if let Err(e) = self.record(&mut state, Line::After { path: path.to_path_buf(), blob }) {
            tracing::warn!(path = %path.display(), error = %e, "could not note a write");
        }
    }

    /// The turns that have checkpoints, and how many files each changed.
    pub fn turns(&self) -> Vec<(usize, usize)> {
        let state = self.lock();
        let mut out: Vec<(usize, usize)> = Vec::new();
        for b in &state.befores {
            match out.iter_mut().find(|(x, _)| *x == b.turn) {
                Some(e) => e.1 += 1,
                None => out.push((b.turn, 1)),
            }
        }
        out
    }
}

impl FileCheckpoints for Checkpoints {
    fn begin_turn(&self, turn: usize, ids: &[String]) {
        let mut state = self.lock();
        if let Err(e) = self.record(&mut state, Line::Turn { turn, ids: ids.to_vec() }) {
            tracing::warn!(error = %e, "could not record a checkpoint turn");
        }
    }

    fn before_write(&self, path: &Path) {
        self.keep_before(&real(path), false);
    }

    fn after_write(&self, path: &Path) {
        self.note_after(&real(path));
    }

    fn before_write_exact(&self, path: &Path) {
        self.keep_before(path, true);
    }

    fn after_write_exact(&self, path: &Path) {
        self.note_after(path);
    }

    fn turn_of(&self, id: &str) -> Option<usize> {
        self.lock().ids.get(id).copied()
    }

    fn first_versions(&self) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        let state = self.lock();
        let mut seen = HashSet::new();
        state
            .befores
            .iter()
            .filter(|b| seen.insert(b.path.clone()) && b.blob.as_deref() != Some(NOT_A_FILE))
            .filter_map(|b| match &b.blob {
                None => Some((b.path.clone(), None)),
                // A blob that cannot be read is left out, not shown as a new file.
                Some(h) => {
                    std::fs::read(self.dir.join("objects").join(h)).ok().map(|bytes| (b.path.clone(), Some(bytes)))
                }
            })
            .collect()
    }

    fn rewind(&self, turn: usize, force: bool) -> Result<Vec<PathBuf>, RewindError> {
        if !force {
            let changed = self.changed_outside(turn);
            if !changed.is_empty() {
                return Err(RewindError::ChangedOutside(changed));
            }
        }
        let mut state = self.lock();
        let plan = Self::plan(&state, turn);
        let io = |e: std::io::Error| RewindError::Store(e.to_string());
        let mut restored = Vec::with_capacity(plan.len());
        let held = Held::now(self.roots.get(), !plan.is_empty());
        for Before { path, blob, mode, command, .. } in &plan {
            if blob.is_some() && arms_a_repository(path) {
                tracing::warn!(path = %path.display(), "not rewound: it would make a git directory");
                continue;
            }
            if held.holds(path, *command) {
                tracing::warn!(path = %path.display(), "not rewound: the sandbox holds it now");
                continue;
            }
            let failed = |e: std::io::Error| RewindError::Store(format!("{}: {e}", path.display()));
            match blob {
                // Only through directories with no link on the way (one planted since
                // stops the rewind, whatever `force` says); with the file's own mode.
                Some(name) => {
                    let bytes = std::fs::read(self.dir.join("objects").join(name)).map_err(io)?;
                    safe::write(path, &bytes, mode.unwrap_or(0o644)).map_err(failed)?;
                }
                None => safe::remove(path).map_err(failed)?,
            }
            self.record(&mut state, Line::After { path: path.clone(), blob: blob.clone() }).map_err(io)?;
            restored.push(path.clone());
        }
        self.record(&mut state, Line::Forget { turn }).map_err(io)?;
        Ok(restored)
    }

    fn store_dir(&self) -> Option<&Path> {
        Some(&self.dir)
    }

    fn forget_from(&self, turn: usize) {
        let mut state = self.lock();
        if let Err(e) = self.record(&mut state, Line::Forget { turn }) {
            tracing::warn!(error = %e, "could not drop checkpoints");
        }
    }
}

/// [`prune`], at most once a day: `sessions/.pruned` is touched when it runs (a person
/// with hundreds of sessions would otherwise pay a walk of them at every start).
pub fn prune_daily(sessions: &Path, days: u64, keep: &str) -> usize {
    let stamp = sessions.join(".pruned");
    let fresh = std::fs::metadata(&stamp)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| std::time::SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age < std::time::Duration::from_secs(86_400));
    if fresh {
        return 0;
    }
    let removed = prune(sessions, days, keep);
    let _ = std::fs::write(&stamp, b"");
    removed
}

/// Remove the session directories under `sessions` (their checkpoints and spilled
/// results) not used for `days` days (`cleanupPeriodDays`), except `keep` (the running
/// session's). Returns how many went.
pub fn prune(sessions: &Path, days: u64, keep: &str) -> usize {
    let Ok(entries) = std::fs::read_dir(sessions) else { return 0 };
    let max_age = std::time::Duration::from_secs(days.saturating_mul(86_400));
    let now = std::time::SystemTime::now();
    let mut removed = 0;
    for entry in entries.flatten() {
        let dir = entry.path();
        if entry.file_name() == keep || !dir.is_dir() {
            continue;
        }
        let last_used = [dir.clone(), dir.join("checkpoints").join("index.jsonl"), dir.join("tool-results")]
            .iter()
            .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
            .max();
        let old = last_used.and_then(|t| now.duration_since(t).ok()).is_some_and(|age| age > max_age);
        if old && std::fs::remove_dir_all(&dir).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod prune_tests {
    #[test]
    fn pruning_runs_once_a_day() -> std::io::Result<()> {
        let sessions = tempfile::tempdir()?;
        let old = sessions.path().join("old");
        std::fs::create_dir_all(&old)?;
        let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(10 * 86_400);
        std::fs::File::open(&old)?.set_modified(long_ago)?;
        assert_eq!(super::prune_daily(sessions.path(), 2, "current"), 1);
        std::fs::create_dir_all(&old)?;
        std::fs::File::open(&old)?.set_modified(long_ago)?;
        assert_eq!(super::prune_daily(sessions.path(), 2, "current"), 0, "the stamp is fresh");
        assert!(old.exists());
        Ok(())
    }
}
