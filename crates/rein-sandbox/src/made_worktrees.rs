//! The worktrees rein itself makes (EnterWorktree, an agent's `isolation: "worktree"`,
//! `--worktree`), each as git made it: its link files (the checkout's `.git`, its git
//! directory's `gitdir` and `commondir`) and the protected files of the commit it checked
//! out (paths through a protected name), with their contents as git stores them — not as
//! read from the disk, where a running command could have written first. A command that
//! was running while rein made one did not see it in its plan, so the guard of that
//! command holds the worktree to this note: link files and checked-out protected files
//! put back, and whatever else appeared in its protected folders removed — however much
//! of it there is. Only rein's own code notes a worktree, and a note counts only for the
//! commands running when it was made, and only while the worktree is still the one noted
//! (same git directory, same inode).

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use crate::nofollow::{read_regular, read_whole};

/// A checked-out protected file of at least this size is not kept (it is left alone).
pub const KEEP_FILE: u64 = crate::nofollow::READ_CAP;

/// One worktree as git made it.
#[derive(Debug, Clone)]
pub(crate) struct Made {
    pub(crate) tree: PathBuf,
    noted_at: Instant,
    /// The tree's and its git directory's (device, inode) when noted.
    ids: Vec<(PathBuf, (u64, u64))>,
    /// Link files and what git wrote in them.
    links: Vec<(PathBuf, Vec<u8>)>,
    /// Protected files git checked out (and files rein made beside the worktree), with
    /// their contents (`None`: too large to keep).
    files: BTreeMap<PathBuf, Option<Vec<u8>>>,
    /// Protected folders git checked files out into, and the folders rein made to hold
    /// the worktree (`.claude/`, `.claude/worktrees/`).
    dirs: BTreeSet<PathBuf>,
}

static MADE: Mutex<Vec<Made>> = Mutex::new(Vec::new());

fn lock() -> MutexGuard<'static, Vec<Made>> {
    MADE.lock().unwrap_or_else(|p| p.into_inner())
}

fn id_of(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path).ok().filter(|m| m.is_dir()).map(|m| (m.dev(), m.ino()))
}

/// The protected paths on the way to `rel` (a path inside the worktree `tree`), itself
/// included.
fn protected_on_the_way(tree: &Path, rel: &Path) -> Vec<PathBuf> {
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

/// Whether `rel`, a path inside the worktree `tree`, passes through or is a protected
/// name.
pub fn is_protected_path(tree: &Path, rel: &Path) -> bool {
    !protected_on_the_way(tree, rel).is_empty()
}

/// Note the worktree rein just made at `tree`: `checked_out` are the protected files of
/// the commit it checked out (relative to it) with their contents as git stores them,
/// `beside` files rein made for it (`.claude/worktrees/.gitignore`).
pub fn note_made(tree: &Path, checked_out: &[(PathBuf, Option<Vec<u8>>)], beside: &[PathBuf]) {
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
    let mut files = BTreeMap::new();
    let mut dirs: BTreeSet<PathBuf> = tree.ancestors().skip(1).take(2).map(Path::to_path_buf).collect();
    for (rel, bytes) in checked_out {
        let file = tree.join(rel);
        dirs.extend(protected_on_the_way(&tree, rel).into_iter().filter(|p| *p != file));
        files.insert(file, bytes.clone());
    }
    for path in beside {
        files.insert(path.clone(), read_whole(path).ok());
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
    /// Whether `path` is as git (or rein) made it: one of its folders, or a file with the
    /// content it had (one too large to keep: a regular file).
    pub(crate) fn made_here(&self, path: &Path) -> bool {
        if self.dirs.contains(path) {
            return std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
        }
        match self.files.get(path) {
            None => false,
            Some(None) => std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()),
            Some(Some(bytes)) => read_whole(path).is_ok_and(|now| now == *bytes),
        }
    }

    /// Hold the worktree to its note: link files and checked-out protected files as git
    /// wrote them, nothing else in its protected folders. One violation line each.
    pub(crate) fn hold(&self, lines: &mut Vec<String>) {
        for dir in self.dirs.iter().filter(|d| d.starts_with(&self.tree)) {
            self.prune(dir, lines);
        }
        let files = self.files.iter().filter_map(|(p, b)| b.as_ref().map(|b| (p, b)));
        for (path, bytes) in self.links.iter().map(|(p, b)| (p, b)).chain(files) {
            if read_whole(path).is_ok_and(|now| now == *bytes) || !path.parent().is_some_and(Path::is_dir) {
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

    /// Remove from the protected folder `dir` everything git did not check out there:
    /// a folder holding nothing noted goes whole, so no amount of it is left behind.
    fn prune(&self, dir: &Path, lines: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let path = e.path();
            let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            let noted = self.files.contains_key(&path)
                || is_dir && (self.dirs.contains(&path) || self.files.keys().any(|f| f.starts_with(&path)));
            if noted {
                if is_dir {
                    self.prune(&path, lines);
                }
            } else if crate::nofollow::remove(&path) {
                lines.push(format!(
                    "deny file-write {} (added to a new worktree's protected files; removed)",
                    path.display()
                ));
            }
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
        let checked_out = [(".claude/settings.json", "{}"), (".mcp.json", "{}")]
            .map(|(p, c)| (PathBuf::from(p), Some(c.as_bytes().to_vec())));
        note_made(&tree, &checked_out, &[]);
        let made = made_since(since).into_iter().find(|m| m.tree == tree).unwrap();
        assert!(made.made_here(&tree.join(".mcp.json")) && made.made_here(&tree.join(".claude")));
        assert!(!made.made_here(&tree.join(".envrc")), "not checked out by git");
        std::fs::write(tree.join(".claude/settings.json"), "{\"hooks\": {}}").unwrap();
        std::fs::write(tree.join(".claude/settings.local.json"), "{}").unwrap();
        // However many files are planted, the folder holding them goes whole.
        std::fs::create_dir_all(tree.join(".claude/agents")).unwrap();
        for i in 0..200 {
            std::fs::write(tree.join(format!(".claude/agents/a{i}.md")), "x").unwrap();
        }
        std::fs::write(gitdir.join("commondir"), "/elsewhere\n").unwrap();
        assert!(!made.made_here(&tree.join(".claude/settings.json")), "changed since");
        let mut lines = Vec::new();
        made.hold(&mut lines);
        assert_eq!(std::fs::read_to_string(tree.join(".claude/settings.json")).unwrap(), "{}");
        assert!(!tree.join(".claude/settings.local.json").exists() && !tree.join(".claude/agents").exists());
        assert_eq!(std::fs::read_to_string(gitdir.join("commondir")).unwrap(), "../..\n");
        assert_eq!(lines.len(), 4, "{lines:?}");
        // Removed by rein, or made again in its place: the note no longer counts.
        forget(&tree);
        assert!(made_since(since).iter().all(|m| m.tree != tree));
    }
}
