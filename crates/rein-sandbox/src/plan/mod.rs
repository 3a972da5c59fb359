//! What one sandboxed command may touch, worked out just before it starts (files appear
//! and disappear between commands): the writable roots, the protected paths inside them
//! (read-only, their parents pinned so they cannot be renamed away), and the denied
//! reads (masked). Globs are expanded to what exists now.

mod structure;
mod walk;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub(crate) use structure::is_git_own;
pub use structure::{Found, is_protected_name};
use walk::Look;
pub use walk::{is_git_dir, would_become_git_dir};

/// At most this many entries are looked at per glob expanded outside the writable roots
/// (inside them the walk sees everything).
const SCAN_BUDGET: usize = 20_000;

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
    /// Denied reads: files and directories masked (every hard link of a masked file
    /// inside the roots too).
    pub masked: Vec<PathBuf>,
    /// Re-allowed reads inside masked directories.
    pub unmasked: Vec<PathBuf>,
    /// Every protected path that exists now, git directories included: what a command
    /// may not add to.
    pub existing: BTreeSet<PathBuf>,
    /// The `allow_write` entries, which keep the toolchain files they name writable.
    pub allow_write: Vec<String>,
    /// Directories hidden whole (a command tried first): an empty one that cannot be
    /// listed is mounted there, before the roots and `exposed` are bound back in.
    pub hidden: Vec<PathBuf>,
    /// Read-only inside the hidden directories (toolchains on PATH, git's own config).
    pub exposed: Vec<PathBuf>,
    /// Writable again inside a protected directory: the agents' worktrees inside a
    /// `.claude/` (`.claude/worktrees/NAME`, checkouts where agents work, not
    /// configuration), each one git made. What is protected inside one is held again;
    /// `.claude/worktrees` itself stays read-only, so a worktree made later is too.
    pub reopened: Vec<PathBuf>,
}

/// Deny patterns split: literal paths (canonical, existing) and globs.
fn split(patterns: &[String]) -> (Vec<PathBuf>, Vec<&str>) {
    let (globs, literal): (Vec<&String>, Vec<&String>) =
        patterns.iter().partition(|p| p.contains(['*', '?', '[', '{']));
    (
        literal.iter().filter_map(|p| std::fs::canonicalize(p).ok()).collect(),
        globs.into_iter().map(String::as_str).collect(),
    )
}

fn glob_set(globs: &[&str]) -> Option<globset::GlobSet> {
    let mut set = globset::GlobSetBuilder::new();
    for g in globs {
        set.add(globset::GlobBuilder::new(g).literal_separator(true).build().ok()?);
    }
    set.build().ok().filter(|s| !s.is_empty())
}

impl Plan {
    /// The plan for `roots` (canonical, existing): the protected paths found in them,
    /// `allow_write` (which keeps toolchain files it names writable),
    /// `deny_write`/`deny_read` patterns (absolute, globs allowed) and `allow_read`.
    pub fn new(
        roots: &[PathBuf],
        allow_write: &[String],
        deny_write: &[String],
        deny_read: &[String],
        allow_read: &[String],
    ) -> Plan {
        Plan::build(roots, allow_write, deny_write, deny_read, allow_read, false)
    }

    /// The masks of `deny_read` over `roots` (a command tried first, whose writes all go
    /// to a copy): the roots are walked only for a glob pattern or a masked file's other
    /// names, never for the protected paths.
    pub fn masks(roots: &[PathBuf], deny_read: &[String], allow_read: &[String]) -> Plan {
        Plan::build(roots, &[], &[], deny_read, allow_read, true)
    }

    fn build(
        roots: &[PathBuf],
        allow_write: &[String],
        deny_write: &[String],
        deny_read: &[String],
        allow_read: &[String],
        masks_only: bool,
    ) -> Plan {
        let (write_literal, write_globs) = split(deny_write);
        let (read_literal, read_globs) = split(deny_read);
        let (read_set, write_set) = (glob_set(&read_globs), glob_set(&write_globs));
        let look = Look { deny_read: read_set.as_ref(), deny_write: write_set.as_ref(), ..Look::default() };
        let found = if masks_only && read_set.is_none() {
            structure::Found::default()
        } else {
            structure::protected_names(roots, allow_write, look)
        };
        let inside = |p: &Path| roots.iter().any(|r| p.starts_with(r));
        let (mut protected, placeholders) = (found.protected, found.missing);
        let existing: BTreeSet<PathBuf> = protected.iter().chain(&found.repos).cloned().collect();
        // The person's denyWrite entries: a worktree below one stays read-only.
        let denied_write: Vec<PathBuf> =
            write_literal.into_iter().chain(found.walked.write_matches).filter(|p| inside(p)).collect();
        protected.extend(denied_write.iter().cloned());
        let allowed: Vec<PathBuf> = allow_read.iter().flat_map(|p| expand(p)).collect();
        // Globs reach outside the roots only as far as a bounded scan; inside them the
        // walk has matched them already.
        let outside = read_globs.iter().filter(|g| !glob_base(g).is_some_and(|b| inside(&b))).flat_map(|g| expand(g));
        let denied = read_literal
            .into_iter()
            .chain(found.walked.read_matches.iter().filter_map(|p| std::fs::canonicalize(p).ok()));
        // A deny on a file is lifted only by an allow naming that same file; a deny on a
        // directory is opened back where an allow names something inside it.
        let mut masked: BTreeSet<PathBuf> = denied.chain(outside).filter(|m| !allowed.contains(m)).collect();
        // Protected and masked by identity, not by path: every other name of such a
        // file inside the roots (a hard link) is held or masked too.
        let mask_inodes = walk::linked_inodes(&masked, roots);
        let reopened = agent_worktrees(&protected, &denied_write);
        let held: BTreeSet<PathBuf> = protected.iter().cloned().collect();
        let hold_inodes = walk::linked_inodes_within(&held, roots, Some(4));
        if !mask_inodes.is_empty() || !hold_inodes.is_empty() {
            let inodes: Vec<(u64, u64)> = mask_inodes.iter().chain(&hold_inodes).copied().collect();
            let links = walk::walk(roots, &Look { inodes: &inodes, ..Look::default() }).links;
            let already: Vec<PathBuf> = masked.iter().cloned().collect();
            for link in links {
                use std::os::unix::fs::MetadataExt as _;
                let Ok(m) = std::fs::symlink_metadata(&link) else { continue };
                let id = (m.dev(), m.ino());
                if mask_inodes.contains(&id) && !allowed.contains(&link) && !already.iter().any(|a| link.starts_with(a))
                {
                    masked.insert(link.clone());
                }
                if hold_inodes.contains(&id) && !is_held(&link, &held, &reopened) {
                    protected.insert(link);
                }
            }
        }
        // A masked file with names the roots do not hold (a hard link in the home, in
        // /tmp): those are looked for once, and masked wherever the sandbox could read
        // them.
        if !mask_inodes.is_empty() {
            let found = walk::names_elsewhere(&masked, &mask_inodes, &walk::elsewhere());
            masked.extend(found.into_iter().filter(|l| !allowed.contains(l)));
        }
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
            allow_write: allow_write.to_vec(),
            hidden: Vec::new(),
            exposed: Vec::new(),
            reopened,
        }
    }

    /// Whether `path` is read-only for a command under this plan: behind a protected
    /// path, unless a directory reopened inside that one holds it.
    pub fn holds(&self, path: &Path) -> bool {
        is_held(path, &self.protected, &self.reopened)
    }
}

/// The agents' worktrees (`.claude/worktrees/NAME`) inside the protected `.claude`
/// directories among `protected`: real directories all the way, each a checkout git made
/// (see [`made_by_git`]), held by nothing but its `.claude` by name (a `denyWrite` above
/// it, even one naming that `.claude`, keeps it read-only).
fn agent_worktrees(protected: &BTreeSet<PathBuf>, denied_write: &[PathBuf]) -> Vec<PathBuf> {
    let real_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
    let mut out = Vec::new();
    for claude in protected.iter().filter(|p| p.file_name().is_some_and(|n| n == ".claude")) {
        let folder = claude.join("worktrees");
        if !real_dir(claude) || !real_dir(&folder) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let tree = entry.path();
            let held_else = protected.iter().any(|h| tree.starts_with(h) && h != claude)
                || denied_write.iter().any(|d| tree.starts_with(d));
            if !held_else && real_dir(&tree) && made_by_git(&tree) {
                out.push(tree);
            }
        }
    }
    out.sort();
    out
}

/// The git directory a checkout's `.git` file names (resolved), if it is a regular file
/// that names one.
pub(crate) fn gitdir_of(tree: &Path) -> Option<PathBuf> {
    let file = tree.join(".git");
    if !std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let text = crate::nofollow::read_config(&file).ok()?;
    let target = text.lines().find_map(|l| l.strip_prefix("gitdir:")).map(str::trim)?;
    std::fs::canonicalize(tree.join(target)).ok().filter(|d| d.is_dir())
}

/// Whether `tree` is a linked worktree: its `.git` file names a git directory
/// `…/worktrees/X` whose own `gitdir` file names `tree`'s `.git` back (as `git worktree
/// add` writes them; a folder pointing at itself, or at another checkout's, is not).
fn made_by_git(tree: &Path) -> bool {
    let Some(dir) = gitdir_of(tree) else { return false };
    if dir.parent().and_then(Path::file_name).is_none_or(|n| n != "worktrees") {
        return false;
    }
    let Ok(back) = crate::nofollow::read_config(&dir.join("gitdir")) else { return false };
    let back = Path::new(back.trim());
    let here = tree.join(".git");
    back.is_absolute() && (back == here || std::fs::canonicalize(back).is_ok_and(|b| b == here))
}

/// The deepest of `reopened` that holds `path`.
pub fn reopened_holding<'a>(path: &Path, reopened: &'a [PathBuf]) -> Option<&'a Path> {
    reopened.iter().filter(|r| path.starts_with(r)).max_by_key(|r| r.components().count()).map(PathBuf::as_path)
}

/// Whether `path` lies at or below one of `held`, unless a directory of `reopened`
/// holds it and that held one is the reopened one's own `.claude` (an agent's worktree
/// inside a protected `.claude/` is writable; a protected name inside the worktree, or a
/// `denyWrite` above the `.claude`, still holds).
pub fn is_held<'a>(path: &Path, held: impl IntoIterator<Item = &'a PathBuf>, reopened: &[PathBuf]) -> bool {
    held.into_iter().any(|h| {
        path.starts_with(h)
            && !reopened.iter().any(|r| path.starts_with(r) && r.parent().and_then(Path::parent) == Some(h.as_path()))
    })
}

/// Look for the protected paths below `roots` (what the guard compares after a command).
pub fn protected_names(roots: &[PathBuf], allow_write: &[String]) -> Found {
    structure::protected_names(roots, allow_write, Look::default())
}

/// The literal directory a glob starts from.
fn glob_base(pattern: &str) -> Option<PathBuf> {
    let first_glob = pattern.find(['*', '?', '[', '{'])?;
    pattern[..first_glob].rfind('/').map(|i| PathBuf::from(&pattern[..i.max(1)]))
}

/// The existing paths `pattern` names, canonical: itself when literal, the matches of
/// its glob below its literal base otherwise.
pub fn expand(pattern: &str) -> Vec<PathBuf> {
    if !pattern.contains(['*', '?', '[', '{']) {
        return std::fs::canonicalize(pattern).into_iter().collect();
    }
    let Some(base) = glob_base(pattern) else { return Vec::new() };
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
pub(crate) mod tests;
