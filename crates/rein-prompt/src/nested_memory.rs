//! Memory that reaches the model later, when it first reads or edits a file it is
//! about, as Claude Code injects it: the `CLAUDE.md` files of subdirectories between the
//! working directory and the file (`nested_traversal`), and the rules of
//! `.claude/rules` whose `paths:` globs match the file (`path_glob_match`), and the
//! skills whose `paths:` match it (`skill_path_match`: named, to be loaded). Each file is
//! given once. `claudeMdExcludes` globs leave memory files out, here and at start.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use globset::{Glob, GlobSet, GlobSetBuilder};

/// One memory file given late: where it is, why it was loaded, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LateMemory {
    pub path: PathBuf,
    /// `nested_traversal` or `path_glob_match`.
    pub reason: &'static str,
    /// The rule's globs (for a `paths:` rule).
    pub globs: Vec<String>,
    pub content: String,
}

#[derive(Debug)]
struct ScopedRule {
    path: PathBuf,
    patterns: Vec<String>,
    globs: GlobSet,
    content: String,
}

/// The session's late memory.
#[derive(Debug)]
pub struct NestedMemory {
    cwd: PathBuf,
    rules: Vec<ScopedRule>,
    /// Skills with `paths:`: offered once a matching file is touched.
    skills: Vec<ScopedRule>,
    excludes: GlobSet,
    given: Mutex<HashSet<PathBuf>>,
}

/// Globs as a set (a glob that does not parse is left out).
pub fn glob_set(patterns: &[String]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        if let Ok(g) = Glob::new(p) {
            b.add(g);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

impl NestedMemory {
    /// The `paths:` rules of the project's `.claude/rules` (below `cwd`) and the user's
    /// `~/.claude/rules`; `given` are the memory files already in the system prompt.
    pub fn new(cwd: &Path, home: Option<&Path>, excludes: &[String], given: &[PathBuf]) -> NestedMemory {
        let mut rules = Vec::new();
        let dirs = [Some(cwd.join(".claude/rules")), home.map(|h| h.join(".claude/rules"))];
        for dir in dirs.into_iter().flatten() {
            for path in crate::agents::markdown_files(&dir) {
                let Ok(text) = std::fs::read_to_string(&path) else { continue };
                let Ok(fm) = crate::frontmatter::parse(&text) else { continue };
                let Some(patterns) = fm.list("paths").filter(|p| !p.is_empty()) else { continue };
                rules.push(ScopedRule { path, globs: glob_set(&patterns), patterns, content: fm.body });
            }
        }
        let given = given.iter().filter_map(|p| std::fs::canonicalize(p).ok()).collect();
        NestedMemory {
            cwd: cwd.to_path_buf(),
            rules,
            skills: Vec::new(),
            excludes: glob_set(excludes),
            given: Mutex::new(given),
        }
    }

    /// Skills with `paths:` globs: the model hears of each (`skill_path_match`, its
    /// text a line naming the skill) when it first reads or edits a matching file.
    pub fn with_skills(mut self, skills: &[crate::skills::SkillDef]) -> Self {
        for s in skills.iter().filter(|s| !s.paths.is_empty() && s.model_invocable) {
            self.skills.push(ScopedRule {
                path: s.dir.join("SKILL.md"),
                globs: glob_set(&s.paths),
                patterns: s.paths.clone(),
                content: format!(
                    "The skill \"{}\" is about this file: {} Load it with the Skill tool (skill: \"{}\") when it helps.",
                    s.name, s.description, s.name
                ),
            });
        }
        self
    }

    /// The memory `file` brings that was not given yet.
    pub fn for_file(&self, file: &Path) -> Vec<LateMemory> {
        let mut out = Vec::new();
        let mut given = self.given.lock().unwrap_or_else(|p| p.into_inner());
        let take = |path: &Path, given: &mut HashSet<PathBuf>| -> bool {
            let Ok(real) = std::fs::canonicalize(path) else { return false };
            !self.excludes.is_match(&real) && !self.excludes.is_match(path) && given.insert(real)
        };
        // A memory file in a subfolder that is a link out of the project is not read: it
        // would hand the model whatever it points at.
        let root = std::fs::canonicalize(&self.cwd).unwrap_or_else(|_| self.cwd.clone());
        let inside = |path: &Path| std::fs::canonicalize(path).is_ok_and(|real| real.starts_with(&root));
        // Subdirectories between the working directory and the file, top down.
        if let Ok(below) = file.strip_prefix(&self.cwd) {
            let mut dirs: Vec<PathBuf> =
                below.ancestors().skip(1).filter(|d| !d.as_os_str().is_empty()).map(|d| self.cwd.join(d)).collect();
            dirs.reverse();
            for d in dirs {
                for name in ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"] {
                    let path = d.join(name);
                    if path.is_file()
                        && inside(&path)
                        && take(&path, &mut given)
                        && let Ok(content) = std::fs::read_to_string(&path)
                    {
                        out.push(LateMemory { path, reason: "nested_traversal", globs: Vec::new(), content });
                    }
                }
            }
        }
        let relative = file.strip_prefix(&self.cwd).unwrap_or(file);
        for rule in &self.rules {
            if rule.globs.is_match(relative) && take(&rule.path, &mut given) {
                out.push(LateMemory {
                    path: rule.path.clone(),
                    reason: "path_glob_match",
                    globs: rule.patterns.clone(),
                    content: rule.content.clone(),
                });
            }
        }
        for skill in &self.skills {
            if skill.globs.is_match(relative) && given.insert(skill.path.clone()) {
                out.push(LateMemory {
                    path: skill.path.clone(),
                    reason: "skill_path_match",
                    globs: skill.patterns.clone(),
                    content: skill.content.clone(),
                });
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "nested_memory_tests.rs"]
mod tests;
