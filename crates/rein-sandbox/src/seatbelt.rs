//! The macOS tier's policy: a command's [`Plan`] — the same plan bubblewrap's mounts are
//! made from — written as a Seatbelt profile for `sandbox-exec -p`. Reads are open but
//! for the masked paths (re-allowed ones open again), writes only in the roots and the
//! private temp directory, the protected paths and placeholders inside them read-only,
//! pinned directories unmovable, the reopened worktrees writable again, a tried-first
//! command's hidden directories unreadable (what they expose readable), and no network
//! but the session's proxy. Later rules win in a profile, so each exception follows what
//! it excepts.
//!
//! The plan is taken apart field by field: a field added to [`Plan`] does not compile
//! here until the profile says what it means, so the two tiers cannot drift.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::Plan;

/// The network a command may reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatbeltNet {
    /// None.
    None,
    /// Only the session's proxy, at this Unix socket (which lets through what the
    /// settings allow).
    Proxy(PathBuf),
    /// All of it (the person's sandbox leaves the network open).
    All,
}

/// `path` as a profile string.
fn quoted(path: &Path) -> String {
    let text = path.to_string_lossy();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One rule over `paths`, each as a `subpath` (or a `literal`, for the node itself).
fn rule(out: &mut String, action: &str, what: &str, paths: &[PathBuf], filter: &str) {
    if paths.is_empty() {
        return;
    }
    let _ = writeln!(out, "({action} {what}");
    for p in paths {
        let _ = writeln!(out, "  ({filter} {})", quoted(p));
    }
    out.push_str(")\n");
}

/// The profile of `plan` for a command whose private temp directory is `tmp`.
pub fn profile(plan: &Plan, tmp: &Path, net: &SeatbeltNet, allow_unix_sockets: bool) -> String {
    let Plan {
        write_roots,
        pins,
        protected,
        placeholders,
        masked,
        unmasked,
        existing,
        allow_write: _,
        hidden,
        exposed,
        reopened,
    } = plan;
    // `allow_write` only decided which toolchain files stayed out of `protected`: it is
    // in the plan's paths already. `existing` adds nothing to `protected` but what the
    // walk found: both are held read-only.
    let mut held: Vec<PathBuf> = protected.clone();
    held.extend(existing.iter().filter(|p| !protected.contains(p)).cloned());
    let mut out = String::from("(version 1)\n(deny default)\n");
    out.push_str(
        "(allow process-exec process-fork)\n(allow signal (target same-sandbox))\n(allow sysctl-read)\n\
         (allow mach-lookup)\n(allow ipc-posix-shm)\n(allow iokit-open)\n(allow file-ioctl)\n",
    );
    out.push_str("; reads: everything but the masked paths\n(allow file-read*)\n");
    rule(&mut out, "deny", "file-read*", masked, "subpath");
    rule(&mut out, "deny", "file-read*", hidden, "subpath");
    rule(&mut out, "allow", "file-read*", unmasked, "subpath");
    rule(&mut out, "allow", "file-read*", exposed, "subpath");
    out.push_str("; writes: the roots and the private temp directory\n");
    let mut writable = write_roots.clone();
    writable.push(tmp.to_path_buf());
    rule(&mut out, "allow", "file-write*", &writable, "subpath");
    rule(&mut out, "allow", "file-write*", &[PathBuf::from("/dev/null"), PathBuf::from("/dev/tty")], "literal");
    out.push_str("; held inside them: protected paths, placeholders, pinned directories\n");
    rule(&mut out, "deny", "file-write*", &held, "subpath");
    rule(&mut out, "deny", "file-write*", placeholders, "subpath");
    rule(&mut out, "deny", "file-write*", pins, "literal");
    rule(&mut out, "allow", "file-write*", reopened, "subpath");
    out.push_str("; network\n");
    match net {
        SeatbeltNet::None => {}
        SeatbeltNet::Proxy(socket) => {
            let _ = writeln!(out, "(allow network-outbound (remote unix-socket (path-literal {})))", quoted(socket));
        }
        SeatbeltNet::All => out.push_str("(allow network*)\n"),
    }
    if allow_unix_sockets {
        out.push_str("(allow network* (remote unix-socket))\n");
    }
    out
}

#[cfg(test)]
#[path = "seatbelt_tests.rs"]
mod tests;
