//! `--worktree NAME` / `-w`: the session works in its own git worktree, as Claude Code's
//! does (see `rein_tools::git_worktree`); when the session ends the worktree is removed
//! if nothing changed in it, and kept otherwise.

use std::path::Path;

use anyhow::Context;
use rein_tools::git_worktree::{Finished, Worktree};

/// Make the worktree for a session started in `cwd`.
pub fn create(cwd: &Path, name: &str) -> anyhow::Result<Worktree> {
    rein_tools::git_worktree::create(cwd, name).context("--worktree")
}

/// The session is over: what became of the worktree.
pub fn finish(worktree: &Worktree) -> String {
    match worktree.finish(false) {
        Finished::Removed => format!("Removed the worktree {} (nothing changed in it)", worktree.path.display()),
        Finished::Kept(why) => {
            format!("The worktree {} (branch {}) was kept: {why}", worktree.path.display(), worktree.branch)
        }
    }
}
