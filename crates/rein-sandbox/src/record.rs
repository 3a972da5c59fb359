//! Recorded runs: what a confined command changes in the write roots is kept for rewind
//! (through a [`WriteRecorder`], the session's checkpoints), so that a rewind restores
//! what a Bash command changed or deleted, like the file tools' edits. Two ways:
//! - a foreground command in Tier A writes through a copy-on-write layer (the trial's
//!   overlay, with the powers of its profile), and its changes are made on the host
//!   when it ends ([`Sandbox::finish`]) — each file kept, then moved into place, a
//!   removal made;
//! - elsewhere (a background command, whose writes must show as it makes them; Tier B;
//!   a workspace that cannot be overlaid, or has no place for a layer on its own
//!   filesystem) the command writes the host directly and each file is kept just
//!   before its first change in a turn (`watch`).
//!
//! Recording never stops a command: where neither way works it writes unrecorded.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::trial::{Change, Layer, TrialDir, make_layers};
use crate::{After, Sandbox};

/// Where the pre-images of a command's writes go (the session's checkpoints).
pub trait WriteRecorder: Send + Sync {
    /// `path` is about to change: keep what it holds (or that nothing is there).
    fn before(&self, path: &Path);
    /// The command that changed `path` is done with it.
    fn after(&self, path: &Path);
    /// Where the recorder keeps what it saves, if on disk.
    fn store_dir(&self) -> Option<&Path> {
        None
    }
}

/// Files larger than this are not kept (a build's large outputs are not worth keeping
/// twice); nor more than [`MAX_FILES`] per command.
pub(crate) const MAX_BYTES: u64 = 16 << 20;
pub(crate) const MAX_FILES: usize = 20_000;

/// A recorded run's layers, its changes once read, and where their pre-images go.
pub(crate) struct Recording {
    pub(crate) dir: TrialDir,
    changes: Option<Vec<Change>>,
    recorder: std::sync::Arc<dyn WriteRecorder>,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl Recording {
    pub(crate) fn new(dir: TrialDir, recorder: std::sync::Arc<dyn WriteRecorder>) -> Recording {
        Recording { dir, changes: None, recorder }
    }

    fn changes(&mut self) -> &[Change] {
        self.changes.get_or_insert_with(|| crate::trial::collect(&self.dir))
    }
}

impl Sandbox {
    /// Layers for a recorded run of a command starting in `cwd`: one per workspace root,
    /// in a directory on the roots' own filesystem (the changes are then moved, not
    /// copied, into place). `None` where a run cannot be recorded.
    pub(crate) fn recording_layers(&self, cwd: &Path) -> Option<(tempfile::TempDir, Vec<Layer>)> {
        let paths = self.layers_of()?;
        let start = std::fs::canonicalize(cwd).ok()?;
        if !paths.iter().any(|p| start.starts_with(p)) {
            return None;
        }
        let dev = |p: &Path| std::fs::metadata(p).ok().map(|m| m.dev());
        let devices: Vec<_> = paths.iter().map(|p| dev(p)).collect::<Option<_>>()?;
        let shared = Some(self.base.clone());
        let cache = rein_process::env::os(rein_process::env::Var::XdgCacheHome)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .or_else(|| self.home().map(|h| h.join(".cache")))
            .map(|c| c.join("rein").join("layers"));
        // The layers' directory is the person's own, a directory itself (no link), and
        // out of every command's reach: no write root holds it (a command that could
        // write there could slip files into another run's layer).
        let base = [shared, cache].into_iter().flatten().find(|b| {
            if std::fs::symlink_metadata(b).is_err() && !make_private_dir(b) {
                return false;
            }
            let own = std::fs::symlink_metadata(b).is_ok_and(|m| m.is_dir() && m.uid() == crate::rustix_uid());
            let Ok(real) = std::fs::canonicalize(b) else { return false };
            let reachable = self.roots.iter().any(|r| real.starts_with(r) || r.starts_with(&real));
            own && !reachable && devices.iter().all(|x| Some(*x) == dev(&real))
        })?;
        make_layers(&base, "run-", paths).ok()
    }
}

/// Create `dir` (and its parents) with only the person's rights on the last one.
fn make_private_dir(dir: &Path) -> bool {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).is_ok()
}

impl Recording {
    /// The host files the changes will touch: at most [`MAX_FILES`], each no larger
    /// than [`MAX_BYTES`] before and after.
    fn kept_files(&mut self) -> Vec<PathBuf> {
        let small = |p: &Path| std::fs::symlink_metadata(p).map_or(true, |m| m.len() <= MAX_BYTES);
        let new_small = |c: &Change| c.source().is_none_or(small);
        let changes = self.changes();
        let big: std::collections::HashSet<&Path> =
            changes.iter().filter(|c| !new_small(c)).map(|c| c.path.as_path()).collect();
        let mut files = crate::trial::touched_files(changes);
        files.retain(|f| !big.contains(f.as_path()) && small(f));
        files.truncate(MAX_FILES);
        files
    }
}

impl After {
    /// Make a recorded run's changes on the host (once), each file kept first: the lines
    /// to report for those that could not be made.
    pub(crate) fn apply_recorded(&mut self) -> Vec<String> {
        if let Some(watch) = &self.watch {
            watch.settle();
        }
        let Some(mut rec) = self.recording.take() else { return Vec::new() };
        let files = rec.kept_files();
        files.iter().for_each(|f| rec.recorder.before(f));
        let changes = rec.changes.as_deref().unwrap_or_default();
        let lines = crate::trial::apply_recorded(&rec.dir, changes).1;
        files.iter().for_each(|f| rec.recorder.after(f));
        lines
    }
}
