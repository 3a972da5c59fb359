//! The workspace wall (ARCHITECTURE invariant 7): a path is made absolute and canonical
//! — symlinks resolved, `.` and `..` removed — before any check, and a write must land
//! inside one of the workspace roots. Containment compares whole path components, so
//! `/w/proj` does not contain `/w/proj-evil`.

use std::path::{Path, PathBuf};

/// The canonical form of absolute `path`, which need not exist yet: every symlink on the
/// way is resolved and `.`/`..` are applied to the real directories, as the kernel does
/// (one resolution, shared with the shell analysis: `rein_effects::kernel_path`).
pub fn canonical_target(path: &Path) -> Result<PathBuf, rein_effects::PathError> {
    rein_effects::kernel_path(path)
}

/// `path` canonicalised, if it lies inside one of `roots` (themselves canonicalised).
pub fn inside_workspace(path: &Path, roots: &[PathBuf]) -> Result<PathBuf, WallError> {
    let target = canonical_target(path)?;
    let inside = roots.iter().any(|root| {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
        target.starts_with(&root)
    });
    if inside { Ok(target) } else { Err(WallError::Outside { target, roots: roots.to_vec() }) }
}

/// Why a path may not be written.
#[derive(Debug, Clone, thiserror::Error)]
pub enum WallError {
    #[error(transparent)]
    Path(#[from] rein_effects::PathError),
    #[error(
        "{} is outside the workspace ({}); files can only be written inside it. Add a directory with --add-dir if \
         the user wants it writable.",
        target.display(),
        roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    Outside { target: PathBuf, roots: Vec<PathBuf> },
    #[error("file_path must be an absolute path, got {0:?}")]
    Relative(String),
    #[error("{} is a directory, not a file", .0.display())]
    Directory(PathBuf),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containment_is_by_whole_components_and_follows_symlinks() {
        let d = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(d.path()).unwrap();
        let proj = base.join("proj");
        let evil = base.join("proj-evil");
        std::fs::create_dir_all(proj.join("src")).unwrap();
        std::fs::create_dir_all(&evil).unwrap();
        let roots = vec![proj.clone()];
        assert_eq!(inside_workspace(&proj.join("src/new.rs"), &roots).unwrap(), proj.join("src/new.rs"));
        assert_eq!(inside_workspace(&proj.join("a/b/../c.rs"), &roots).unwrap(), proj.join("a/c.rs"));
        assert!(inside_workspace(&evil.join("x"), &roots).is_err());
        assert!(inside_workspace(&proj.join("../proj-evil/x"), &roots).is_err());
        assert!(inside_workspace(&proj.join("src/../../x"), &roots).is_err());
        std::os::unix::fs::symlink(&evil, proj.join("link")).unwrap();
        let err = inside_workspace(&proj.join("link/file"), &roots).unwrap_err();
        assert!(err.to_string().contains("proj-evil"), "{err}");
        std::os::unix::fs::symlink(evil.join("target.txt"), proj.join("file-link")).unwrap();
        std::fs::write(evil.join("target.txt"), "x").unwrap();
        assert!(inside_workspace(&proj.join("file-link"), &roots).is_err());
        assert!(inside_workspace(&proj.join("missing/../link/x"), &roots).is_err(), "`..` must not hide a link");
        std::os::unix::fs::symlink(base.join("nowhere"), proj.join("dangling")).unwrap();
        assert!(inside_workspace(&proj.join("dangling"), &roots).is_err());
    }
}
