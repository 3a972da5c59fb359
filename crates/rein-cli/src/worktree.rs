//! `--worktree NAME` / `-w`: the session works in its own git worktree, as Claude Code's
//! does (see `rein_tools::git_worktree`); when the session ends the worktree is removed
//! if nothing changed in it, and kept otherwise. A WorktreeCreate hook, where one is
//! configured, makes the worktree instead of git (and WorktreeRemove hooks are told
//! when the session is done with it: see `rein_session::worktree_hooks`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use rein_tools::git_worktree::{Finished, Worktree};

use crate::args::Args;

/// Run the session `session` in the worktree `--worktree` names, then finish with it.
pub(crate) fn run(args: &Args, session: fn(&Args) -> anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    let mut args = args.clone();
    let name = match args.worktree.as_deref() {
        Some("") | None => rein_tools::git_worktree::made_up_name(),
        Some(name) => name.to_string(),
    };
    // The hooks and the session see one id.
    if args.resume.is_none() && !args.continue_session {
        args.session_id.get_or_insert_with(|| uuid::Uuid::new_v4().to_string());
    }
    let cwd = std::env::current_dir()?;
    let id = args.session_id.clone().unwrap_or_default();
    let hooks = rein_session::worktree_hooks::load(&args.options(), &cwd, &id)?;
    let runtime = crate::runtime()?;
    let made_by_hook = match &hooks {
        Some(h) => runtime.block_on(h.create(&name)).context("--worktree")?,
        None => None,
    };
    if let Some(path) = made_by_hook {
        enter(&path)?;
        eprintln!("rein: working in the worktree {} (made by a WorktreeCreate hook)", path.display());
        let result = session(&args);
        if let Some(h) = &hooks {
            told(runtime.block_on(h.remove(&path)));
        }
        return result;
    }
    let worktree = rein_tools::git_worktree::create(&cwd, &name).context("--worktree")?;
    enter(&worktree.path)?;
    eprintln!("rein: working in the worktree {} (branch {})", worktree.path.display(), worktree.branch);
    let result = session(&args);
    if let Some(h) = hooks.as_ref().filter(|_| !worktree.changed()) {
        told(runtime.block_on(h.remove(&worktree.path)));
    }
    eprintln!("rein: {}", finish(&worktree));
    result
}

fn enter(path: &Path) -> anyhow::Result<()> {
    std::env::set_current_dir(path).with_context(|| format!("entering the worktree {}", path.display()))
}

fn told(notices: Vec<String>) {
    for n in notices {
        eprintln!("rein: {n}");
    }
}

/// The session is over: what became of the worktree.
fn finish(worktree: &Worktree) -> String {
    match worktree.finish(false) {
        Finished::Removed => format!("Removed the worktree {} (nothing changed in it)", worktree.path.display()),
        Finished::Kept(why) => {
            format!("The worktree {} (branch {}) was kept: {why}", worktree.path.display(), worktree.branch)
        }
    }
}
