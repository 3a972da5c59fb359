//! `--setting-sources` (the SDK's `setting_sources`) beyond the settings files: which
//! definitions and memory files belong to a source the session leaves out.

use std::path::{Path, PathBuf};

use crate::options::Sources;

/// Where each source's files live, and which are wanted.
pub(crate) struct Wanted {
    sources: Sources,
    /// The person's `.claude` folder.
    user: Option<PathBuf>,
    /// The project's folder (its definitions live in `.claude` there).
    project: PathBuf,
}

impl Wanted {
    pub(crate) fn new(sources: Sources, cwd: &Path, home: Option<&Path>) -> Wanted {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        Wanted { sources, user: home.map(|h| canon(&h.join(".claude"))), project: canon(cwd) }
    }

    /// Whether a definition file (or folder) at `path` comes from a wanted source.
    pub(crate) fn keeps(&self, path: &Path) -> bool {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if self.user.as_ref().is_some_and(|u| path.starts_with(u)) {
            return self.sources.user;
        }
        if path.starts_with(self.project.join(".claude")) {
            return self.sources.project;
        }
        true
    }

    /// `claudeMdExcludes` patterns for the memory files of the sources left out.
    pub(crate) fn memory_excludes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.sources.user
            && let Some(u) = &self.user
        {
            out.push(format!("{}/CLAUDE.md", u.display()));
            out.push(format!("{}/rules/**", u.display()));
        }
        if !self.sources.project {
            for dir in self.project.ancestors() {
                for name in ["CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md"] {
                    out.push(format!("{}/{name}", dir.display().to_string().trim_end_matches('/')));
                }
            }
            out.push(format!("{}/.claude/rules/**", self.project.display()));
        }
        if !self.sources.local {
            out.push("**/CLAUDE.local.md".to_string());
        }
        out
    }
}
