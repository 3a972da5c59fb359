//! Tier A: the bubblewrap command line for one command. New session (no typing into
//! the terminal), dies with rein, new user/pid/net/ipc/uts namespaces, no capabilities,
//! `/` read-only, the roots writable, the protected paths read-only with their parents
//! pinned, and the denied reads masked last so that no later bind re-exposes them.
//! rein's helper runs as PID 1 and becomes the command, so no unfiltered process is left
//! inside to attack.

use std::ffi::OsString;
use std::path::Path;

use crate::plan::Plan;

fn push(args: &mut Vec<OsString>, items: &[&str]) {
    args.extend(items.iter().map(OsString::from));
}

fn push_path(args: &mut Vec<OsString>, flag: &str, path: &Path) {
    args.push(flag.into());
    args.push(path.into());
    args.push(path.into());
}

/// The arguments before `--`: namespaces, mounts, `--chdir cwd`.
pub fn args(plan: &Plan, cwd: &Path) -> Vec<OsString> {
    let mut a = Vec::new();
    push(
        &mut a,
        &[
            "--new-session",
            "--die-with-parent",
            "--unshare-user",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--as-pid-1",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
        ],
    );
    for root in &plan.write_roots {
        push_path(&mut a, "--bind", root);
    }
    for pin in &plan.pins {
        push_path(&mut a, "--bind", pin);
    }
    for p in &plan.protected {
        push_path(&mut a, "--ro-bind", p);
    }
    for p in &plan.placeholders {
        a.push("--tmpfs".into());
        a.push(p.into());
        a.push("--remount-ro".into());
        a.push(p.into());
    }
    // Masks last: a file becomes an unopenable device node (the bind is `nodev`), a
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
        push_path(&mut a, "--ro-bind", u);
    }
    a.push("--chdir".into());
    a.push(cwd.into());
    a
}
