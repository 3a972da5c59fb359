//! What is protected inside the writable roots, found by structure rather than by a
//! list of places: every git directory at any depth and what git reads in it as
//! configuration or runs, the files its configs include, and the files that configure
//! rein, Claude Code, shells and toolchains wherever they sit.
//!
//! The files protected by name, and why each runs something, are one table shared with
//! the permission engine: [`rein_effects::mechanisms`]. A toolchain or editor file stays
//! writable when a permission rule allows writing it by name (`Edit(.npmrc)`, an
//! `allowWrite` entry naming it); the agent, shell and version-control files never do.
//! Files inside an installed package (`node_modules`) are not held: the tools read the
//! project's own.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::walk::{Look, Walked, is_git_dir, walk};
use crate::gitconfig;
use crate::nofollow::read_config;

/// What git reads as configuration or runs, inside a git directory.
const IN_GIT_DIR: &[&str] = &["config", "config.worktree", "hooks", "info", "commondir", "gitdir"];
/// How deep git follows includes (`MAX_INCLUDE_DEPTH`).
const INCLUDE_DEPTH: usize = 10;

/// Whether a path named `name` (in a directory named `parent`) is protected by name.
fn is_named(name: &OsStr, parent: Option<&OsStr>) -> bool {
    let Some(name) = name.to_str() else { return false };
    rein_effects::mechanisms::mechanism_of(name, parent.and_then(OsStr::to_str)).is_some()
}

/// Whether `path` is one of git's own files in the git directory `repo`: a file or
/// folder git reads or runs there (config, hooks, info, links), or a file directly in
/// `hooks/` or `info/` whose name is not protected anywhere (a `.envrc`, a `.claude/`
/// planted there is not git's).
pub(crate) fn is_git_own(repo: &Path, path: &Path) -> bool {
    let Ok(rest) = path.strip_prefix(repo) else { return false };
    let parts: Vec<&OsStr> = rest.iter().collect();
    match parts.as_slice() {
        [name] => IN_GIT_DIR.iter().any(|n| *name == OsStr::new(n)),
        [dir, _] if *dir == OsStr::new("hooks") || *dir == OsStr::new("info") => {
            !is_protected_name(path) && std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
        }
        _ => false,
    }
}

/// Whether `path` stays protected whatever the rules allow.
fn never_writable(path: &Path) -> bool {
    let name = path.file_name().and_then(OsStr::to_str).unwrap_or("");
    let parent = path.parent().and_then(Path::file_name).and_then(OsStr::to_str);
    rein_effects::mechanisms::mechanism_of(name, parent).is_some_and(|m| !m.writable_by_rule)
}

/// Whether `path`'s own name is protected wherever it is.
pub fn is_protected_name(path: &Path) -> bool {
    path.file_name().is_some_and(|n| is_named(n, path.parent().and_then(Path::file_name)))
}

/// The protected paths found below some roots.
#[derive(Debug, Default)]
pub struct Found {
    /// Protected files and directories.
    pub protected: BTreeSet<PathBuf>,
    /// Git directories (worktree and submodule ones included), inside the roots.
    pub repos: BTreeSet<PathBuf>,
    /// `hooks` directories of repositories that have none.
    pub missing: BTreeSet<PathBuf>,
    /// The walk itself, for the deny globs and links it matched.
    pub walked: Walked,
}

/// Walk `roots` and work out what is protected in them; `allow_write` entries
/// (absolute, globs allowed) keep the toolchain files they name writable.
pub(super) fn protected_names(roots: &[PathBuf], allow_write: &[String], look: Look<'_>) -> Found {
    let named = is_named;
    let needs_parent = |n: &OsStr| n.to_str().is_some_and(rein_effects::mechanisms::needs_parent);
    let look = Look { named: Some(&named), needs_parent: Some(needs_parent), ..look };
    let mut walked = walk(roots, &look);
    // A directory a command made unreadable hides what is in it: its owner's rights to
    // read it come back, and the walk looks again (as root nothing is hidden).
    for _ in 0..8 {
        let reopened = walked.unreadable.iter().filter(|d| crate::nofollow::make_searchable(d)).count();
        if reopened == 0 {
            break;
        }
        walked = walk(roots, &look);
    }
    let inside = |p: &Path| roots.iter().any(|r| p.starts_with(r));
    let home = rein_process::env::os(rein_process::env::Var::Home).map(PathBuf::from);
    let mut found = Found::default();
    let mut queue: Vec<PathBuf> = walked.git_dirs.iter().cloned().collect();
    for file in &walked.git_files {
        found.protected.insert(file.clone());
        queue.extend(gitfile_target(file));
    }
    let mut configs = Vec::new();
    while let Some(dir) = queue.pop() {
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        if !inside(&dir) || !git_would_use(&dir) || !found.repos.insert(dir.clone()) {
            continue;
        }
        for name in IN_GIT_DIR {
            let p = dir.join(name);
            if std::fs::symlink_metadata(&p).is_ok() {
                found.protected.insert(p.clone());
            } else if *name == "hooks" && !dir.join("commondir").exists() {
                found.missing.insert(p.clone());
            }
            if name.starts_with("config") {
                configs.push((p, 0, work_tree_of(&dir)));
            }
        }
        // A worktree's (or a linked checkout's) common directory holds its config.
        if let Ok(text) = read_config(&dir.join("commondir")) {
            queue.push(dir.join(text.trim_end_matches(['\n', '\r'])));
        }
        if let Ok(text) = read_config(&dir.join("gitdir")) {
            found.protected.extend(PathBuf::from(text.trim()).canonicalize().ok().filter(|p| inside(p)));
        }
    }
    let mut seen = BTreeSet::new();
    while let Some((config, depth, base)) = configs.pop() {
        if depth > INCLUDE_DEPTH || !seen.insert(config.clone()) {
            continue;
        }
        let Ok(text) = read_config(&config) else { continue };
        let entries = gitconfig::parse(&text).entries;
        // What the settings make git run from inside the roots (a hooks directory, a
        // script by path) is held like the hooks themselves; one missing now is removed
        // by the guard if the command creates it.
        for program in gitconfig::program_paths(&entries, &base, home.as_deref()) {
            let program = resolve(&program);
            if inside(&program) && std::fs::symlink_metadata(&program).is_ok() {
                found.protected.insert(program);
            }
        }
        for inc in gitconfig::includes(&entries, &config, home.as_deref()) {
            let inc = resolve(&inc);
            // One missing now cannot be mounted; if the command creates it, the guard
            // finds it and removes it.
            if inside(&inc) && std::fs::symlink_metadata(&inc).is_ok() {
                found.protected.insert(inc.clone());
            }
            configs.push((inc, depth + 1, base.clone()));
        }
    }
    for p in &walked.named {
        // Inside an installed package the tools load none of these files (npm, yarn,
        // pnpm, cargo and editors read the project's own), and holding them read-only
        // pins their directories, so `rm -rf node_modules` would fail.
        if in_installed_packages(p) {
            continue;
        }
        if never_writable(p) || !allowed(p, allow_write) {
            found.protected.insert(p.clone());
        }
    }
    found.walked = walked;
    found
}

/// The directory git runs hooks and programs in for the git directory `dir`: the work
/// tree's top for a `.git` directory, the directory itself for a bare one.
fn work_tree_of(dir: &Path) -> PathBuf {
    if dir.file_name() == Some(OsStr::new(".git")) {
        return dir.parent().unwrap_or(dir).to_path_buf();
    }
    dir.to_path_buf()
}

/// Whether `path` lies inside a `node_modules` directory (installed packages).
fn in_installed_packages(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "node_modules")
}

/// `path` as the kernel resolves it, as far as it exists.
fn resolve(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    match (path.parent().and_then(|d| std::fs::canonicalize(d).ok()), path.file_name()) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => rein_effects::lexical(path),
    }
}

/// Whether git would take `dir` as a git directory or a common directory: by its name,
/// or by its structure (`objects/` and `refs/`, or `HEAD` and a `commondir`).
fn git_would_use(dir: &Path) -> bool {
    is_git_dir(dir)
        || std::fs::symlink_metadata(dir.join("objects")).is_ok() && std::fs::symlink_metadata(dir.join("refs")).is_ok()
}

/// Where a `.git` file (or symlink) says the repository is.
fn gitfile_target(file: &Path) -> Option<PathBuf> {
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.is_symlink()) {
        return std::fs::canonicalize(file).ok();
    }
    let text = read_config(file).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    Some(file.parent()?.join(target))
}

/// Whether an allow entry names `path` itself: the same path, or a glob whose last
/// component is `path`'s name literally (`**/.npmrc`), never a broad `dir/**`.
fn allowed(path: &Path, allow_write: &[String]) -> bool {
    allow_write.iter().any(|entry| {
        let entry = entry.strip_suffix("/**").unwrap_or(entry);
        if !entry.contains(['*', '?', '[', '{']) {
            return Path::new(entry) == path || std::fs::canonicalize(entry).is_ok_and(|c| c == path);
        }
        let last = entry.rsplit('/').next().unwrap_or("");
        !last.contains(['*', '?', '[', '{'])
            && path.file_name().is_some_and(|n| n == OsStr::new(last))
            && globset::Glob::new(entry).is_ok_and(|g| g.compile_matcher().is_match(path))
    })
}
