//! Recorded runs: a confined command that may write the workspace writes it through a
//! copy-on-write layer (the trial's overlay, with the powers of its profile), and its
//! changes are made on the host when it ends ([`Sandbox::finish`]) — each file moved
//! into place, a removal made — after the caller saw which files they touch
//! ([`Sandbox::recorded_files`]) and checkpointed them. So a rewind restores what a
//! Bash command changed or deleted, like the file tools' edits.
//!
//! Where no layer can be made (not Tier A, the workspace cannot be overlaid, no place
//! for the layer on the workspace's own filesystem, a filesystem overlayfs refuses) the
//! command writes the workspace directly, as before: recording never stops a command.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use crate::trial::{Change, Layer, TrialDir, make_layers};
use crate::{After, Sandbox};

/// A recorded run's layers, and its changes once read.
#[derive(Debug)]
pub(crate) struct Recording {
    pub(crate) dir: TrialDir,
    changes: Option<Vec<Change>>,
}

impl Recording {
    pub(crate) fn new(dir: TrialDir) -> Recording {
        Recording { dir, changes: None }
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
        let shared = self.tmp.path().parent().map(Path::to_path_buf);
        let cache = std::env::var_os("XDG_CACHE_HOME")
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

    /// The host files a recorded command's changes will touch when
    /// [`finish`](Self::finish) makes them (none for a run that was not recorded): at
    /// most `max_files`, each no larger than `max_bytes` before and after (a build's
    /// large outputs are not worth keeping twice).
    pub fn recorded_files(&self, after: &mut After, max_bytes: u64, max_files: usize) -> Vec<PathBuf> {
        let Some(rec) = after.recording.as_mut() else { return Vec::new() };
        let small = |p: &Path| std::fs::symlink_metadata(p).map_or(true, |m| m.len() <= max_bytes);
        let new_small = |c: &Change| c.source().is_none_or(small);
        let changes = rec.changes();
        let big: std::collections::HashSet<&Path> =
            changes.iter().filter(|c| !new_small(c)).map(|c| c.path.as_path()).collect();
        let mut files = crate::trial::touched_files(changes);
        files.retain(|f| !big.contains(f.as_path()) && small(f));
        files.truncate(max_files);
        files
    }
}

/// Create `dir` (and its parents) with only the person's rights on the last one.
fn make_private_dir(dir: &Path) -> bool {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).is_ok()
}

impl After {
    /// Make a recorded run's changes on the host (once): the lines to report for those
    /// that could not be made.
    pub(crate) fn apply_recorded(&mut self) -> Vec<String> {
        let Some(mut rec) = self.recording.take() else { return Vec::new() };
        rec.changes();
        let changes = rec.changes.as_deref().unwrap_or_default();
        crate::trial::apply_recorded(&rec.dir, changes).1
    }
}
