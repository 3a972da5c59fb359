//! Shared rules of the editing tools: the workspace wall, read-before-write, unchanged
//! since read, atomic writes, numbered snippets.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::{FileIdentity, ToolContext, ToolError, WallError, inside_workspace};

/// The canonical target of a write, if it is allowed by the wall.
pub(super) fn writable_target(file_path: &str, ctx: &ToolContext) -> Result<PathBuf, WallError> {
    if !Path::new(file_path).is_absolute() {
        return Err(WallError::Relative(file_path.to_string()));
    }
    let target = match inside_workspace(Path::new(file_path), &ctx.workspace_roots) {
        Ok(target) => target,
        // A memory: a Markdown file directly in the persistent memory's directory.
        Err(e) => match &ctx.memory_dir {
            Some(dir) => {
                let target = crate::canonical_target(Path::new(file_path))?;
                let dir = crate::canonical_target(dir)?;
                if target.parent() != Some(dir.as_path()) || target.extension().is_none_or(|x| x != "md") {
                    return Err(e);
                }
                target
            }
            None => return Err(e),
        },
    };
    if target.is_dir() {
        return Err(WallError::Directory(target));
    }
    Ok(target)
}

/// The identity of a file's current bytes.
pub(super) fn identity(path: &Path, bytes: &[u8]) -> FileIdentity {
    FileIdentity::of(std::fs::metadata(path).ok().and_then(|m| m.modified().ok()), bytes)
}

/// An existing file may only be changed after it was Read in this session, and only if
/// it has not changed on disk since. Returns its current bytes.
pub(super) fn read_for_change(path: &Path, ctx: &ToolContext) -> Result<Vec<u8>, ToolError> {
    let bytes = std::fs::read(path).map_err(|e| ToolError::new(format!("Cannot read {}: {e}", path.display())))?;
    let Some(known) = ctx.file_state.get(path) else {
        return Err(ToolError::new(format!(
            "{} has not been read in this session. Read it first, then change it.",
            path.display()
        )));
    };
    let now = identity(path, &bytes);
    if now.hash != known.hash || now.size != known.size {
        return Err(ToolError::new(format!(
            "{} has changed on disk since it was read (by the user or another program). Read it again before \
             changing it.",
            path.display()
        )));
    }
    Ok(bytes)
}

/// Write through a temporary file and a rename, keeping the old file's permissions, so
/// a crash never leaves a half-written file. Records the new identity.
pub(super) fn write_atomic(path: &Path, bytes: &[u8], ctx: &ToolContext) -> Result<(), ToolError> {
    let fail = |e: std::io::Error| ToolError::new(format!("Cannot write {}: {e}", path.display()));
    let dir = path.parent().ok_or_else(|| ToolError::new(format!("{} has no parent directory", path.display())))?;
    std::fs::create_dir_all(dir).map_err(fail)?;
    // The checked path exactly: its directory opened refusing symbolic links.
    if crate::open_checked::replace_file(path, bytes).map_err(fail)? {
        ctx.file_state.record(path.to_path_buf(), identity(path, bytes));
        return Ok(());
    }
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = tmp.as_file().set_permissions(meta.permissions());
    }
    tmp.persist(path).map_err(|e| fail(e.error))?;
    ctx.file_state.record(path.to_path_buf(), identity(path, bytes));
    Ok(())
}

/// Lines `from..=to` (1-based) of `text`, numbered like `cat -n`.
pub(super) fn numbered(text: &str, from: usize, to: usize) -> String {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .take(to.saturating_sub(from) + 1)
        .map(|(i, l)| format!("{:>6}\t{l}\n", i + 1))
        .collect()
}
