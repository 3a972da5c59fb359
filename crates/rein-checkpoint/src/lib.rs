//! File checkpoints, as Claude Code keeps them for rewind: before Write, Edit, MultiEdit
//! or NotebookEdit changes a file, what it held (or that it did not exist) is saved once
//! per turn — the blob under `objects/<sha256>`, the fact as a line of `index.jsonl`,
//! both in the session's directory, so checkpoints survive `--resume`. After each
//! change the store notes the content rein left, so that a rewind can tell a file
//! changed outside rein since (by a command, an editor) and ask before overwriting it.
//! Bash changes are not tracked.

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
    /// Before turn `turn` changed `path`, it held `blob` (`None`: it did not exist).
    Before { turn: usize, path: PathBuf, blob: Option<String> },
    /// rein left `path` holding `blob` (`None`: deleted).
    After { path: PathBuf, blob: Option<String> },
    /// Checkpoints of `turn` and later no longer apply.
    Forget { turn: usize },
}

#[derive(Debug, Default)]
struct State {
    turn: usize,
    /// Paths saved in the current turn.
    saved: HashSet<PathBuf>,
    befores: Vec<(usize, PathBuf, Option<String>)>,
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
            Line::Before { turn, path, blob } => {
                if turn == self.turn {
                    self.saved.insert(path.clone());
                }
                self.befores.push((turn, path, blob));
            }
            Line::After { path, blob } => {
                self.after.insert(path, blob);
            }
            Line::Forget { turn } => {
                self.befores.retain(|(t, _, _)| *t < turn);
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
}

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
        Checkpoints { dir: dir.to_path_buf(), state: Mutex::new(state) }
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

    fn current(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
        match std::fs::read(path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The files a rewind to before `turn` would restore, with the content each gets
    /// back (`None`: removed).
    fn plan(state: &State, turn: usize) -> Vec<(PathBuf, Option<String>)> {
        let mut plan: Vec<(PathBuf, Option<String>)> = Vec::new();
        for (t, path, blob) in &state.befores {
            if *t >= turn && !plan.iter().any(|(p, _)| p == path) {
                plan.push((path.clone(), blob.clone()));
            }
        }
        plan
    }

    /// The files a rewind to before `turn` would overwrite although they changed
    /// outside rein since its last write.
    pub fn changed_outside(&self, turn: usize) -> Vec<PathBuf> {
        let state = self.lock();
        Self::plan(&state, turn)
            .into_iter()
            .filter(|(path, _)| {
                let now = Self::current(path).ok().flatten().map(|b| hash(&b));
                state.after.get(path).is_some_and(|left| *left != now)
            })
            .map(|(p, _)| p)
            .collect()
    }

    /// The turns that have checkpoints, and how many files each changed.
    pub fn turns(&self) -> Vec<(usize, usize)> {
        let state = self.lock();
        let mut out: Vec<(usize, usize)> = Vec::new();
        for (t, _, _) in &state.befores {
            match out.iter_mut().find(|(x, _)| x == t) {
                Some(e) => e.1 += 1,
                None => out.push((*t, 1)),
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
        let mut state = self.lock();
        if state.saved.contains(path) {
            return;
        }
        let saved = Self::current(path).and_then(|bytes| bytes.map(|b| self.store(&b)).transpose());
        let turn = state.turn;
        let result =
            saved.and_then(|blob| self.record(&mut state, Line::Before { turn, path: path.to_path_buf(), blob }));
        if let Err(e) = result {
            tracing::warn!(path = %path.display(), error = %e, "could not save a checkpoint");
        }
    }

    fn after_write(&self, path: &Path) {
        let mut state = self.lock();
        let blob = Self::current(path).ok().flatten().map(|b| hash(&b));
        if let Err(e) = self.record(&mut state, Line::After { path: path.to_path_buf(), blob }) {
            tracing::warn!(path = %path.display(), error = %e, "could not note a write");
        }
    }

    fn turn_of(&self, id: &str) -> Option<usize> {
        self.lock().ids.get(id).copied()
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
        for (path, blob) in &plan {
            match blob {
                Some(name) => {
                    let bytes = std::fs::read(self.dir.join("objects").join(name)).map_err(io)?;
                    if let Some(parent) = path.parent() {
                        std::fs::create_dir_all(parent).map_err(io)?;
                    }
                    write_fresh_then_rename(path, &bytes).map_err(io)?;
                }
                None => match std::fs::remove_file(path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io(e)),
                },
            }
            self.record(&mut state, Line::After { path: path.clone(), blob: blob.clone() }).map_err(io)?;
        }
        self.record(&mut state, Line::Forget { turn }).map_err(io)?;
        Ok(plan.into_iter().map(|(p, _)| p).collect())
    }

    fn forget_from(&self, turn: usize) {
        let mut state = self.lock();
        if let Err(e) = self.record(&mut state, Line::Forget { turn }) {
            tracing::warn!(error = %e, "could not drop checkpoints");
        }
    }
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

/// Put `bytes` at `path`: written to a new file beside it (created, never opened if
/// something is already there: a link a command planted under a name it could
/// predict is not followed), then renamed over it.
fn write_fresh_then_rename(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent directory"))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    for _ in 0..16 {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.rein-rewind-{}-{nanos:x}-{n}.tmp", std::process::id()));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp);
        let mut file = match file {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let done = file.write_all(bytes).and_then(|_| std::fs::rename(&tmp, path));
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        return done;
    }
    Err(std::io::Error::other("no fresh name for the rewound file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(store: &Checkpoints, path: &Path, text: &str) {
        store.before_write(path);
        std::fs::write(path, text).unwrap();
        store.after_write(path);
    }

    #[test]
    fn rewinding_restores_each_file_to_before_the_turn_and_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.txt"), dir.path().join("b.txt"));
        std::fs::write(&a, "a0").unwrap();
        let store = Checkpoints::open(&dir.path().join("cp"));
        store.begin_turn(0, &["u0".into()]);
        write(&store, &a, "a1");
        write(&store, &a, "a1b");
        store.begin_turn(1, &["u1".into()]);
        write(&store, &a, "a2");
        write(&store, &b, "b2");
        store.begin_turn(2, &["u2".into()]);
        write(&store, &b, "b3");
        // A new process of the same session.
        let store = Checkpoints::open(&dir.path().join("cp"));
        assert_eq!(store.turn_of("u1"), Some(1));
        assert_eq!(store.rewind(1, false).unwrap().len(), 2);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a1b");
        assert!(!b.exists(), "b did not exist before turn 1");
        assert_eq!(store.turn_of("u2"), None, "later turns are forgotten");
        assert_eq!(store.rewind(0, false).unwrap(), vec![a.clone()]);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a0");
    }

    #[test]
    fn a_file_changed_outside_rein_is_not_overwritten_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        let store = Checkpoints::open(&dir.path().join("cp"));
        store.begin_turn(0, &[]);
        write(&store, &a, "mine");
        std::fs::write(&a, "edited by hand").unwrap();
        assert_eq!(store.rewind(0, false), Err(RewindError::ChangedOutside(vec![a.clone()])));
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "edited by hand");
        assert_eq!(store.rewind(0, true).unwrap(), vec![a.clone()]);
        assert!(!a.exists());
    }
}
