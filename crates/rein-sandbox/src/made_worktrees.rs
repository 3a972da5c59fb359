//! The worktrees rein itself makes (EnterWorktree, an agent's `isolation: "worktree"`,
//! `--worktree`), each as git made it: its link files (the checkout's `.git`, its git
//! directory's `gitdir` and `commondir`) and the protected files git checked out (the
//! tracked ones whose path holds a protected name), with their contents. A command that
//! was running while rein made one did not see it in its plan, so the guard of that
//! command holds the worktree to this note: the link files and checked-out protected
//! files are put back as git wrote them, and whatever else appeared in its protected
//! folders goes. Only rein's own code notes a worktree, and a note counts only for the
//! commands running when it was made, and only while the worktree is still the one
//! noted (same git directory, same inode).

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use crate::nofollow::read_regular;

/// At most this much of a worktree's protected files is kept.
const KEEP_BYTES: usize = 4 << 20;
/// At most this many entries are looked at in a worktree's protected folders.
const WALK_ENTRIES: usize = 10_000;

/// One worktree as git made it.
#[derive(Debug, Clone)]
pub(crate) struct Made {
    pub(crate) tree: PathBuf,
    noted_at: Instant,
    /// The tree's and its git directory's (device, inode) when noted.
    ids: Vec<(PathBuf, (u64, u64))>,
    /// Link files and what git wrote in them.
    links: Vec<(PathBuf, Vec<u8>)>,
    /// Protected files git checked out (and files rein made beside the worktree).
    files: BTreeMap<PathBuf, Vec<u8>>,
    /// Protected folders git checked files out into.
    dirs: BTreeSet<PathBuf>,
}

static MADE: Mutex<Vec<Made>> = Mutex::new(Vec::new());

fn lock() -> MutexGuard<'static, Vec<Made>> {
    MADE.lock().unwrap_or_else(|p| p.into_inner())
}

fn id_of(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path).ok().filter(|m| m.is_dir()).map(|m| (m.dev(), m.ino()))
}

/// Whether `rel` (a path inside a worktree) passes through, or is, a protected name.
fn protected_path(tree: &Path, rel: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut at = tree.to_path_buf();
    for part in rel.components() {
        at.push(part);
        if crate::plan::is_protected_name(&at) {
            out.push(at.clone());
        }
    }
    out
}

/// Note the worktree rein just made at `tree`: `tracked` are the paths git checked out
/// (relative to it), `beside` files rein made for it (`.claude/worktrees/.gitignore`).
pub fn note_made(tree: &Path, tracked: &[PathBuf], beside: &[PathBuf]) {
    let Ok(tree) = std::fs::canonicalize(tree) else { return };
    let mut links = Vec::new();
    let mut ids: Vec<(PathBuf, (u64, u64))> = id_of(&tree).map(|id| (tree.clone(), id)).into_iter().collect();
    let dot_git = tree.join(".git");
    if let Ok(bytes) = read_regular(&dot_git) {
        if let Some(gitdir) = crate::plan::gitdir_of(&tree) {
            ids.extend(id_of(&gitdir).map(|id| (gitdir.clone(), id)));
            for name in ["gitdir", "commondir"] {
                let path = gitdir.join(name);
                if let Ok(b) = read_regular(&path) {
                    links.push((path, b));
                }
            }
        }
        links.push((dot_git, bytes));
    }
    let (mut files, mut dirs) = (BTreeMap::new(), BTreeSet::new());
    let mut budget = KEEP_BYTES;
    for rel in tracked {
        let held = protected_path(&tree, rel);
        if held.is_empty() {
            continue;
        }
        let file = tree.join(rel);
        // The protected folders on its way (the file itself is kept below).
        dirs.extend(held.iter().filter(|p| **p != file).cloned());
        if let Ok(bytes) = read_regular(&file)
            && bytes.len() <= budget
        {
            budget -= bytes.len();
            files.insert(file, bytes);
        }
    }
    for path in beside {
        if let Ok(bytes) = read_regular(path) {
            files.insert(path.clone(), bytes);
        }
    }
    let made = Made { tree: tree.clone(), noted_at: Instant::now(), ids, links, files, dirs };
    let mut all = lock();
    all.retain(|m| m.tree != tree);
    all.push(made);
}

/// rein removed the worktree at `tree`: its note goes.
pub fn forget(tree: &Path) {
    let tree = std::fs::canonicalize(tree).unwrap_or_else(|_| tree.to_path_buf());
    lock().retain(|m| m.tree != tree);
}

/// The worktrees rein made since `since` that are still the ones it noted.
pub(crate) fn made_since(since: Instant) -> Vec<Made> {
    lock()
        .iter()
        .filter(|m| m.noted_at >= since && m.ids.iter().all(|(p, id)| id_of(p) == Some(*id)))
        .cloned()
        .collect()
}

impl Made {
    /// Whether `path` is as git checked it out (a protected folder of it, or a file with
    /// the content it had).
    pub(crate) fn made_here(&self, path: &Path) -> bool {
        if self.dirs.contains(path) {
            return std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
        }
        self.files.get(path).is_some_and(|bytes| read_regular(path).is_ok_and(|now| now == *bytes))
    }

    /// Hold the worktree to its note: link files and checked-out protected files as git
    /// wrote them, nothing else in its protected folders. One violation line each.
    pub(crate) fn hold(&self, lines: &mut Vec<String>) {
        let mut budget = WALK_ENTRIES;
        for dir in &self.dirs {
            let mut found = Vec::new();
            walk_files(dir, &mut found, &mut budget);
            for path in found.into_iter().filter(|p| !self.files.contains_key(p)) {
                if crate::nofollow::remove(&path) {
                    lines.push(format!(
                        "deny file-write {} (added to a new worktree's protected files; removed)",
                        path.display()
                    ));
                }
            }
        }
        for (path, bytes) in self.links.iter().map(|(p, b)| (p, b)).chain(self.files.iter()) {
            if read_regular(path).is_ok_and(|now| now == *bytes) || !path.parent().is_some_and(Path::is_dir) {
                continue;
            }
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                crate::nofollow::remove(path);
            }
            if crate::nofollow::replace(path, bytes, 0o644).is_ok() {
                lines.push(format!(
                    "deny file-write {} (a new worktree's file as git wrote it; restored)",
                    path.display()
                ));
            }
        }
    }
}

/// The files (and links, and anything not a folder) below `dir`, never following a link.
fn walk_files(dir: &Path, out: &mut Vec<PathBuf>, budget: &mut usize) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let path = e.path();
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => walk_files(&path, out, budget),
            Ok(_) => out.push(path),
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worktree noted, then changed by a command that was running: its link, its
    /// checked-out settings and a file added to its `.claude/` are held to the note.
    #[test]
    fn a_noted_worktree_is_held_to_what_git_made() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let since = Instant::now();
        let tree = crate::plan::tests::agent_worktree(&root, "b");
        let gitdir = root.join(".git/worktrees/b");
        std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
        std::fs::create_dir_all(tree.join(".claude")).unwrap();
        std::fs::write(tree.join(".claude/settings.json"), "{}").unwrap();
        std::fs::write(tree.join(".mcp.json"), "{}").unwrap();
        std::fs::write(tree.join(".envrc"), "planted before the note").unwrap();
        let tracked = [".claude/settings.json", ".mcp.json", "README.md"].map(PathBuf::from);
        note_made(&tree, &tracked, &[]);
        let made = made_since(since).into_iter().find(|m| m.tree == tree).unwrap();
        assert!(made.made_here(&tree.join(".mcp.json")) && made.made_here(&tree.join(".claude")));
        assert!(!made.made_here(&tree.join(".envrc")), "not checked out by git");
        std::fs::write(tree.join(".claude/settings.json"), "{\"hooks\": {}}").unwrap();
        std::fs::write(tree.join(".claude/settings.local.json"), "{}").unwrap();
        std::fs::write(gitdir.join("commondir"), "/elsewhere\n").unwrap();
        assert!(!made.made_here(&tree.join(".claude/settings.json")), "changed since");
        let mut lines = Vec::new();
        made.hold(&mut lines);
        assert_eq!(std::fs::read_to_string(tree.join(".claude/settings.json")).unwrap(), "{}");
        assert!(!tree.join(".claude/settings.local.json").exists());
        assert_eq!(std::fs::read_to_string(gitdir.join("commondir")).unwrap(), "../..\n");
        assert_eq!(lines.len(), 3, "{lines:?}");
        // Removed by rein, or made again in its place: the note no longer counts.
        forget(&tree);
        assert!(made_since(since).iter().all(|m| m.tree != tree));
    }
}
