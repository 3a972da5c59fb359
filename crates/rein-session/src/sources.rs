//! `--setting-sources` (the SDK's `setting_sources`) beyond the settings files: which
//! definitions and memory files belong to a source the session leaves out.

use std::path::{Path, PathBuf};

use crate::options::Sources;

/// Where each source's files live, and which are wanted.
pub(crate) struct Wanted {
    sources: Sources,
    /// The person's `.claude` folder.
    user: Option<PathBuf>,
    /// The project's folder (its definitions live in `.claude` there and in the
    /// folders above it).
    project: PathBuf,
    /// Definitions' folders resolved so far.
    dirs: rein_prompt::canon::Canon,
}

impl Wanted {
    pub(crate) fn new(sources: Sources, cwd: &Path, home: Option<&Path>) -> Wanted {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        Wanted { sources, user: home.map(|h| canon(&h.join(".claude"))), project: canon(cwd), dirs: Default::default() }
    }

    /// Whether a definition file (or folder) at `path` comes from a wanted source: the
    /// person's `~/.claude`, else a `.claude` folder of the project or of a folder above
    /// it (commands, skills and subagents are found there too, and are the project's,
    /// as in Claude Code).
    ///
    /// A definition is judged where it was found and where it really is (a link from a
    /// left-out source to a file elsewhere is still that source's): kept only when
    /// neither place is left out.
    pub(crate) fn keeps(&self, path: &Path) -> bool {
        // Where it was found: its folder resolved, its own name as it is (a link).
        let found = self.found(path);
        let real = self.dirs.path(path).unwrap_or_else(|| found.clone());
        self.keeps_at(&found) && self.keeps_at(&real)
    }

    /// Where a definition was found: its folder resolved, its own name as it is (a link).
    fn found(&self, path: &Path) -> PathBuf {
        match (path.parent().and_then(|p| self.dirs.dir(p)), path.file_name()) {
            (Some(dir), Some(name)) => dir.join(name),
            _ => path.to_path_buf(),
        }
    }

    /// Whether a definition found in one of the project's `.claude` folders really is
    /// inside the folder that holds that `.claude` (not a link out of the repository).
    /// The person's own definitions may link anywhere.
    pub(crate) fn stays_inside(&self, path: &Path) -> bool {
        let found = self.found(path);
        if self.user.as_ref().is_some_and(|u| found.starts_with(u)) {
            return true;
        }
        let Some(holder) = self.project.ancestors().find(|d| found.starts_with(d.join(".claude"))) else {
            return true;
        };
        self.dirs.path(path).is_none_or(|real| real.starts_with(holder))
    }

    fn keeps_at(&self, path: &Path) -> bool {
        if self.user.as_ref().is_some_and(|u| path.starts_with(u)) {
            return self.sources.user;
        }
        if self.project.ancestors().any(|d| path.starts_with(d.join(".claude"))) {
            return self.sources.project;
        }
        true
    }

    /// The person's memory file, `~/.claude/CLAUDE.md`.
    fn user_memory(&self) -> Option<PathBuf> {
        self.user.as_ref().map(|u| u.join("CLAUDE.md"))
    }

    /// `claudeMdExcludes` patterns for the memory files of the sources left out.
    pub(crate) fn memory_excludes(&self) -> Vec<String> {
        let mut out = Vec::new();
        // A home folder above the project is one of the project's folders: Claude Code
        // reads its `.claude/CLAUDE.md` and `.claude/rules` with the project's memory.
        let home_above_project =
            || self.user.as_ref().and_then(|u| u.parent()).is_some_and(|home| self.project.starts_with(home));
        let read = self.sources.user || (self.sources.project && home_above_project());
        if !read && let Some(u) = &self.user {
            out.push(format!("{}/CLAUDE.md", escape(u)));
            out.push(format!("{}/rules/**", escape(u)));
        }
        if !self.sources.project {
            for dir in self.project.ancestors() {
                for name in ["CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md"] {
                    let file = dir.join(name);
                    // The person's own file, reached again from the project below it.
                    if self.sources.user && self.user_memory().as_ref() == Some(&file) {
                        continue;
                    }
                    out.push(escape(&file));
                }
                // Each folder's rules; the person's own (`~/.claude/rules`) stay with them.
                if !(self.sources.user && self.user.as_ref() == Some(&dir.join(".claude"))) {
                    out.push(format!("{}/.claude/rules/**", escape(dir)));
                }
            }
        }
        if !self.sources.local {
            out.push("**/CLAUDE.local.md".to_string());
        }
        out
    }

    /// Patterns for the memory files met later, in the project's subfolders (a
    /// subfolder's `CLAUDE.md` when a file below it is read), of the sources left out.
    /// Apart from [`memory_excludes`](Self::memory_excludes): they never match a file
    /// read at the start (the person's own, when the project holds the home folder).
    pub(crate) fn nested_excludes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.sources.project {
            let project = escape(&self.project);
            out.push(format!("{project}/**/CLAUDE.md"));
            out.push(format!("{project}/**/.claude/CLAUDE.md"));
        }
        out
    }
}

/// A path as a glob that matches just it (the glob's special characters in brackets).
fn escape(path: &Path) -> String {
    let text = path.display().to_string();
    let text = text.trim_end_matches('/');
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '*' | '?' | '[' | ']' | '{' | '}' => {
                out.push('[');
                out.push(c);
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[path = "sources_tests.rs"]
mod tests;
