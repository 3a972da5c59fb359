//! Making a layer's changes on the host, with the person's rights: every write goes
//! through its parent directory opened with no symbolic link followed (a command still
//! running could swap a directory on the way for a link to anywhere), a directory is made
//! open to its owner first and given its final mode after what goes in it, and a
//! recorded run never overwrites what changed on the host while it ran.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

use super::TrialDir;
use super::changes::{Change, ChangeKind, stamp};

/// Make a tried command's `changes` on the host, in order (removals of a path before what
/// replaces it, parents before children). Nothing is made when a path changed on the host
/// since the trial was read; otherwise it stops at the first that fails, saying which.
pub(super) fn apply(changes: &[Change]) -> Result<usize, ApplyError> {
    if let Some(c) = changes.iter().find(|c| c.kind != ChangeKind::Added && !c.is_dir && stamp(&c.path) != c.before) {
        return Err(ApplyError::ChangedSince(c.path.clone()));
    }
    let mut modes = Vec::new();
    for (done, c) in changes.iter().enumerate() {
        apply_one(c, false, &mut modes).map_err(|source| ApplyError::Failed {
            path: c.path.clone(),
            done,
            total: changes.len(),
            source,
        })?;
    }
    set_modes(modes).map_err(|(path, source)| ApplyError::Mode { path, source })?;
    Ok(changes.len())
}

/// Why a tried command's changes were not (all) made on the host.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error("{} changed since the command was tried; nothing was made (run it again)", .0.display())]
    ChangedSince(PathBuf),
    #[error("{}: {source} ({done} of {total} changes made)", path.display())]
    Failed { path: PathBuf, done: usize, total: usize, source: std::io::Error },
    #[error("{}: {source}", path.display())]
    Mode { path: PathBuf, source: std::io::Error },
}

/// Make a recorded run's `changes` on the host, each on its own. Not made: a change to a
/// protected path (the jail held those read-only), one to a path that changed on the host
/// while the command ran (the person's edit is kept), what lies below one that failed.
/// How many were made, and a line for each that was not.
pub(crate) fn apply_recorded(dir: &TrialDir, changes: &[Change]) -> (usize, Vec<String>) {
    let mut made = 0;
    let mut problems = Vec::new();
    let mut failed: Vec<&Path> = Vec::new();
    let mut modes = Vec::new();
    for c in changes {
        if failed.iter().any(|f| c.path.starts_with(f)) {
            continue;
        }
        let outcome = if c.protected {
            Err("a protected path; the command's change was not kept".to_string())
        } else if changed_while_running(dir, c) {
            Err("changed on the host while the command ran; the host's version is kept, the command's change \
                 was not made"
                .to_string())
        } else {
            apply_one(c, true, &mut modes).map_err(|e| e.to_string())
        };
        match outcome {
            Ok(()) => made += 1,
            Err(why) => {
                problems.push(format!("{}: {why}", c.path.display()));
                failed.push(&c.path);
            }
        }
    }
    if let Err((path, e)) = set_modes(modes) {
        problems.push(format!("{}: {e}", path.display()));
    }
    for lost in dir.lost_paths() {
        problems.push(format!("{}: could not be read back; what the command made there was not kept", lost.display()));
    }
    (made, problems)
}

/// Whether the host side of `c` changed after the run started (its change time is later
/// than the layers' clock at the start): for a removed directory, anything in it.
fn changed_while_running(dir: &TrialDir, c: &Change) -> bool {
    let Some(started) = dir.started else { return false };
    let after = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| (m.ctime(), m.ctime_nsec()) > started);
    match c.kind {
        ChangeKind::Removed if c.is_dir => any_below(&c.path, &after, 0),
        // A directory's own change time moves with every entry made in it.
        _ if c.is_dir => false,
        _ => after(&c.path),
    }
}

fn any_below(path: &Path, after: &dyn Fn(&Path) -> bool, depth: usize) -> bool {
    if after(path) {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(path) else { return false };
    entries.flatten().any(|e| match e.file_type() {
        Ok(t) if t.is_dir() && depth < 64 => any_below(&e.path(), after, depth + 1),
        _ => after(&e.path()),
    })
}

/// Make one change on the host; with `moving`, a file's new content is renamed out of its
/// layer when it can be (the layer is dropped afterwards). A directory's final mode is
/// left in `modes`, to be set once what goes in it is there.
fn apply_one(c: &Change, moving: bool, modes: &mut Vec<(PathBuf, u32)>) -> std::io::Result<()> {
    match (c.kind, &c.source) {
        (ChangeKind::Removed, _) => {
            if std::fs::symlink_metadata(&c.path).is_ok() && !crate::nofollow::remove(&c.path) {
                return Err(std::io::Error::other("could not remove it"));
            }
        }
        (_, Some(source)) if c.is_dir => {
            let mode = std::fs::symlink_metadata(source).map(|m| m.mode()).unwrap_or(0o755);
            crate::nofollow::make_dir(&c.path)?;
            crate::nofollow::set_dir_mode(&c.path, 0o700)?;
            // No setuid, setgid or sticky bit comes back from a layer.
            modes.push((c.path.clone(), mode & 0o777));
        }
        (_, Some(_)) if c.link.is_some() => {
            crate::nofollow::make_link(c.link.as_deref().unwrap_or(Path::new("")), &c.path)?;
        }
        (_, Some(source)) => {
            if moving && crate::nofollow::move_into(source, &c.path).is_ok() {
                return Ok(());
            }
            use std::os::unix::fs::OpenOptionsExt as _;
            let mut from = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
                .open(source)?;
            let mode = from.metadata().map(|m| m.mode()).unwrap_or(0o644);
            crate::nofollow::replace_from(&c.path, &mut from, mode)?;
        }
        (_, None) => {}
    }
    Ok(())
}

/// The directories' final modes, the deepest first (a directory made read-only still
/// took what goes in it).
fn set_modes(mut modes: Vec<(PathBuf, u32)>) -> Result<(), (PathBuf, std::io::Error)> {
    modes.sort_by_key(|(p, _)| std::cmp::Reverse(p.components().count()));
    let mut first_error = None;
    for (path, mode) in modes {
        if let Err(e) = crate::nofollow::set_dir_mode(&path, mode) {
            first_error.get_or_insert((path, e));
        }
    }
    first_error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(path: PathBuf, kind: ChangeKind, is_dir: bool, source: Option<PathBuf>, link: Option<PathBuf>) -> Change {
        Change { path, kind, is_dir, inside_workspace: true, protected: false, source, link, modes: None, before: None }
    }

    /// A directory of the workspace swapped for a link (by a command still running) while
    /// the changes are made: nothing is made, changed or linked through it.
    #[test]
    fn no_change_goes_through_a_directory_swapped_for_a_link() {
        let d = tempfile::tempdir().unwrap();
        let (ws, home, layer) = (d.path().join("ws"), d.path().join("home"), d.path().join("layer"));
        for dir in [&ws, &home, &layer.join("newdir")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::create_dir(home.join("secretdir")).unwrap();
        std::fs::write(layer.join("payload"), "x").unwrap();
        std::os::unix::fs::symlink(&home, ws.join("p")).unwrap();
        let changes = [
            change(ws.join("p/newdir"), ChangeKind::Added, true, Some(layer.join("newdir")), None),
            change(ws.join("p/secretdir"), ChangeKind::Modified, true, Some(layer.join("newdir")), None),
            change(ws.join("p/evil_link"), ChangeKind::Added, false, Some(layer.join("payload")), Some("/x".into())),
            change(ws.join("p/file"), ChangeKind::Added, false, Some(layer.join("payload")), None),
        ];
        let mut modes = Vec::new();
        for c in &changes {
            assert!(apply_one(c, true, &mut modes).is_err(), "{} was made through the link", c.path.display());
        }
        assert!(set_modes(modes).is_ok());
        let left: Vec<_> = std::fs::read_dir(&home).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, vec![std::ffi::OsString::from("secretdir")], "the link's target was written");
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(home.join("secretdir")).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode, 0o777);
    }

    /// A read-only directory still takes what goes in it; its mode comes last.
    #[test]
    fn a_read_only_directory_gets_its_files_then_its_mode() {
        let d = tempfile::tempdir().unwrap();
        let (ws, layer) = (d.path().join("ws"), d.path().join("layer"));
        std::fs::create_dir_all(layer.join("ro")).unwrap();
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(layer.join("ro/f"), "kept").unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(layer.join("ro"), std::fs::Permissions::from_mode(0o555)).unwrap();
        let changes = [
            change(ws.join("ro"), ChangeKind::Added, true, Some(layer.join("ro")), None),
            change(ws.join("ro/f"), ChangeKind::Added, false, Some(layer.join("ro/f")), None),
        ];
        assert_eq!(apply(&changes).ok(), Some(2));
        assert_eq!(std::fs::read_to_string(ws.join("ro/f")).unwrap(), "kept");
        assert_eq!(std::fs::metadata(ws.join("ro")).unwrap().permissions().mode() & 0o777, 0o555);
        std::fs::set_permissions(layer.join("ro"), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
