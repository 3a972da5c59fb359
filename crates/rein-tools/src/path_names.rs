//! How the search tools name the files they find: relative to the working directory when
//! the file is inside it, absolute otherwise. Claude Code does the same: a path is
//! repeated in every later request of the session, so the working directory's prefix on
//! each would be paid for again and again. The file tools take such a relative path back
//! (see [`crate::Tool::path_fields`]).

use std::path::{Path, PathBuf};

/// Names paths relative to the working directory (as given, and canonical).
#[derive(Debug, Clone, Default)]
pub struct PathNames {
    bases: Vec<PathBuf>,
}

impl PathNames {
    /// Relative to `cwd`; a symlinked `cwd` is also recognised in its canonical form.
    pub fn relative_to(cwd: &Path) -> Self {
        let mut bases = vec![cwd.to_path_buf()];
        if let Ok(canonical) = cwd.canonicalize()
            && canonical != cwd
        {
            bases.push(canonical);
        }
        PathNames { bases }
    }

    /// Every path absolute.
    pub fn absolute() -> Self {
        PathNames::default()
    }

    /// `path` as the model is shown it.
    pub fn name(&self, path: &Path) -> String {
        for base in &self.bases {
            if let Ok(rel) = path.strip_prefix(base)
                && !rel.as_os_str().is_empty()
            {
                return rel.display().to_string();
            }
        }
        path.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_is_relative_and_outside_is_absolute() {
        let n = PathNames::relative_to(Path::new("/w/proj"));
        assert_eq!(n.name(Path::new("/w/proj/src/a.rs")), "src/a.rs");
        assert_eq!(n.name(Path::new("/w/proj-evil/a.rs")), "/w/proj-evil/a.rs");
        assert_eq!(n.name(Path::new("/etc/hosts")), "/etc/hosts");
        assert_eq!(n.name(Path::new("/w/proj")), "/w/proj");
        assert_eq!(PathNames::absolute().name(Path::new("/w/proj/a")), "/w/proj/a");
    }

    #[test]
    fn a_symlinked_working_directory_is_recognised() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("real")).unwrap();
        std::os::unix::fs::symlink(d.path().join("real"), d.path().join("link")).unwrap();
        let n = PathNames::relative_to(&d.path().join("link"));
        let real = d.path().join("real").canonicalize().unwrap().join("f.txt");
        assert_eq!(n.name(&real), "f.txt");
        assert_eq!(n.name(&d.path().join("link/f.txt")), "f.txt");
    }
}
