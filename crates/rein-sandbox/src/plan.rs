//! What one sandboxed command may touch, worked out just before it starts (files appear
//! and disappear between commands): the writable roots, the protected paths inside them
//! (read-only, their parents pinned so they cannot be renamed away), and the denied
//! reads (masked). Globs are expanded to what exists now.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Names that are never writable inside a writable root: they control git, shells,
/// editors, Claude Code and rein, or what a later unsandboxed process runs.
const PROTECTED_FILES: &[&str] = &[
    ".gitconfig",
    ".gitmodules",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".ripgreprc",
    ".mcp.json",
    ".claude.json",
    ".envrc",
    ".npmrc",
];
const PROTECTED_DIRS: &[&str] = &[".claude", ".rein", ".vscode", ".idea", ".husky", ".devcontainer"];
/// Inside a `.git` directory.
const PROTECTED_IN_GIT: &[&str] = &["hooks", "config", "info"];

/// How deep below a root protected names are looked for (nested repositories included).
const SCAN_DEPTH: usize = 3;
/// At most this many entries are looked at per scan or glob.
const SCAN_BUDGET: usize = 20_000;
/// Directories a scan does not enter: big, and nothing in them is configuration.
const SKIP_DIRS: &[&str] = &["node_modules", "target", ".venv", "venv", "__pycache__", "objects"];

/// The mounts of one command.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub write_roots: Vec<PathBuf>,
    /// Directories bound onto themselves so that what they hold cannot be renamed away.
    pub pins: Vec<PathBuf>,
    /// Read-only inside the writable roots.
    pub protected: Vec<PathBuf>,
    /// Protected directories that do not exist yet: an empty read-only directory is
    /// mounted there for the command (and removed afterwards).
    pub placeholders: Vec<PathBuf>,
    /// Denied reads: files and directories masked.
    pub masked: Vec<PathBuf>,
    /// Re-allowed reads inside masked directories.
    pub unmasked: Vec<PathBuf>,
    /// Every protected name that exists now, `.git` directories included: what a
    /// command may not add to.
    pub existing: BTreeSet<PathBuf>,
}

impl Plan {
    /// The plan for `roots` (canonical, existing), the protected names found in them,
    /// `deny_write`/`deny_read` patterns (absolute, globs allowed) and `allow_read`.
    pub fn new(roots: &[PathBuf], deny_write: &[String], deny_read: &[String], allow_read: &[String]) -> Plan {
        let found = protected_names(roots);
        let (mut protected, placeholders) = (found.protected, found.missing);
        let existing: BTreeSet<PathBuf> = protected.iter().chain(&found.repos).cloned().collect();
        for pattern in deny_write {
            protected.extend(expand(pattern).into_iter().filter(|p| roots.iter().any(|r| p.starts_with(r))));
        }
        let allowed: Vec<PathBuf> = allow_read.iter().flat_map(|p| expand(p)).collect();
        // A deny on a file is lifted only by an allow naming that same file; a deny on a
        // directory is opened back where an allow names something inside it.
        let masked: BTreeSet<PathBuf> =
            deny_read.iter().flat_map(|p| expand(p)).filter(|m| !allowed.iter().any(|a| a == m)).collect();
        let unmasked: Vec<PathBuf> =
            allowed.into_iter().filter(|a| masked.iter().any(|m| a.starts_with(m) && a != m && m.is_dir())).collect();
        let mut pins = BTreeSet::new();
        for path in protected.iter().chain(&placeholders).chain(&masked) {
            let Some(root) = roots.iter().find(|r| path.starts_with(r)) else { continue };
            let mut a = path.parent();
            while let Some(dir) = a {
                if dir == root.as_path() || !dir.starts_with(root) {
                    break;
                }
                pins.insert(dir.to_path_buf());
                a = dir.parent();
            }
        }
        let mut pins: Vec<PathBuf> = pins.into_iter().collect();
        pins.sort_by_key(|p| p.components().count());
        Plan {
            write_roots: roots.to_vec(),
            pins,
            protected: protected.into_iter().collect(),
            placeholders: placeholders.into_iter().collect(),
            masked: masked.into_iter().collect(),
            unmasked,
            existing,
        }
    }
}

/// The protected names found below some roots.
#[derive(Debug, Default)]
pub struct Found {
    /// Protected files and directories (inside `.git`: hooks, config, info).
    pub protected: BTreeSet<PathBuf>,
    /// `.git` directories.
    pub repos: BTreeSet<PathBuf>,
    /// `.git/hooks` directories that do not exist.
    pub missing: BTreeSet<PathBuf>,
}

/// Look for protected names below `roots` (three levels, nested repositories included).
pub fn protected_names(roots: &[PathBuf]) -> Found {
    let mut found = Found::default();
    for root in roots {
        scan(root, 0, &mut SCAN_BUDGET.clone(), &mut found);
    }
    found
}

/// Whether `path`'s own name is protected wherever it is.
pub fn is_protected_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| PROTECTED_FILES.contains(&n) || PROTECTED_DIRS.contains(&n))
}

fn scan(dir: &Path, depth: usize, budget: &mut usize, found: &mut Found) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if name == ".git" {
            if kind.is_dir() {
                for inner in PROTECTED_IN_GIT {
                    let p = path.join(inner);
                    if p.exists() {
                        found.protected.insert(p);
                    } else if *inner == "hooks" {
                        found.missing.insert(p);
                    }
                }
                found.repos.insert(path);
            } else {
                // A worktree's or submodule's `.git` file says where its repository is.
                found.protected.insert(path);
            }
        } else if PROTECTED_FILES.contains(&name.as_ref()) || PROTECTED_DIRS.contains(&name.as_ref()) {
            found.protected.insert(path);
        } else if kind.is_dir() && depth + 1 < SCAN_DEPTH && !SKIP_DIRS.contains(&name.as_ref()) {
            scan(&path, depth + 1, budget, found);
        }
    }
}

/// The existing paths `pattern` names, canonical: itself when literal, the matches of
/// its glob below its literal base otherwise.
pub fn expand(pattern: &str) -> Vec<PathBuf> {
    let Some(first_glob) = pattern.find(['*', '?', '[', '{']) else {
        return std::fs::canonicalize(pattern).into_iter().collect();
    };
    let base = match pattern[..first_glob].rfind('/') {
        Some(i) => PathBuf::from(&pattern[..i.max(1)]),
        None => return Vec::new(),
    };
    let Ok(glob) = globset::GlobBuilder::new(pattern).literal_separator(true).build() else { return Vec::new() };
    let matcher = glob.compile_matcher();
    let mut found = Vec::new();
    let mut budget = SCAN_BUDGET;
    let mut stack = vec![base];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            if budget == 0 {
                return found;
            }
            budget -= 1;
            let path = entry.path();
            if matcher.is_match(&path) {
                found.extend(std::fs::canonicalize(&path));
            } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths_are_found_pinned_and_masks_expanded() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/config"), "").unwrap();
        std::fs::create_dir_all(root.join("sub/nested/.git")).unwrap();
        std::fs::write(root.join(".env"), "SECRET").unwrap();
        std::fs::write(root.join("sub/.env"), "SECRET").unwrap();
        std::fs::write(root.join(".bashrc"), "").unwrap();
        let deny_read = [format!("{}/**/.env", root.display())];
        let plan = Plan::new(std::slice::from_ref(&root), &[], &deny_read, &[]);
        assert!(plan.protected.contains(&root.join(".git/hooks")));
        assert!(plan.protected.contains(&root.join(".git/config")));
        assert!(plan.protected.contains(&root.join(".bashrc")));
        assert_eq!(plan.placeholders, [root.join("sub/nested/.git/hooks")], "a missing hooks dir is held");
        assert_eq!(plan.masked, [root.join(".env"), root.join("sub/.env")]);
        assert!(plan.pins.contains(&root.join(".git")) && plan.pins.contains(&root.join("sub")));
        assert_eq!(plan.pins[0].components().count(), root.components().count() + 1, "shallow pins first");
    }
}
