//! The checkpoint seam: before a file tool changes a file (a call whose effects say
//! `edits_files`; a confined Bash command's changes through the sandbox), the session's checkpoint
//! store saves what it held (once per turn), and notes what rein left there after; a
//! rewind restores files to their state before a chosen prompt. The store itself is
//! `rein-checkpoint`; tools and the chain only see this trait.

use std::path::{Path, PathBuf};

/// Why a rewind did not happen.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RewindError {
    /// These files changed outside rein since its last write: overwriting them needs a
    /// yes from the person.
    #[error("changed outside rein since the checkpoint: {}", list(.0))]
    ChangedOutside(Vec<PathBuf>),
    #[error("no checkpoint for that message")]
    UnknownMessage,
    #[error("the checkpoint store failed: {0}")]
    Store(String),
}

fn list(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// A session's file checkpoints. Turns are prompt ordinals: the first prompt of the
/// conversation is turn 0.
pub trait FileCheckpoints: Send + Sync + std::fmt::Debug {
    /// A prompt starts turn `turn`; `ids` name its message (transcript or SDK uuids).
    fn begin_turn(&self, turn: usize, ids: &[String]);
    /// `path` is about to be changed: save what it holds (once per turn).
    fn before_write(&self, path: &Path);
    /// rein finished changing `path`.
    fn after_write(&self, path: &Path);
    /// [`before_write`](Self::before_write) for a path already resolved, with no link
    /// on the way (what a command is changing): a link found there since means nothing
    /// is read.
    fn before_write_exact(&self, path: &Path) {
        self.before_write(path);
    }
    /// [`after_write`](Self::after_write) for a path as
    /// [`before_write_exact`](Self::before_write_exact) takes it.
    fn after_write_exact(&self, path: &Path) {
        self.after_write(path);
    }
    /// The turn a message id began.
    fn turn_of(&self, id: &str) -> Option<usize>;
    /// Restore every checkpointed file to its state before `turn`; unless `force`,
    /// refuse when one changed outside rein. Returns the files restored.
    fn rewind(&self, turn: usize, force: bool) -> Result<Vec<PathBuf>, RewindError>;
    /// The conversation went back to before `turn` (or was compacted and renumbered):
    /// the checkpoints of `turn` and later are dropped.
    fn forget_from(&self, turn: usize);
    /// Where the store keeps what it saves, if on disk.
    /// Each file the session changed, with what it held before its first change
    /// (`None`: it did not exist), in the order first changed (`/diff`).
    fn first_versions(&self) -> Vec<(PathBuf, Option<Vec<u8>>)> {
        Vec::new()
    }

    fn store_dir(&self) -> Option<&Path> {
        None
    }
}

/// The session's checkpoints as the sandbox's keeper of what a confined command changes.
pub(crate) struct Recorded(pub(crate) std::sync::Arc<dyn FileCheckpoints>);

impl rein_sandbox::WriteRecorder for Recorded {
    fn before(&self, path: &Path) {
        self.0.before_write_exact(path);
    }

    fn after(&self, path: &Path) {
        self.0.after_write_exact(path);
    }

    fn store_dir(&self) -> Option<&Path> {
        self.0.store_dir()
    }
}
