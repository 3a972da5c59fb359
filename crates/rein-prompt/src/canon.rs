//! Resolving many paths that share a few folders: each folder is resolved once (a
//! path costs a system call per component to resolve), and a file's real path is its
//! folder's real path and its own name — unless that name is a link, which is
//! resolved whole. The same answers as `std::fs::canonicalize`, for less.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Folders resolved so far (for one pass over a set of files; not shared between
/// threads, not kept across passes, since a folder may change between them).
#[derive(Debug, Default)]
pub struct Canon {
    dirs: RefCell<HashMap<PathBuf, Option<PathBuf>>>,
}

impl Canon {
    /// `dir` resolved (`None` when it does not resolve), once per pass.
    pub fn dir(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(known) = self.dirs.borrow().get(dir) {
            return known.clone();
        }
        let real = std::fs::canonicalize(dir).ok();
        self.dirs.borrow_mut().insert(dir.to_path_buf(), real.clone());
        real
    }

    /// `path` resolved, as `canonicalize` would resolve it.
    pub fn path(&self, path: &Path) -> Option<PathBuf> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) if !meta.file_type().is_symlink() => self.dir(dir).map(|d| d.join(name)),
            _ => std::fs::canonicalize(path).ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_canonicalize_does_through_links() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let real = root.path().join("real");
        std::fs::create_dir_all(real.join("sub"))?;
        std::fs::write(real.join("sub/f.md"), "x")?;
        std::os::unix::fs::symlink(&real, root.path().join("link"))?;
        std::os::unix::fs::symlink(real.join("sub/f.md"), real.join("sub/l.md"))?;
        let canon = Canon::default();
        for p in ["link/sub/f.md", "link/sub/l.md", "real/sub/../sub/f.md", "link", "missing/f.md", "link/sub"] {
            let p = root.path().join(p);
            assert_eq!(canon.path(&p), std::fs::canonicalize(&p).ok(), "{}", p.display());
        }
        Ok(())
    }
}
