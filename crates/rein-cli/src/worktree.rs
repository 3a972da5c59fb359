//! `--worktree NAME` / `-w`: the session works in its own git worktree, as Claude Code's
//! does — `.claude/worktrees/NAME/` at the repository's root, on a new branch
//! `worktree-NAME` made from `origin/HEAD` when the repository knows it (else `HEAD`).
//! When the session ends the worktree is removed, branch and all, if nothing changed in
//! it (no edits, no commits); otherwise it is kept and its place named.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

pub struct Worktree {
    pub path: PathBuf,
    pub branch: String,
    /// The commit it started from.
    base: String,
    repo: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().context("running git")?;
    if !out.status.success() {
        bail!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A name like `bright-running-fox`.
fn made_up_name() -> String {
    const ADJ: [&str; 8] = ["bright", "quiet", "swift", "calm", "bold", "keen", "amber", "lucid"];
    const VERB: [&str; 8] = ["running", "leaping", "humming", "drifting", "weaving", "shining", "rising", "roaming"];
    const NOUN: [&str; 8] = ["fox", "heron", "otter", "falcon", "maple", "comet", "river", "lynx"];
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos())
        ^ std::process::id();
    let n = seed as usize;
    format!("{}-{}-{}", ADJ[n % 8], VERB[(n / 8) % 8], NOUN[(n / 64) % 8])
}

/// Make the worktree for a session started in `cwd`.
pub fn create(cwd: &Path, name: &str) -> anyhow::Result<Worktree> {
    let repo = PathBuf::from(git(cwd, &["rev-parse", "--show-toplevel"]).context("--worktree needs a git repository")?);
    let name = if name.trim().is_empty() { made_up_name() } else { name.trim().to_string() };
    if name.contains('/') || name.starts_with('.') || name.contains("..") {
        bail!("--worktree {name:?}: a worktree name is one plain word (letters, digits, - and _)");
    }
    let dir = repo.join(".claude/worktrees");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    // Keep the worktrees out of the main checkout's `git status`.
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        std::fs::write(&ignore, "*\n").with_context(|| format!("writing {}", ignore.display()))?;
    }
    let path = dir.join(&name);
    let branch = format!("worktree-{name}");
    let base = git(&repo, &["rev-parse", "--verify", "--quiet", "origin/HEAD"])
        .or_else(|_| git(&repo, &["rev-parse", "--verify", "HEAD"]))
        .context("--worktree needs a commit to start from")?;
    let target = path.display().to_string();
    git(&repo, &["worktree", "add", "-b", &branch, &target, &base])?;
    Ok(Worktree { path, branch, base, repo })
}

impl Worktree {
    /// The session is over: remove the worktree if nothing changed in it; what was done.
    pub fn finish(&self) -> String {
        let changed = git(&self.path, &["status", "--porcelain"]).map(|s| !s.is_empty()).unwrap_or(true);
        let head = git(&self.path, &["rev-parse", "HEAD"]).unwrap_or_default();
        if changed || head != self.base {
            return format!("The worktree {} (branch {}) has changes and was kept", self.path.display(), self.branch);
        }
        let target = self.path.display().to_string();
        match git(&self.repo, &["worktree", "remove", &target])
            .and_then(|_| git(&self.repo, &["branch", "-D", &self.branch]))
        {
            Ok(_) => format!("Removed the worktree {} (nothing changed in it)", self.path.display()),
            Err(e) => format!("Could not remove the worktree {}: {e}", self.path.display()),
        }
    }
}
