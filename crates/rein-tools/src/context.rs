use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tokio_util::sync::CancellationToken;

/// What rein knew of a file when a tool last read it, to notice later changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIdentity {
    pub modified: Option<SystemTime>,
    pub size: u64,
    pub hash: u64,
}

/// Files read in this session, by canonical path.
#[derive(Debug, Clone, Default)]
pub struct FileStateCache(Arc<Mutex<HashMap<PathBuf, FileIdentity>>>);

impl FileStateCache {
    pub fn record(&self, path: PathBuf, identity: FileIdentity) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(path, identity);
    }

    /// Every path read so far.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).keys().cloned().collect()
    }

    pub fn get(&self, path: &Path) -> Option<FileIdentity> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).get(path).cloned()
    }
}

/// The runtime every tool call receives. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session's working directory.
    pub cwd: PathBuf,
    /// Directories the session may write in: cwd plus `--add-dir`s.
    pub workspace_roots: Vec<PathBuf>,
    /// Where this session keeps its own files (spilled results, logs).
    pub session_dir: PathBuf,
    /// Cancelled when the user interrupts; tools stop promptly.
    pub abort: CancellationToken,
    pub file_state: FileStateCache,
}

impl ToolContext {
    pub fn new(cwd: PathBuf, session_dir: PathBuf) -> Self {
        ToolContext {
            workspace_roots: vec![cwd.clone()],
            cwd,
            session_dir,
            abort: CancellationToken::new(),
            file_state: FileStateCache::default(),
        }
    }

    /// `path` made absolute against the working directory.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() { p.to_path_buf() } else { self.cwd.join(p) }
    }
}
