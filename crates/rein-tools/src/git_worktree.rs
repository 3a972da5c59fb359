//! Git worktrees as Claude Code makes them for a session (`--worktree`, EnterWorktree):
//! `.claude/worktrees/NAME/` at the repository's root, on a new branch `worktree-NAME`
//! from `origin/HEAD` when the repository knows it (else `HEAD`); removed, branch and
//! all, only when nothing changed in it unless the changes are to be discarded.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a worktree could not be made or removed.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("a worktree needs a git repository ({0})")]
    NotARepository(String),
    #[error("{0:?} is not a worktree name: one plain word (letters, digits, - and _)")]
    BadName(String),
    #[error("git {command}: {message}")]
    Git { command: String, message: String },
    #[error("{0} is a link or not a folder: rein makes worktrees only in real folders")]
    NotAFolder(PathBuf),
    #[error("{0} exists already")]
    Exists(PathBuf),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A session's worktree.
#[derive(Debug, Clone, PartialEq)]
pub struct Worktree {
    pub path: PathBuf,
    pub branch: String,
    /// The commit it started from.
    pub base: String,
    /// The repository's main checkout.
    pub repo: PathBuf,
}

/// What [`Worktree::finish`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Finished {
    Removed,
    /// Kept: it has changes (or removing it failed: why).
    Kept(String),
}

/// Run git in `dir`, without rein's credentials. A repository's own hooks and fsmonitor command never run: rein
/// makes worktrees for the model, not for whoever wrote the repository's `.git/config`.
fn git(dir: &Path, args: &[&str]) -> Result<String, WorktreeError> {
    git_with(dir, args, &[])
}

/// [`git`] that only looks: it reads neither the user's nor the system's configuration
/// (whose filters and drivers a setting of the repository's could move elsewhere, as
/// `XDG_CONFIG_HOME` would), so the only programs configured are the repository's own,
/// which [`untrusted_programs`] checked.
fn git_looking(dir: &Path, args: &[&str]) -> Result<String, WorktreeError> {
    git_with(dir, args, &[("GIT_CONFIG_GLOBAL", "/dev/null"), ("GIT_CONFIG_NOSYSTEM", "1")])
}

fn git_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<String, WorktreeError> {
    git_bytes(dir, args, env).map(|out| String::from_utf8_lossy(&out).trim().to_string())
}

/// [`git_with`]'s standard output as it came.
fn git_bytes(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Result<Vec<u8>, WorktreeError> {
    let mut command = Command::new("git");
    command.envs(env.iter().copied());
    // rein's own credentials never reach a program it runs.
    rein_process::env::for_child(&mut command);
    // Looking changes nothing: no index refresh written by rein's own `git status`.
    command.env("GIT_OPTIONAL_LOCKS", "0");
    let out = command
        .args(["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"])
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()?;
    if !out.status.success() {
        return Err(WorktreeError::Git {
            command: args.join(" "),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out.stdout)
}

/// The protected files of commit `base` (paths through a name the sandbox protects),
/// with their contents as git stores them: what a worktree checked out from it holds,
/// whatever a running command wrote there meanwhile. `None`: too large to keep.
fn protected_files_of(repo: &Path, tree: &Path, base: &str) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let looking = [("GIT_CONFIG_GLOBAL", "/dev/null"), ("GIT_CONFIG_NOSYSTEM", "1")];
    let Ok(listing) = git_bytes(repo, &["ls-tree", "-r", "-z", "--full-tree", base], &looking) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in listing.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let entry = String::from_utf8_lossy(entry);
        let Some((meta, rel)) = entry.split_once('\t') else { continue };
        let mut fields = meta.split(' ');
        let (Some(_mode), Some(kind), Some(id)) = (fields.next(), fields.next(), fields.next()) else { continue };
        let rel = PathBuf::from(rel);
        if kind != "blob" || !rein_sandbox::made_worktrees::is_protected_path(tree, &rel) {
            continue;
        }
        let bytes = git_bytes(repo, &["cat-file", "blob", id], &looking).ok();
        out.push((rel, bytes.filter(|b| (b.len() as u64) < rein_sandbox::made_worktrees::KEEP_FILE)));
    }
    out
}

/// What the model is told of the repository it works in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitState {
    /// The checked-out branch (`HEAD` when detached).
    pub branch: String,
    /// `origin`'s default branch, else `main` or `master` when one exists.
    pub default_branch: Option<String>,
    /// Tracked files have uncommitted changes; `None` when rein would not run `git
    /// status` there (the repository names programs git would run: filters, hooks).
    pub dirty: Option<bool>,
}

/// The repository's state at `dir`, read from `.git` without running anything, but for
/// one `git status` (hooks and fsmonitor off, without rein's credentials) when the
/// repository's own configuration names no program that git would run for it.
pub fn state(dir: &Path) -> Option<GitState> {
    // Not a repository: nothing to tell, and no git call at all.
    let top = rein_effects::work_tree_top(dir)?;
    // This worktree's own git folder (HEAD), found as git finds it, and the folder it
    // shares with the others (refs), which a linked worktree's `commondir` names.
    let head_dir = rein_effects::git_dir(dir)?;
    let common = match std::fs::read_to_string(head_dir.join("commondir")) {
        Ok(named) => head_dir.join(named.trim()),
        Err(_) => head_dir.clone(),
    };
    let head = std::fs::read_to_string(head_dir.join("HEAD")).ok()?;
    let branch = head.trim().strip_prefix("ref: refs/heads/").unwrap_or("HEAD (detached)").to_string();
    let packed = std::fs::read_to_string(common.join("packed-refs")).unwrap_or_default();
    let has = |r: &str| common.join(r).exists() || packed.lines().any(|l| l.ends_with(&format!(" {r}")));
    let default_branch = std::fs::read_to_string(common.join("refs/remotes/origin/HEAD"))
        .ok()
        .and_then(|r| r.trim().strip_prefix("ref: refs/remotes/origin/").map(str::to_string))
        .or_else(|| ["main", "master"].into_iter().find(|b| has(&format!("refs/heads/{b}"))).map(str::to_string));
    let dirty = untrusted_programs(&top)
        .is_empty()
        .then(|| {
            git_looking(dir, &["status", "--porcelain", "--untracked-files=no"]).ok().map(|out| !out.trim().is_empty())
        })
        .flatten();
    Some(GitState { branch, default_branch, dirty })
}

/// A name like `bright-running-fox`.
pub fn made_up_name() -> String {
    const ADJ: [&str; 8] = ["bright", "quiet", "swift", "calm", "bold", "keen", "amber", "lucid"];
    const VERB: [&str; 8] = ["running", "leaping", "humming", "drifting", "weaving", "shining", "rising", "roaming"];
    const NOUN: [&str; 8] = ["fox", "heron", "otter", "falcon", "maple", "comet", "river", "lynx"];
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos())
        ^ std::process::id();
    let n = seed as usize;
    format!("{}-{}-{}", ADJ[n % 8], VERB[(n / 8) % 8], NOUN[(n / 64) % 8])
}

/// Where the worktree `name` of the repository holding `dir` goes, and the repository.
pub fn place(dir: &Path, name: &str) -> Result<(PathBuf, PathBuf), WorktreeError> {
    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !plain {
        return Err(WorktreeError::BadName(name.to_string()));
    }
    let repo = PathBuf::from(
        git(dir, &["rev-parse", "--show-toplevel"]).map_err(|e| WorktreeError::NotARepository(e.to_string()))?,
    );
    Ok((repo.join(".claude/worktrees").join(name), repo))
}

/// What in the repository's own configuration names a program git would run while a
/// worktree is made, inspected or removed (filters, included config, …) — beyond the
/// hooks and fsmonitor command rein already turns off. The model's worktree tools
/// refuse such a repository.
pub fn untrusted_programs(dir: &Path) -> Vec<String> {
    rein_effects::programs_named(dir)
        .into_iter()
        .filter(|k| {
            let key = k.rsplit(": ").next().unwrap_or(k);
            !(key == "core.fsmonitor" || key == "core.hookspath" || key.starts_with("hooks/"))
        })
        .collect()
}

/// Make the worktree `name` (a made-up one when empty) of the repository holding `dir`.
pub fn create(dir: &Path, name: &str) -> Result<Worktree, WorktreeError> {
    let name = if name.is_empty() { made_up_name() } else { name.to_string() };
    let (path, repo) = place(dir, &name)?;
    let parent = path.parent().unwrap_or(&repo).to_path_buf();
    // Nothing on the way is a link a command planted: rein's own writes below would
    // follow it (into a settings file, a start-up file, another folder).
    let claude = parent.parent().unwrap_or(&repo).to_path_buf();
    for folder in [&claude, &parent] {
        match std::fs::symlink_metadata(folder) {
            Ok(m) if !m.is_dir() => return Err(WorktreeError::NotAFolder(folder.clone())),
            Ok(_) => {}
            Err(_) => std::fs::create_dir(folder)
                .or_else(|e| if e.kind() == std::io::ErrorKind::AlreadyExists { Ok(()) } else { Err(e) })?,
        }
    }
    if std::fs::symlink_metadata(&path).is_ok() {
        return Err(WorktreeError::Exists(path));
    }
    // Keep the worktrees out of the main checkout's `git status` (made new, never
    // through a link: an existing name is left as it is).
    match std::fs::OpenOptions::new().write(true).create_new(true).open(parent.join(".gitignore")) {
        Ok(mut f) => std::io::Write::write_all(&mut f, b"*\n")?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e.into()),
    }
    let branch = format!("worktree-{name}");
    let base = git(&repo, &["rev-parse", "--verify", "--quiet", "origin/HEAD"])
        .or_else(|_| git(&repo, &["rev-parse", "--verify", "HEAD"]))?;
    let target = path.display().to_string();
    git(&repo, &["worktree", "add", "-b", &branch, &target, &base])?;
    // The sandbox's guard of a command running meanwhile holds it to what git made: its
    // links to the repository and the protected files git checked out.
    // (`base` is the commit's id: what it holds cannot change under rein.)
    let checked_out = protected_files_of(&repo, &path, &base);
    rein_sandbox::made_worktrees::note_made(&path, &checked_out, &[parent.join(".gitignore")]);
    Ok(Worktree { path, branch, base, repo })
}

impl Worktree {
    /// Whether anything changed in it: edits, new files or commits.
    pub fn changed(&self) -> bool {
        let dirty = git(&self.path, &["status", "--porcelain"]).map(|s| !s.is_empty()).unwrap_or(true);
        dirty || git(&self.path, &["rev-parse", "HEAD"]).map(|h| h != self.base).unwrap_or(true)
    }

    /// Remove it if nothing changed in it (or `discard`: whatever changed).
    pub fn finish(&self, discard: bool) -> Finished {
        if !discard && self.changed() {
            return Finished::Kept("it has changes".into());
        }
        let target = self.path.display().to_string();
        let mut remove = vec!["worktree", "remove"];
        if discard {
            remove.push("--force");
        }
        remove.push(&target);
        let removed = git(&self.repo, &remove);
        if removed.is_ok() {
            rein_sandbox::made_worktrees::forget(&self.path);
        }
        match removed.and_then(|_| git(&self.repo, &["branch", "-D", &self.branch])) {
            Ok(_) => Finished::Removed,
            Err(e) => Finished::Kept(e.to_string()),
        }
    }
}

#[cfg(test)]
mod link_tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        let run = |args: &[&str]| {
            let ok = std::process::Command::new("git").arg("-C").arg(dir.path()).args(args).status();
            assert!(ok.is_ok_and(|s| s.success()), "git {args:?}");
        };
        run(&["init", "-q", "-b", "main"]);
        run(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start"]);
        dir
    }

    #[test]
    fn a_planted_link_on_the_way_is_never_written_through() {
        // .claude/worktrees is a link (to the agents folder): no worktree is made there.
        let dir = repo();
        let agents = dir.path().join(".claude/agents");
        std::fs::create_dir_all(&agents).expect("agents");
        std::os::unix::fs::symlink(&agents, dir.path().join(".claude/worktrees")).expect("link");
        assert!(matches!(create(dir.path(), "a"), Err(WorktreeError::NotAFolder(_))));
        assert_eq!(std::fs::read_dir(&agents).expect("agents").count(), 0);

        // .claude/worktrees/.gitignore is a dangling link to a start-up file: left alone.
        let dir = repo();
        let target = dir.path().join("profile");
        std::fs::create_dir_all(dir.path().join(".claude/worktrees")).expect("worktrees");
        std::os::unix::fs::symlink(&target, dir.path().join(".claude/worktrees/.gitignore")).expect("link");
        let made = create(dir.path(), "b").expect("the worktree is made");
        assert!(made.path.join(".git").exists());
        assert!(!target.exists(), "nothing was written through the link");
    }
}
