//! What mounts cannot hold: after a sandboxed command, protected paths it *created*
//! (a new `.mcp.json`, `.claude/`, `.envrc`… did not exist, so no read-only mount could
//! cover them) are removed, and a repository it created loses its hooks and the config
//! keys that run programs — otherwise a later, unsandboxed process (the next session's
//! MCP servers and hooks, the user's own `git`) would run what the command planted. In
//! Tier B, where nothing inside the roots is mounted read-only, the existing protected
//! files are saved before the command and put back after it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::gitconfig;
use crate::plan::{Plan, protected_names};

/// At most this much protected content is saved per command (Tier B).
const SAVE_BUDGET: usize = 8 << 20;

/// A protected file as saved: its contents and mode, or (too large to keep, or over
/// the budget) what tells a change — size, change time, inode — or nothing (not a file).
type Saved = Result<(Vec<u8>, u32), Option<Stamp>>;

/// (size, change time s, change time ns, inode).
type Stamp = (u64, i64, i64, u64);

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt as _;
    (meta.size(), meta.ctime(), meta.ctime_nsec(), meta.ino())
}

/// The state before a command.
#[derive(Debug)]
pub(crate) struct Guard {
    roots: Vec<PathBuf>,
    allow_write: Vec<String>,
    existing: BTreeSet<PathBuf>,
    /// The protected directories (Tier B: what is added in them goes).
    held_dirs: Vec<PathBuf>,
    placeholders: Vec<PathBuf>,
    /// Writable inside protected directories (agents' worktrees): never saved or undone.
    reopened: Vec<PathBuf>,
    /// When the command was planned: worktrees rein makes from then on are held to
    /// what git made (the command's plan did not see them).
    started: std::time::Instant,
    /// Tier B: the protected files' contents and modes, by path (`None`: known, too
    /// large to save).
    saved: Option<BTreeMap<PathBuf, Saved>>,
}

impl Guard {
    /// Record what exists (and, with `save`, the protected files' contents).
    pub(crate) fn before(plan: &Plan, save: bool) -> Guard {
        let saved = save.then(|| {
            let mut saved = BTreeMap::new();
            let mut budget = SAVE_BUDGET;
            for p in &plan.protected {
                save_tree(p, &plan.reopened, &mut saved, &mut budget);
            }
            saved
        });
        Guard {
            roots: plan.write_roots.clone(),
            allow_write: plan.allow_write.clone(),
            existing: plan.existing.clone(),
            held_dirs: plan
                .protected
                .iter()
                .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()))
                .cloned()
                .collect(),
            placeholders: plan.placeholders.clone(),
            reopened: plan.reopened.clone(),
            started: std::time::Instant::now(),
            saved,
        }
    }

    /// Undo what the command did to protected paths; one violation line each.
    pub(crate) fn after(&self) -> Vec<String> {
        let mut lines = Vec::new();
        // The worktrees rein made while the command ran: held to what git made (their
        // checked-out protected files are theirs, not the command's).
        let made = crate::made_worktrees::made_since(self.started);
        for m in &made {
            m.hold(&mut lines);
        }
        let now = protected_names(&self.roots, &self.allow_write);
        let new_repos: Vec<&PathBuf> = now.repos.difference(&self.existing).collect();
        for repo in &new_repos {
            defuse_repository(repo, &mut lines);
        }
        for path in now.protected.difference(&self.existing) {
            // A new repository's own files (config, hooks) were defused above, and a new
            // `.git` file is a checkout's link to its (defused) repository: both are the
            // command's work. Anything else protected in a new repository's folder (a
            // `.mcp.json` beside a `HEAD` the command wrote) is not.
            // (A placeholder is mounted in Tier A only: in Tier B what the command made
            // there goes like anything else.)
            if self.placeholders.contains(path) && self.saved.is_none()
                || made.iter().any(|m| m.made_here(path))
                || new_repos.iter().any(|r| crate::plan::is_git_own(r, path))
                || path.file_name().is_some_and(|n| n == ".git")
            {
                continue;
            }
            if remove(path) {
                lines.push(format!(
                    "deny file-write {} (a protected path the command created; removed)",
                    path.display()
                ));
            }
        }
        if let Some(saved) = &self.saved {
            restore(saved, &self.held_dirs, (&self.reopened, &made), &self.roots, &mut lines);
        }
        lines
    }
}

use crate::nofollow::remove;

/// A repository the command created: hooks other than git's samples go, and its config
/// files keep only the settings that run nothing (the rest is kept aside, unread by
/// git, so nothing the command wrote is lost).
fn defuse_repository(repo: &Path, lines: &mut Vec<String>) {
    let hooks = repo.join("hooks");
    // A link in the hooks' place goes itself; what it points to is never entered.
    if std::fs::symlink_metadata(&hooks).is_ok_and(|m| !m.is_dir()) && remove(&hooks) {
        lines.push(format!(
            "deny file-write {} (not a directory in a repository the command created; removed)",
            hooks.display()
        ));
    }
    if let Ok(entries) = std::fs::read_dir(&hooks) {
        for e in entries.flatten() {
            // git's samples are regular files; anything else goes.
            let sample = e.file_name().to_string_lossy().ends_with(".sample")
                && std::fs::symlink_metadata(e.path()).is_ok_and(|m| m.is_file());
            if !sample && remove(&e.path()) {
                lines.push(format!(
                    "deny file-write {} (a hook in a repository the command created; removed)",
                    e.path().display()
                ));
            }
        }
    }
    for name in ["config", "config.worktree"] {
        let config = repo.join(name);
        match gitconfig::neutralise(&config) {
            Ok(None) => {}
            Ok(Some(done)) => lines.push(format!(
                "deny file-write {} (settings that can run programs in a repository the command created: {}; \
                 removed, the original kept in {})",
                config.display(),
                done.dropped.join(", "),
                done.kept_at.display()
            )),
            Err(e) => {
                // Unreadable or unwritable: git must not read it either.
                let _ = std::fs::remove_file(&config);
                lines.push(format!(
                    "deny file-write {} (a repository the command created; its config could not be checked ({e}) and was removed)",
                    config.display()
                ));
            }
        }
    }
}

fn save_tree(path: &Path, reopened: &[PathBuf], saved: &mut BTreeMap<PathBuf, Saved>, budget: &mut usize) {
    use std::os::unix::fs::PermissionsExt as _;
    if reopened.iter().any(|r| r == path) {
        return;
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else { return };
    if meta.is_dir() {
        let Ok(entries) = std::fs::read_dir(path) else { return };
        for e in entries.flatten() {
            save_tree(&e.path(), reopened, saved, budget);
        }
    } else if meta.is_file() {
        let content = match crate::nofollow::read_whole(path) {
            Ok(bytes) if bytes.len() <= *budget => {
                *budget -= bytes.len();
                Ok((bytes, meta.permissions().mode()))
            }
            _ => Err(Some(stamp(&meta))),
        };
        saved.insert(path.to_path_buf(), content);
    } else {
        saved.insert(path.to_path_buf(), Err(None));
    }
}

fn list_tree(path: &Path, reopened: &[PathBuf], made: &[crate::made_worktrees::Made], out: &mut BTreeMap<PathBuf, ()>) {
    // A worktree rein made while the command ran is an agent's too.
    if reopened.iter().any(|r| r == path) || made.iter().any(|m| m.tree == path) {
        return;
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else { return };
    if meta.is_dir() {
        for e in std::fs::read_dir(path).into_iter().flatten().flatten() {
            list_tree(&e.path(), reopened, made, out);
        }
    } else {
        out.insert(path.to_path_buf(), ());
    }
}

/// Tier B: put the saved protected files back, and remove files added inside
/// protected directories (not inside the directories reopened in them). A repository's
/// own directory is not one: git adds to it as it works (a linked worktree's `HEAD` and
/// `index`); what git reads in it as configuration is held by name.
fn restore(
    saved: &BTreeMap<PathBuf, Saved>,
    held_dirs: &[PathBuf],
    (reopened, made): (&[PathBuf], &[crate::made_worktrees::Made]),
    roots: &[PathBuf],
    lines: &mut Vec<String>,
) {
    use std::os::unix::fs::PermissionsExt as _;
    for (path, content) in saved {
        let (bytes, mode) = match content {
            Ok(saved) => saved,
            // Too large to keep: changed, it cannot be put back, and it is moved aside
            // where nothing reads it.
            Err(Some(before)) => {
                let now = std::fs::symlink_metadata(path).ok().map(|m| stamp(&m));
                if now.is_some_and(|now| now != *before) {
                    let mut aside = path.as_os_str().to_owned();
                    aside.push(".rein-quarantined");
                    if crate::nofollow::move_into(path, Path::new(&aside)).is_ok() {
                        lines.push(format!(
                            "deny file-write {} (a protected file too large to keep, changed; moved aside to {})",
                            path.display(),
                            Path::new(&aside).display()
                        ));
                    }
                }
                continue;
            }
            Err(None) => continue,
        };
        let same = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() == *mode)
            && crate::nofollow::read_whole(path).is_ok_and(|now| now == *bytes);
        if same {
            continue;
        }
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
            remove(path);
        }
        // The directories down to it are made real again: a link or a file the command
        // put in a directory's place (`.git/hooks` → elsewhere) goes, a directory it
        // removed comes back; nothing is followed out of the root.
        let Some(root) = roots.iter().find(|r| path.starts_with(r)) else { continue };
        let mut dirs: Vec<&Path> = path.ancestors().skip(1).take_while(|a| *a != root.as_path()).collect();
        dirs.reverse();
        let mut sound = true;
        for dir in dirs {
            match std::fs::symlink_metadata(dir) {
                Ok(m) if m.is_dir() => continue,
                Ok(_) => {
                    if remove(dir) {
                        lines.push(format!(
                            "deny file-write {} (put in a protected directory's place; removed)",
                            dir.display()
                        ));
                    }
                }
                Err(_) => {}
            }
            sound &= std::fs::create_dir(dir).is_ok();
        }
        if !sound {
            continue;
        }
        if crate::nofollow::replace(path, bytes, *mode).is_ok() {
            lines.push(format!("deny file-write {} (a protected file; restored)", path.display()));
        }
    }
    let mut now = BTreeMap::new();
    for p in held_dirs {
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()) {
            list_tree(p, reopened, made, &mut now);
        }
    }
    for added in now.keys().filter(|p| !saved.contains_key(*p) && !made.iter().any(|m| m.made_here(p))) {
        if remove(added) {
            lines.push(format!("deny file-write {} (added to a protected directory; removed)", added.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_protected_paths_and_planted_hooks_are_undone() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::write(root.join("keep.txt"), "mine").unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        let guard = Guard::before(&plan, false);
        std::fs::write(root.join(".mcp.json"), "{}").unwrap();
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::write(root.join(".claude/settings.json"), "{}").unwrap();
        std::fs::create_dir_all(root.join("sub/.git/hooks")).unwrap();
        std::fs::write(root.join("sub/.git/hooks/pre-commit"), "evil").unwrap();
        std::fs::write(root.join("sub/.git/hooks/pre-commit.sample"), "sample").unwrap();
        std::fs::write(root.join("sub/.git/config"), "[core]\n\tbare = false\n\tfsmonitor = evil\n").unwrap();
        let lines = guard.after();
        assert!(!root.join(".mcp.json").exists() && !root.join(".claude").exists(), "{lines:?}");
        assert!(
            !root.join("sub/.git/hooks/pre-commit").exists() && root.join("sub/.git/hooks/pre-commit.sample").exists()
        );
        let config = std::fs::read_to_string(root.join("sub/.git/config")).unwrap();
        assert!(config.contains("bare = false") && !config.contains("fsmonitor"), "{config}");
        let kept = std::fs::read_to_string(root.join("sub/.git/config.rein-quarantined")).unwrap();
        assert!(kept.contains("fsmonitor = evil"), "the original is kept, unread by git: {kept}");
        assert!(root.join("keep.txt").exists());
        assert_eq!(lines.len(), 4, "{lines:?}");
    }

    #[test]
    fn tier_b_puts_protected_files_back() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        let guard = Guard::before(&plan, true);
        std::fs::write(root.join(".git/config"), "[core]\n\thooksPath = /tmp/x\n").unwrap();
        std::fs::write(root.join(".git/hooks/post-checkout"), "evil").unwrap();
        let lines = guard.after();
        assert_eq!(std::fs::read_to_string(root.join(".git/config")).unwrap(), "[core]\n");
        assert!(!root.join(".git/hooks/post-checkout").exists(), "{lines:?}");
        // The hooks directory swapped for a link to one the command filled: the link
        // goes, the saved hooks come back in a real directory.
        std::fs::write(root.join(".git/hooks/pre-commit"), "mine").unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        let guard = Guard::before(&plan, true);
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("pre-commit"), "evil").unwrap();
        std::fs::rename(root.join(".git/hooks"), root.join("old-hooks")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.join(".git/hooks")).unwrap();
        let lines = guard.after();
        assert!(std::fs::symlink_metadata(root.join(".git/hooks")).unwrap().is_dir(), "{lines:?}");
        assert_eq!(std::fs::read_to_string(root.join(".git/hooks/pre-commit")).unwrap(), "mine");
        assert_eq!(std::fs::read_to_string(elsewhere.path().join("pre-commit")).unwrap(), "evil", "not followed");
    }

    /// Tier B: what a command changes in an agent's worktree stays; what it changes in
    /// the `.claude/` around it, or in the worktree's own protected files, goes back.
    #[test]
    fn tier_b_keeps_writes_in_an_agents_worktree() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let tree = root.join(".claude/worktrees/agent-1");
        std::fs::create_dir_all(tree.join(".claude")).unwrap();
        crate::plan::tests::agent_worktree(&root, "agent-1");
        std::fs::write(root.join(".claude/settings.json"), "{}").unwrap();
        std::fs::write(tree.join(".claude/settings.json"), "{}").unwrap();
        std::fs::write(tree.join("old.txt"), "old").unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        let guard = Guard::before(&plan, true);
        std::fs::write(tree.join("old.txt"), "changed").unwrap();
        std::fs::write(tree.join("new.txt"), "new").unwrap();
        std::fs::write(tree.join(".claude/settings.json"), "{\"hooks\":1}").unwrap();
        std::fs::write(root.join(".claude/settings.json"), "{\"hooks\":1}").unwrap();
        std::fs::write(root.join(".claude/planted.md"), "x").unwrap();
        let lines = guard.after();
        assert_eq!(std::fs::read_to_string(tree.join("old.txt")).unwrap(), "changed", "{lines:?}");
        assert_eq!(std::fs::read_to_string(tree.join("new.txt")).unwrap(), "new", "{lines:?}");
        assert_eq!(std::fs::read_to_string(tree.join(".claude/settings.json")).unwrap(), "{}");
        assert_eq!(std::fs::read_to_string(root.join(".claude/settings.json")).unwrap(), "{}");
        assert!(!root.join(".claude/planted.md").exists(), "{lines:?}");
        assert_eq!(lines.len(), 3, "{lines:?}");
    }

    /// A folder made to look like a new repository (a `HEAD`, `objects/`, `refs/`) does
    /// not shelter the protected files planted beside them.
    #[test]
    fn a_repository_shape_does_not_shelter_planted_config() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        let guard = Guard::before(&plan, false);
        std::fs::write(root.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(root.join("objects")).unwrap();
        std::fs::create_dir_all(root.join("refs")).unwrap();
        std::fs::write(root.join(".mcp.json"), "{}").unwrap();
        std::fs::create_dir_all(root.join(".claude/commands")).unwrap();
        std::fs::write(root.join(".claude/commands/go.md"), "run").unwrap();
        // Nor does a folder git's own files sit in: only git's files go unremoved.
        std::fs::create_dir_all(root.join("info")).unwrap();
        std::fs::write(root.join("info/.envrc"), "export X=1").unwrap();
        std::fs::write(root.join("info/exclude"), "*.o").unwrap();
        std::fs::create_dir_all(root.join("hooks/x.sample")).unwrap();
        std::fs::write(root.join("hooks/x.sample/.mcp.json"), "{}").unwrap();
        let lines = guard.after();
        assert!(!root.join(".mcp.json").exists() && !root.join(".claude").exists(), "{lines:?}");
        assert!(!root.join("info/.envrc").exists() && !root.join("hooks/x.sample").exists(), "{lines:?}");
        assert!(root.join("info/exclude").exists(), "{lines:?}");
    }

    /// Tier B: a protected file too large to keep that the command changed cannot be
    /// put back; it is moved aside where nothing reads it (never compared by its first
    /// megabytes only).
    #[test]
    fn tier_b_moves_aside_a_changed_protected_file_too_large_to_keep() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let big = "#".repeat(5 << 20);
        std::fs::write(root.join(".envrc"), &big).unwrap();
        std::fs::write(root.join(".bashrc"), &big).unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        let guard = Guard::before(&plan, true);
        std::fs::write(root.join(".envrc"), format!("{big}\ntouch pwned")).unwrap();
        let lines = guard.after();
        assert!(!root.join(".envrc").exists() && root.join(".envrc.rein-quarantined").exists(), "{lines:?}");
        assert!(root.join(".bashrc").exists(), "unchanged, left alone: {lines:?}");
    }

    /// Tier B mounts no placeholder: a hooks folder the command made where there was
    /// none goes.
    #[test]
    fn tier_b_removes_a_hooks_folder_made_where_there_was_none() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::create_dir_all(root.join(".git/refs")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        assert_eq!(plan.placeholders, [root.join(".git/hooks")]);
        let guard = Guard::before(&plan, true);
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/hooks/pre-commit"), "evil").unwrap();
        let lines = guard.after();
        assert!(!root.join(".git/hooks/pre-commit").exists(), "{lines:?}");
    }

    #[test]
    fn a_new_checkout_keeps_its_link_and_its_new_repository_is_defused() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::write(root.join(".git/config"), "[include]\n\tpath = ../extra.inc\n").unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        let guard = Guard::before(&plan, false);
        // A bare-shaped repository under node_modules, reached through a `.git` file,
        // with program settings spelled the ways git reads them.
        let store = root.join("node_modules/.cache/store");
        for dir in ["objects", "refs"] {
            std::fs::create_dir_all(store.join(dir)).unwrap();
        }
        std::fs::write(store.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(store.join("config"), "[Core] FSMonitor = \"./x\"\n[alias]\n\tco = \\\n !sh\n").unwrap();
        std::fs::create_dir_all(root.join("checkout")).unwrap();
        std::fs::write(root.join("checkout/.git"), format!("gitdir: {}\n", store.display())).unwrap();
        std::fs::write(root.join("extra.inc"), "[core]\n\tpager = ./evil\n").unwrap();
        let lines = guard.after();
        assert!(root.join("checkout/.git").exists(), "the checkout's link is the command's work: {lines:?}");
        let config = std::fs::read_to_string(store.join("config")).unwrap();
        assert!(!config.contains("./x") && !config.contains("sh"), "{config}");
        assert!(!root.join("extra.inc").exists(), "a config the repository includes, created: {lines:?}");
        assert_eq!(lines.len(), 2, "{lines:?}");
    }
}
