//! Session transcripts that never lose work. Each session is an append-only JSONL file
//! under `~/.rein/projects/<sanitised cwd>/<session-id>.jsonl` (`REIN_HOME` moves
//! `~/.rein`), one line per message or event in Claude Code's line shape (`type`, `uuid`,
//! `parentUuid`, `sessionId`, `timestamp`, `cwd`, `message`), flushed line by line, so a
//! crash at any point leaves every acknowledged line on disk. Loading tolerates a torn
//! last line and rebuilds the conversation; the engine repairs dangling tool calls.

mod event;
mod load;
mod write;

use std::path::{Path, PathBuf};

pub use event::TranscriptEvent;
pub use load::{Loaded, SessionInfo, list_sessions, load};
pub use write::Transcript;

/// Why a transcript could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{path}: {reason}")]
    Io { path: String, reason: String },
    #[error("no session {0} for this directory (see `rein sessions`)")]
    NotFound(String),
}

impl SessionError {
    fn io(path: &Path, e: impl std::fmt::Display) -> Self {
        SessionError::Io { path: path.display().to_string(), reason: e.to_string() }
    }
}

/// The directory of a working directory's sessions: every non-alphanumeric character of
/// the absolute path becomes `-` (as Claude Code names its project directories).
pub fn project_dir(rein_home: &Path, cwd: &Path) -> PathBuf {
    let name: String = cwd.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    rein_home.join("projects").join(name)
}

/// The transcript file of a session.
pub fn transcript_path(rein_home: &Path, cwd: &Path, session_id: &str) -> PathBuf {
    project_dir(rein_home, cwd).join(format!("{session_id}.jsonl"))
}
