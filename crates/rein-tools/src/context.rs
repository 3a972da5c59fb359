//! The runtime every tool call receives ([`ToolContext`]): working directory, home,
//! workspace roots, session directory, the abort token, and the files read so far.

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

impl FileIdentity {
    /// The identity of `bytes`, last modified at `modified`.
    pub fn of(modified: Option<SystemTime>, bytes: &[u8]) -> Self {
        FileIdentity { modified, size: bytes.len() as u64, hash: fnv1a(bytes) }
    }
}

/// A fast content fingerprint (FNV-1a, 64 bit).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// Files read in this session, by canonical path.
#[derive(Debug, Clone, Default)]
pub struct FileStateCache(Arc<Mutex<HashMap<PathBuf, (FileIdentity, u64)>>>);

impl FileStateCache {
    pub fn record(&self, path: PathBuf, identity: FileIdentity) {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let seq = map.values().map(|(_, s)| *s).max().unwrap_or(0) + 1;
        map.insert(path, (identity, seq));
    }

    /// Every path read or written so far, the most recent last.
    pub fn paths(&self) -> Vec<PathBuf> {
        let map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let mut v: Vec<(&PathBuf, u64)> = map.iter().map(|(p, (_, s))| (p, *s)).collect();
        v.sort_by_key(|(_, s)| *s);
        v.into_iter().map(|(p, _)| p.clone()).collect()
    }

    pub fn get(&self, path: &Path) -> Option<FileIdentity> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).get(path).map(|(i, _)| i.clone())
    }
}

/// The runtime every tool call receives. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The session's working directory.
    pub cwd: PathBuf,
    /// The user's home directory, for `~` in paths.
    pub home: Option<PathBuf>,
    /// Directories the session may write in: cwd plus `--add-dir`s.
    pub workspace_roots: Vec<PathBuf>,
    /// Where this session keeps its own files (spilled results, logs).
    pub session_dir: PathBuf,
    /// Cancelled when the user interrupts; tools stop promptly.
    pub abort: CancellationToken,
    pub file_state: FileStateCache,
    /// Files the policy forbids reading: walks (Grep, Glob) leave them out.
    pub read_guard: Option<std::sync::Arc<dyn rein_effects::ReadGuard>>,
    /// The session's file checkpoints (what file tools change can be rewound).
    pub checkpoints: Option<std::sync::Arc<dyn crate::FileCheckpoints>>,
    /// What the engine running the call offers the tools defined above this crate
    /// (Agent's model and gate, the policy ExitPlanMode changes); empty outside an
    /// engine. Read it with [`ToolContext::engine`].
    pub engine: EngineSlot,
    /// Where the session shell is now (a `cd` in a Bash command moves it), and where it
    /// was last reported: CwdChanged hooks fire on the difference.
    pub shell_dir: ShellDir,
    /// Who reads a fetched page and answers WebFetch's prompt from it (the small fast
    /// model); `None` returns the page itself.
    pub digest: Option<Arc<dyn crate::PageDigest>>,
    /// The persistent memory's directory: the file tools may write the Markdown files
    /// directly in it, outside the workspace too.
    pub memory_dir: Option<PathBuf>,
    /// What the permission decision granted this call (a shell command runs with these
    /// powers); set by the chain just before the call runs.
    pub grant: rein_effects::Grant,
    /// Set when the call is to be tried first (Bash): it runs where it can change
    /// nothing and leaves what it did here, for the permission stage to keep or drop.
    pub trial: Option<crate::TrialSlot>,
    /// Where a call that runs an agent reports its steps while it runs; set by the
    /// executor for each call it starts.
    pub steps: Option<crate::StepSink>,
    /// The session's language servers, which report what a file tool's change brought
    /// (the chain adds it to the result); `None` without any.
    pub diagnostics: Option<Arc<dyn crate::FileDiagnostics>>,
}

/// The session shell's directory, shared by every clone of a context.
#[derive(Debug, Clone, Default)]
pub struct ShellDir(Arc<Mutex<(Option<PathBuf>, Option<PathBuf>)>>);

impl ShellDir {
    /// The shell's directory after a command (`None` before any).
    pub fn set(&self, dir: PathBuf) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).0 = Some(dir);
    }

    /// The shell's directory, once a command has run.
    pub fn get(&self) -> Option<PathBuf> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).0.clone()
    }

    /// `(old, new)` when the shell has moved since the last report (from `start` at
    /// first), and mark it reported.
    pub fn take_change(&self, start: &Path) -> Option<(PathBuf, PathBuf)> {
        let mut g = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let now = g.0.clone()?;
        let old = g.1.clone().unwrap_or_else(|| start.to_path_buf());
        g.1 = Some(now.clone());
        (old != now).then_some((old, now))
    }
}

/// The engine's services for its own tools, typed by the crate that defines them.
#[derive(Clone, Default)]
pub struct EngineSlot(Option<Arc<dyn std::any::Any + Send + Sync>>);

impl EngineSlot {
    pub fn new<T: std::any::Any + Send + Sync>(services: T) -> Self {
        EngineSlot(Some(Arc::new(services)))
    }
}

impl std::fmt::Debug for EngineSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "EngineSlot(set)" } else { "EngineSlot(empty)" })
    }
}

impl ToolContext {
    pub fn new(cwd: PathBuf, session_dir: PathBuf) -> Self {
        ToolContext {
            workspace_roots: vec![cwd.clone()],
            cwd,
            home: None,
            session_dir,
            abort: CancellationToken::new(),
            file_state: FileStateCache::default(),
            read_guard: None,
            checkpoints: None,
            engine: EngineSlot::default(),
            shell_dir: ShellDir::default(),
            digest: None,
            memory_dir: None,
            grant: rein_effects::Grant::User,
            trial: None,
            steps: None,
            diagnostics: None,
        }
    }

    /// The running engine's services of type `T`, if an engine of that kind runs the call.
    pub fn engine<T: std::any::Any>(&self) -> Option<&T> {
        self.engine.0.as_ref().and_then(|s| s.downcast_ref::<T>())
    }

    /// `path` made absolute against the working directory.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() { p.to_path_buf() } else { self.cwd.join(p) }
    }

    /// Whether the policy forbids reading `path` (inode `ino`, when known).
    pub fn read_denied(&self, path: &Path, ino: Option<u64>) -> bool {
        self.read_guard.as_ref().is_some_and(|g| g.denies(path, ino))
    }

    /// `path` as an effect: absolute (`~` expanded) and resolved as the kernel resolves
    /// it — symlinks followed where they are met, `..` applied to the real directory —
    /// so that the rules check the file the tool opens (`x/link/../f` is where the link
    /// points, not `x/f`). A dangling link keeps the path as written, normalised.
    pub fn effect_path(&self, path: &str) -> PathBuf {
        let joined = rein_effects::joined(path, &self.cwd, self.home.as_deref());
        rein_effects::kernel_path(&joined)
            .unwrap_or_else(|_| rein_effects::absolute(path, &self.cwd, self.home.as_deref()))
    }
}
