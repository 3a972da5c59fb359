//! The worktrees rein itself made in this process (EnterWorktree, an agent's
//! `isolation: "worktree"`, `--worktree`), each as git made it: its link files (the
//! checkout's `.git`, its git directory's `gitdir` and `commondir`) and the protected
//! files it checked out. A command that ran while rein made one did not make those files,
//! so the guard leaves them (it removes the protected files a command created); a link
//! file a command changed is put back, so the worktree keeps pointing at its repository.
//! Only rein's own code notes a worktree: nothing a command does adds to the list.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::nofollow::read_regular;

/// At most this much of a worktree's protected files is kept to compare.
const KEEP_BYTES: usize = 1 << 20;

/// One worktree as git made it.
#[derive(Debug, Clone)]
pub(crate) struct Made {
    pub(crate) tree: PathBuf,
    /// Link files and what git wrote in them.
    links: Vec<(PathBuf, Vec<u8>)>,
    /// Protected paths rein made with it, a file's content kept (`None`: a directory,
    /// or too large to keep).
    made: BTreeMap<PathBuf, Option<Vec<u8>>>,
}

static MADE: Mutex<Vec<Made>> = Mutex::new(Vec::new());

fn lock() -> MutexGuard<'static, Vec<Made>> {
    MADE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Note the worktree rein just made at `tree`, and `beside` (files rein made for it, such
/// as `.claude/worktrees/.gitignore`).
pub fn note_made(tree: &Path, beside: &[PathBuf]) {
    let Ok(tree) = std::fs::canonicalize(tree) else { return };
    let mut links = Vec::new();
    let dot_git = tree.join(".git");
    if let Ok(bytes) = read_regular(&dot_git) {
        if let Some(gitdir) = crate::plan::gitdir_of(&tree) {
            for name in ["gitdir", "commondir"] {
                let path = gitdir.join(name);
                if let Ok(b) = read_regular(&path) {
                    links.push((path, b));
                }
            }
        }
        links.push((dot_git, bytes));
    }
    let mut made = BTreeMap::new();
    let mut budget = KEEP_BYTES;
    let found = crate::plan::protected_names(std::slice::from_ref(&tree), &[]).protected;
    for path in found.into_iter().chain(beside.iter().cloned()) {
        let content = read_regular(&path).ok().filter(|b| b.len() <= budget);
        budget -= content.as_ref().map_or(0, Vec::len);
        made.insert(path, content);
    }
    let mut all = lock();
    all.retain(|m| m.tree != tree);
    all.push(Made { tree, links, made });
}

/// The worktrees rein made that still exist.
pub(crate) fn made() -> Vec<Made> {
    lock().iter().filter(|m| m.tree.is_dir()).cloned().collect()
}

impl Made {
    /// Whether `path` is as rein made it with this worktree (a command did not make it).
    pub(crate) fn made_here(&self, path: &Path) -> bool {
        match self.made.get(path) {
            None => false,
            Some(None) => std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()),
            Some(Some(bytes)) => read_regular(path).is_ok_and(|now| now == *bytes),
        }
    }

    /// Put back a link file a command changed; one violation line each.
    pub(crate) fn restore_links(&self, lines: &mut Vec<String>) {
        for (path, bytes) in &self.links {
            let Some(dir) = path.parent() else { continue };
            if !dir.is_dir() || read_regular(path).is_ok_and(|now| now == *bytes) {
                continue;
            }
            if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                crate::nofollow::remove(path);
            }
            if crate::nofollow::replace(path, bytes, 0o644).is_ok() {
                lines.push(format!(
                    "deny file-write {} (a worktree's link to its repository; restored)",
                    path.display()
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_noted_worktree_keeps_its_links_and_knows_its_files() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let gitdir = root.join(".git/worktrees/b");
        let tree = root.join(".claude/worktrees/b");
        std::fs::create_dir_all(&gitdir).unwrap();
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(tree.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
        std::fs::write(gitdir.join("gitdir"), format!("{}\n", tree.join(".git").display())).unwrap();
        std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
        std::fs::write(tree.join(".mcp.json"), "{}").unwrap();
        note_made(&tree, &[]);
        let made = made().into_iter().find(|m| m.tree == tree).unwrap();
        assert!(made.made_here(&tree.join(".mcp.json")));
        std::fs::write(tree.join(".mcp.json"), "{\"mcpServers\": {}}").unwrap();
        assert!(!made.made_here(&tree.join(".mcp.json")), "changed since");
        assert!(!made.made_here(&tree.join(".envrc")), "never made");
        std::fs::write(gitdir.join("commondir"), "/elsewhere\n").unwrap();
        let mut lines = Vec::new();
        made.restore_links(&mut lines);
        assert_eq!(std::fs::read_to_string(gitdir.join("commondir")).unwrap(), "../..\n");
        assert_eq!(lines.len(), 1, "{lines:?}");
    }
}
