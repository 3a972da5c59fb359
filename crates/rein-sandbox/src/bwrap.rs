//! Tier A: the bubblewrap command line for one command. New session (no typing into
//! the terminal), dies with rein, new user/pid/net/ipc/uts namespaces, no capabilities,
//! `/` read-only, the roots writable, the protected paths read-only with their parents
//! pinned, and the denied reads masked last so that no later bind re-exposes them.
//! rein's helper runs as PID 1 and becomes the command, so no unfiltered process is left
//! inside to attack.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::path::{Path, PathBuf};

use crate::plan::Plan;

/// The sources of the binds that make something writable or readable again (roots,
/// pins, re-allowed reads), opened by rein before bubblewrap starts: with no symbolic
/// link followed in any component, so a path a running command swapped for a link
/// between the plan and the mount fails to open instead of binding the link's target
/// (a host directory) writable. bubblewrap binds `/proc/self/fd/N`, the directory rein
/// checked.
#[derive(Debug, Default)]
pub struct Sources {
    opened: HashMap<PathBuf, OwnedFd>,
    /// Sources inside a copy-on-write layer: opened by the trial's mount stage once the
    /// overlays are mounted (rein's own descriptor would name the host's directory, not
    /// the overlay), as descriptors `base`, `base + 1`, … in this order.
    deferred: Vec<PathBuf>,
    base: i32,
}

impl Sources {
    /// Open every writable or re-allowed source of `plan`; the first that is no longer
    /// what the plan saw is an error.
    pub fn open(plan: &Plan) -> std::io::Result<Sources> {
        Sources::open_beside(plan, &[])
    }

    /// [`open`](Self::open), leaving the sources inside `layers` to the mount stage.
    pub fn open_beside(plan: &Plan, layers: &[PathBuf]) -> std::io::Result<Sources> {
        let mut out = HashMap::new();
        let mut deferred = Vec::new();
        for path in plan.write_roots.iter().chain(&plan.pins).chain(&plan.reopened).chain(&plan.unmasked) {
            if out.contains_key(path) || deferred.contains(path) {
                continue;
            }
            if layers.iter().any(|l| path.starts_with(l)) {
                // A pin that went away binds nothing that could be swapped.
                if plan.write_roots.contains(path) || std::fs::symlink_metadata(path).is_ok() {
                    deferred.push(path.clone());
                }
                continue;
            }
            // The resolution refuses links everywhere, the last component included.
            match crate::platform::sys::open_without_links(path, false, false) {
                Ok(fd) => {
                    out.insert(path.clone(), fd);
                }
                // A pin that went away binds nothing that could be swapped.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !plan.write_roots.contains(path) => {}
                Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                    return Err(std::io::Error::other(format!(
                        "{} became a symbolic link while the command was being prepared",
                        path.display()
                    )));
                }
                Err(e) => return Err(std::io::Error::other(format!("{}: {e}", path.display()))),
            }
        }
        let base = out.values().map(|fd| fd.as_raw_fd()).max().unwrap_or(0).max(DEFERRED_BASE) + 1;
        Ok(Sources { opened: out, deferred, base })
    }

    /// The descriptors bubblewrap must inherit.
    pub fn raw(&self) -> Vec<i32> {
        self.opened.values().map(|fd| fd.as_raw_fd()).collect()
    }

    /// The sources the mount stage opens, and the first descriptor it gives them.
    pub fn deferred(&self) -> (&[PathBuf], i32) {
        (&self.deferred, self.base)
    }

    fn has(&self, path: &Path) -> bool {
        self.opened.contains_key(path) || self.deferred.iter().any(|d| d == path)
    }

    /// What bubblewrap binds for `path`: the descriptor rein (or the stage) opened, else
    /// the path.
    fn source(&self, path: &Path) -> OsString {
        if let Some(fd) = self.opened.get(path) {
            return format!("/proc/self/fd/{}", fd.as_raw_fd()).into();
        }
        match self.deferred.iter().position(|d| d == path) {
            Some(i) => format!("/proc/self/fd/{}", self.base + i as i32).into(),
            None => path.into(),
        }
    }
}

/// The deferred sources' descriptors start above this and above every one rein passes
/// on (the shell's state descriptors, the trial's report).
const DEFERRED_BASE: i32 = 100;

fn push(args: &mut Vec<OsString>, items: &[&str]) {
    args.extend(items.iter().map(OsString::from));
}

fn push_path(args: &mut Vec<OsString>, flag: &str, path: &Path) {
    args.push(flag.into());
    args.push(path.into());
    args.push(path.into());
}

fn push_source(args: &mut Vec<OsString>, flag: &str, path: &Path, sources: &Sources) {
    args.push(flag.into());
    args.push(sources.source(path));
    args.push(path.into());
}

/// What a command shares with the host instead of getting its own.
#[derive(Debug, Clone, Copy, Default)]
pub struct Shared {
    /// The host's network (rein's own workspace profile when the person's sandbox is
    /// off; the person's sandbox never shares it).
    pub net: bool,
    /// The host's processes seen, through the host's `/proc` bound read-only into the
    /// command's own pid namespace: `ps` tells the truth, while every call that names a
    /// process by its id reaches only the namespace's (and the helper's Landlock scopes
    /// keep `/proc` from tracing or peeking into the others). Everything ends with the
    /// namespace's first process.
    pub pids: bool,
}

/// What one bind of [`layered`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    Pin,
    Reopened,
    /// Last of the three at one path: read-only wins.
    Protected,
}

/// The pins, reopened directories and protected paths of `plan`, parents before
/// children (a later bind over an earlier one's parent would hide it).
fn layered(plan: &Plan) -> Vec<(&Path, Layer)> {
    let mut all: Vec<(&Path, Layer)> = plan
        .pins
        .iter()
        .map(|p| (p.as_path(), Layer::Pin))
        .chain(plan.reopened.iter().map(|p| (p.as_path(), Layer::Reopened)))
        .chain(plan.protected.iter().map(|p| (p.as_path(), Layer::Protected)))
        .collect();
    all.sort();
    all
}

/// The arguments before `--`: namespaces, mounts, `--chdir cwd`.
pub fn args(plan: &Plan, cwd: &Path, sources: &Sources, shared: Shared) -> Vec<OsString> {
    let mut a = Vec::new();
    push(&mut a, &["--new-session", "--die-with-parent", "--unshare-user", "--unshare-pid", "--as-pid-1"]);
    if !shared.net {
        push(&mut a, &["--unshare-net"]);
    }
    push(
        &mut a,
        &["--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", "--ro-bind", "/", "/"],
    );
    push(&mut a, &["--dev", "/dev"]);
    if shared.pids {
        push(&mut a, &["--ro-bind", "/proc", "/proc"]);
    } else {
        push(&mut a, &["--proc", "/proc"]);
    }
    // Hidden: searchable, never listed or read; then what is exposed inside them.
    for h in &plan.hidden {
        push(&mut a, &["--perms", "0111", "--tmpfs"]);
        a.push(h.into());
    }
    for e in &plan.exposed {
        push_path(&mut a, "--ro-bind", e);
    }
    for root in &plan.write_roots {
        push_source(&mut a, "--bind", root, sources);
    }
    // Pins, protected paths and reopened directories in one order, a directory before
    // what lies in it: the agents' worktrees bound writable over their read-only
    // `.claude/`, then what is protected inside them read-only again. A pin inside a
    // read-only place is left out (it would make that place writable).
    for (path, how) in layered(plan) {
        match how {
            Layer::Pin if plan.holds(path) => {}
            Layer::Pin | Layer::Reopened => {
                if sources.has(path) {
                    push_source(&mut a, "--bind", path, sources);
                }
            }
            Layer::Protected => push_path(&mut a, "--ro-bind", path),
        }
    }
    for p in &plan.placeholders {
        a.push("--tmpfs".into());
        a.push(p.into());
        a.push("--remount-ro".into());
        a.push(p.into());
    }
    // Masks last: a file becomes an unopenable device node (the bind is `nodev`: a read
    // fails with EACCES, which a recursive reader reports and passes by; an empty file
    // would read as data, and `git add -A` would stage a tracked secret as emptied), a
    // directory an empty read-only one.
    for m in &plan.masked {
        if m.is_dir() {
            a.push("--tmpfs".into());
            a.push(m.into());
            a.push("--remount-ro".into());
            a.push(m.into());
        } else {
            a.push("--ro-bind".into());
            a.push("/dev/null".into());
            a.push(m.into());
        }
    }
    for u in &plan.unmasked {
        if sources.has(u) {
            push_source(&mut a, "--ro-bind", u, sources);
        }
    }
    a.push("--chdir".into());
    a.push(cwd.into());
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pin a running command swapped for a link to the host (between the plan and
    /// the mount) is refused, never bound writable; the roots are bound through the
    /// descriptors rein opened.
    #[test]
    fn writable_binds_come_from_what_rein_opened() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir(root.join("a")).unwrap();
        let plan = Plan { write_roots: vec![root.clone()], pins: vec![root.join("a")], ..Plan::default() };
        let sources = Sources::open(&plan).unwrap();
        let args: Vec<String> =
            args(&plan, &root, &sources, Shared::default()).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let bind = args.iter().position(|a| a == "--bind").unwrap();
        assert!(args[bind + 1].starts_with("/proc/self/fd/"), "{args:?}");
        assert_eq!(args[bind + 2], root.display().to_string());
        let home = tempfile::tempdir().unwrap();
        std::fs::remove_dir(root.join("a")).unwrap();
        std::os::unix::fs::symlink(home.path(), root.join("a")).unwrap();
        let err = Sources::open(&plan).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }

    /// An agent's worktree inside the read-only `.claude/` is bound writable after it,
    /// and what is protected inside the worktree read-only after that; a pin inside the
    /// read-only part is not bound at all.
    #[test]
    fn agents_worktrees_are_writable_inside_a_read_only_claude_folder() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        let tree = root.join(".claude/worktrees/agent-1");
        crate::plan::tests::agent_worktree(&root, "agent-1");
        for dir in [tree.join(".claude"), tree.join("src"), root.join(".claude/commands")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(root.join(".claude/commands/go.md"), "run it").unwrap();
        std::fs::write(tree.join(".claude/settings.json"), "{}").unwrap();
        std::fs::write(tree.join("src/.envrc"), "export X=1").unwrap();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &[], &[]);
        assert_eq!(plan.reopened, std::slice::from_ref(&tree));
        let sources = Sources::open(&plan).unwrap();
        let args: Vec<String> =
            args(&plan, &root, &sources, Shared::default()).iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let at = |target: &Path, flag: &str| {
            let t = target.display().to_string();
            args.windows(3).position(|w| w[0] == flag && w[2] == t)
        };
        let claude = at(&root.join(".claude"), "--ro-bind").expect("the .claude folder read-only");
        let reopened = at(&tree, "--bind").expect("the worktree writable");
        let inner = at(&tree.join(".claude"), "--ro-bind").expect("the worktree's own .claude read-only");
        let envrc = at(&tree.join("src/.envrc"), "--ro-bind").expect("a protected file in the worktree");
        let pin = at(&tree.join("src"), "--bind").expect("its folder pinned");
        assert!(claude < reopened && reopened < inner && reopened < pin && pin < envrc, "{args:?}");
        assert_eq!(at(&root.join(".claude/commands"), "--bind"), None, "no pin reopens the config: {args:?}");
        assert!(plan.holds(&root.join(".claude/commands/go.md")) && plan.holds(&tree.join(".claude/settings.json")));
        assert!(!plan.holds(&tree.join("src/main.rs")));
    }
}
