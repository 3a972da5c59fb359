//! A background session's record, `state.json` in its folder: what it was asked, where it
//! works, how it stands, what it said last and what it cost. The session itself keeps it
//! up to date as it works ([`crate::Reporter`]); the host records how it ended. Every
//! write replaces the file whole (a new file renamed over it), under the folder's state
//! lock, so a reader never sees half a record.

use std::fs::File;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::JobError;

/// How a background session stands, as it last said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Its host has started it; it has not begun a turn yet.
    Starting,
    /// A turn is running.
    Working,
    /// It waits for a person: a permission question is open.
    Blocked,
    /// It answered and waits for the next message.
    Done,
    /// `rein stop` ended it.
    Stopped,
    /// Its process ended by itself.
    Exited,
    /// Its process ended with an error.
    Failed,
}

/// The record of one background session.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    /// Eight hex digits.
    pub id: String,
    /// Given with `--name`, else the first words of the prompt.
    pub name: String,
    /// The prompt it was started with.
    pub intent: String,
    /// Where it was started.
    pub cwd: PathBuf,
    /// rein's flags for the session (without the prompt), reused when it is resumed.
    pub args: Vec<String>,
    pub status: Status,
    /// What it is doing or waits for, in a line.
    #[serde(default)]
    pub detail: String,
    /// Its last answer (the beginning of it).
    #[serde(default)]
    pub output: String,
    #[serde(default)]
    pub session_id: String,
    /// Where the session works (its worktree, when it made one).
    #[serde(default)]
    pub workdir: Option<PathBuf>,
    /// The conversation's transcript.
    #[serde(default)]
    pub transcript: Option<PathBuf>,
    /// What its turns cost so far, in US dollars.
    #[serde(default)]
    pub cost_usd: f64,
    #[serde(default)]
    pub host_pid: Option<u32>,
    /// The session's own process, once it is ready to be drawn again on request.
    #[serde(default)]
    pub session_pid: Option<u32>,
    #[serde(default)]
    pub exit_code: Option<i32>,
    /// Milliseconds since the Unix epoch.
    pub created_at: u64,
    pub updated_at: u64,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// The record in `dir`.
pub(crate) fn read(dir: &Path) -> Result<State, JobError> {
    let path = dir.join("state.json");
    let text = std::fs::read_to_string(&path).map_err(|e| JobError::io(&path, e))?;
    serde_json::from_str(&text).map_err(|e| JobError::Corrupt { path, reason: e.to_string() })
}

/// Replace the record in `dir` with `state` (a new file renamed over the old one).
pub(crate) fn write(dir: &Path, state: &State) -> Result<(), JobError> {
    let path = dir.join("state.json");
    let text = serde_json::to_vec_pretty(state)
        .map_err(|e| JobError::Corrupt { path: path.clone(), reason: e.to_string() })?;
    // An unpredictable name, created new: a planted link cannot redirect the write.
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| JobError::io(dir, e))?;
    std::io::Write::write_all(&mut file, &text).map_err(|e| JobError::io(&path, e))?;
    file.persist(&path).map_err(|e| JobError::io(&path, e.error))?;
    Ok(())
}

/// The lock file at `path`, made when missing (its content is never read).
pub(crate) fn lock_file(path: &Path) -> Result<File, JobError> {
    File::options().create(true).truncate(false).write(true).open(path).map_err(|e| JobError::io(path, e))
}

/// Change the record in `dir` with `change`, under the folder's state lock (the session
/// and its host both write it); the record as written.
pub(crate) fn update(dir: &Path, change: impl FnOnce(&mut State)) -> Result<State, JobError> {
    let lock_path = dir.join("state.lock");
    let lock = lock_file(&lock_path)?;
    lock.lock().map_err(|e| JobError::io(&lock_path, e))?;
    let mut state = read(dir)?;
    change(&mut state);
    state.updated_at = now_ms();
    write(dir, &state)?;
    Ok(state)
}
