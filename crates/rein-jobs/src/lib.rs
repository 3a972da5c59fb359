//! Background sessions (`rein --bg`): sessions that go on while the person does something
//! else, outlive the terminal that started them, and can be listed, followed, attached
//! to, stopped and removed.
//!
//! Each one has a folder under `REIN_HOME/jobs/<id>/` holding its record (`state.json`,
//! [`State`]), its host's lock and socket, and the host's own log. The **host**
//! ([`host`]) is a small detached process that runs an ordinary interactive session in a
//! pseudo-terminal of its own and keeps what it drew; a person **attaches**
//! ([`client`]) by connecting to the host's socket: what was drawn is replayed, keys go
//! to the session, and a key detaches again; several terminals may attach at once. The
//! session keeps its record current ([`Reporter`]): working, waiting for a person,
//! answered, with its cost. The host holds `host.lock` for as long as it lives, so a
//! session whose host died (killed, machine stopped) is seen as such, and attaching to
//! it resumes the conversation from its transcript.

#[cfg(unix)]
pub mod client;
#[cfg(unix)]
pub mod host;
#[cfg(unix)]
mod hub;
mod logs;
mod reporter;
mod state;
#[cfg(not(unix))]
mod unsupported;
#[cfg(unix)]
mod wire;
#[cfg(not(unix))]
pub use unsupported::{client, host};

use std::fs::File;
use std::path::{Path, PathBuf};

pub use logs::{printable, render_line, render_transcript};
pub use reporter::Reporter;
pub use state::{State, Status, now_ms};

/// The argument that makes the `rein` binary a host (`rein __rein-job-host DIR COLS ROWS`).
pub const HOST_ARG: &str = "__rein-job-host";

/// Why a background session could not be started, found or reached.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("{path}: {reason}")]
    Io { path: PathBuf, reason: String },
    #[error("{path} is not a background session's record: {reason}")]
    Corrupt { path: PathBuf, reason: String },
    #[error("no background session matches `{0}` (`rein agents` lists them)")]
    NotFound(String),
    #[error("`{query}` matches several background sessions: {}; say which", .matches.join(", "))]
    Ambiguous { query: String, matches: Vec<String> },
    #[error("background session {0} is not running")]
    NotRunning(String),
    #[error("background session {0} is already running")]
    AlreadyRunning(String),
    #[error("{0}")]
    Terminal(String),
}

impl JobError {
    pub(crate) fn io(path: &Path, e: impl std::fmt::Display) -> Self {
        JobError::Io { path: path.to_path_buf(), reason: e.to_string() }
    }
}

/// The folder of every background session of a person (`REIN_HOME/jobs`).
#[derive(Debug, Clone)]
pub struct Jobs {
    root: PathBuf,
}

/// One background session: its folder and its record as read.
#[derive(Debug, Clone)]
pub struct Job {
    pub dir: PathBuf,
    pub state: State,
}

/// What a person is told of a session in `rein agents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// A question waits for them.
    NeedsYou,
    /// Its host runs: working, starting, or answered and waiting for the next message.
    Running,
    /// Its host is gone: stopped, exited, or failed.
    Ended,
}

impl Jobs {
    /// The background sessions kept under `rein_home`.
    pub fn at(rein_home: &Path) -> Jobs {
        // Absolute: a session's host and the session itself find the folder from
        // elsewhere.
        let home = std::path::absolute(rein_home).unwrap_or_else(|_| rein_home.to_path_buf());
        Jobs { root: home.join("jobs") }
    }

    /// A new session's folder and record, not started yet.
    pub fn create(&self, name: &str, intent: &str, cwd: &Path, args: Vec<String>) -> Result<Job, JobError> {
        std::fs::create_dir_all(&self.root).map_err(|e| JobError::io(&self.root, e))?;
        // The person's alone: a session's socket takes keys that answer its questions.
        private(&self.root)?;
        loop {
            let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_string();
            let dir = self.root.join(&id);
            match std::fs::create_dir(&dir).and_then(|()| private(&dir).map_err(std::io::Error::other)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(JobError::io(&dir, e)),
            }
            let now = now_ms();
            let name = if name.trim().is_empty() { default_name(intent) } else { name.trim().to_string() };
            let state = State {
                id,
                name,
                intent: intent.to_string(),
                cwd: cwd.to_path_buf(),
                args,
                status: Status::Starting,
                detail: String::new(),
                output: String::new(),
                session_id: String::new(),
                workdir: None,
                transcript: None,
                cost_usd: 0.0,
                host_pid: None,
                session_pid: None,
                exit_code: None,
                created_at: now,
                updated_at: now,
            };
            state::write(&dir, &state)?;
            return Ok(Job { dir, state });
        }
    }

    /// Every session, newest first (a folder without a readable record is skipped).
    pub fn all(&self) -> Vec<Job> {
        let Ok(entries) = std::fs::read_dir(&self.root) else { return Vec::new() };
        let mut jobs: Vec<Job> = entries
            .flatten()
            .filter_map(|e| {
                let dir = e.path();
                state::read(&dir).ok().map(|state| Job { dir, state })
            })
            .collect();
        jobs.sort_by_key(|j| std::cmp::Reverse(j.state.created_at));
        jobs
    }

    /// The session `query` names: its id, the start of its id, or part of its name.
    pub fn find(&self, query: &str) -> Result<Job, JobError> {
        let all = self.all();
        if let Some(job) = all.iter().find(|j| j.state.id == query) {
            return Ok(job.clone());
        }
        let by_id: Vec<&Job> = all.iter().filter(|j| !query.is_empty() && j.state.id.starts_with(query)).collect();
        let found: Vec<&Job> = if by_id.is_empty() {
            let q = query.to_lowercase();
            all.iter().filter(|j| !q.is_empty() && j.state.name.to_lowercase().contains(&q)).collect()
        } else {
            by_id
        };
        match found.as_slice() {
            [] => Err(JobError::NotFound(query.to_string())),
            [one] => Ok((*one).clone()),
            many => Err(JobError::Ambiguous {
                query: query.to_string(),
                matches: many.iter().map(|j| format!("{} ({})", j.state.id, j.state.name)).collect(),
            }),
        }
    }

    /// How many sessions have a live host.
    pub fn running(&self) -> usize {
        self.all().iter().filter(|j| j.alive()).count()
    }
}

impl Job {
    /// Its host is alive: it holds the folder's host lock.
    pub fn alive(&self) -> bool {
        host_alive(&self.dir)
    }

    /// The record as it is now.
    pub fn reread(&self) -> Result<Job, JobError> {
        Ok(Job { dir: self.dir.clone(), state: state::read(&self.dir)? })
    }

    /// What `rein agents` says of it. A record that says it works while no host lives
    /// tells of a host that died: it counts as ended.
    pub fn standing(&self) -> Standing {
        if !self.alive() {
            return Standing::Ended;
        }
        match self.state.status {
            Status::Blocked => Standing::NeedsYou,
            _ => Standing::Running,
        }
    }

    /// Its status in a word, as listed: a dead host's unfinished record reads `failed`.
    pub fn status_word(&self) -> &'static str {
        let alive = self.alive();
        match self.state.status {
            Status::Starting if alive => "starting",
            Status::Working if alive => "working",
            Status::Blocked if alive => "needs you",
            Status::Done if alive => "done",
            Status::Stopped => "stopped",
            Status::Exited => "exited",
            Status::Done => "exited",
            Status::Failed | Status::Starting | Status::Working | Status::Blocked => "failed",
        }
    }

    /// The memory its session and its host hold now, in kB (their resident sets; Linux
    /// only, `None` elsewhere or when its host is gone).
    pub fn memory_kb(&self) -> Option<u64> {
        if !self.alive() {
            return None;
        }
        let rss = |pid: u32| -> Option<u64> {
            let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
            status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?.split_whitespace().next()?.parse().ok()
        };
        let pids = [self.state.host_pid, self.state.session_pid];
        let held: Vec<u64> = pids.into_iter().flatten().filter_map(rss).collect();
        (!held.is_empty()).then(|| held.iter().sum())
    }

    /// Change its record.
    pub fn update(&self, change: impl FnOnce(&mut State)) -> Result<State, JobError> {
        state::update(&self.dir, change)
    }

    /// Remove its folder (the conversation's transcript stays where it is).
    pub fn remove(self) -> Result<(), JobError> {
        std::fs::remove_dir_all(&self.dir).map_err(|e| JobError::io(&self.dir, e))
    }
}

/// Make `dir` the person's alone (mode 0700): nobody else may list it, read its records
/// or reach its socket.
fn private(dir: &Path) -> Result<(), JobError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| JobError::io(dir, e))?;
    }
    Ok(())
}

/// Whether a host holds the lock in `dir`.
fn host_alive(dir: &Path) -> bool {
    let Ok(file) = File::options().read(true).open(dir.join("host.lock")) else { return false };
    matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock))
}

/// A name from the prompt's first words.
fn default_name(intent: &str) -> String {
    let words: Vec<&str> = intent.split_whitespace().take(5).collect();
    let name = words.join(" ");
    if name.chars().count() > 40 { name.chars().take(40).collect::<String>() + "…" } else { name }
}

#[cfg(test)]
mod tests;
