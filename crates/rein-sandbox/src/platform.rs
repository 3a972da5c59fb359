//! The platform seam: every Linux-only confinement mechanism rein uses — seccomp
//! filters, Landlock rulesets, the in-process confinement built from both (and with
//! seccomp, bubblewrap's helper stage), and the live record of a command's writes —
//! comes through this module, and so do the Linux system calls they make (`sys`:
//! `openat2`, namespaces and mounts, `prctl`, capabilities). Built without the
//! `platform` feature (`cargo check --no-default-features`) or for another system
//! (macOS, Windows: `scripts/check-target`), each is a stand-in that says it is
//! unavailable: the probe then finds Tier C, and rein says commands run unsandboxed.
//! (rein's own `prctl`s are in `rein-process`: `keep_memory_private`, `dies_with_rein`.)

/// What the seccomp filter lets through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FilterOptions {
    /// `network.allowAllUnixSockets`: Unix sockets stay open.
    pub allow_unix_sockets: bool,
    /// Tier B (no network namespace): IP sockets are refused too.
    pub deny_ip_sockets: bool,
    /// The command shares the host's processes: every call that acts on another process
    /// by its id (limits, priorities, CPU placement, memory policy) is refused unless it
    /// names the caller itself (Landlock's scopes cover signals and tracing only).
    pub own_processes_only: bool,
}

#[cfg(target_os = "linux")]
#[path = "sys_linux.rs"]
pub(crate) mod sys;
#[cfg(not(target_os = "linux"))]
#[path = "sys_other.rs"]
pub(crate) mod sys;

#[cfg(all(feature = "platform", target_os = "linux"))]
#[path = "inprocess.rs"]
pub(crate) mod inprocess;
#[cfg(all(feature = "platform", target_os = "linux"))]
#[path = "landlock_rules.rs"]
pub(crate) mod landlock_rules;
#[cfg(all(feature = "platform", target_os = "linux"))]
#[path = "seccomp.rs"]
pub mod seccomp;
#[cfg(all(feature = "platform", target_os = "linux"))]
#[path = "watch.rs"]
pub(crate) mod watch;

#[cfg(not(all(feature = "platform", target_os = "linux")))]
#[path = "unavailable.rs"]
mod unavailable;
#[cfg(not(all(feature = "platform", target_os = "linux")))]
pub use unavailable::seccomp;
#[cfg(not(all(feature = "platform", target_os = "linux")))]
pub(crate) use unavailable::{inprocess, landlock_rules, watch};
