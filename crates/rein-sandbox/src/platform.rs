//! The platform seam: every Linux-only confinement mechanism rein uses — seccomp
//! filters, Landlock rulesets, the in-process confinement built from both (and with
//! seccomp, bubblewrap's helper stage), and the live record of a command's writes —
//! comes through this module. Built without the
//! `platform` feature (`cargo check --no-default-features`), each is a stand-in that
//! says it is unavailable: the probe then finds Tier C, and rein says commands run
//! unsandboxed. (rein's own `prctl` is behind the same feature in `rein-process`.)

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

#[cfg(feature = "platform")]
#[path = "inprocess.rs"]
pub(crate) mod inprocess;
#[cfg(feature = "platform")]
#[path = "landlock_rules.rs"]
pub(crate) mod landlock_rules;
#[cfg(feature = "platform")]
#[path = "seccomp.rs"]
pub mod seccomp;
#[cfg(feature = "platform")]
#[path = "watch.rs"]
pub(crate) mod watch;

#[cfg(not(feature = "platform"))]
#[path = "unavailable.rs"]
mod unavailable;
#[cfg(not(feature = "platform"))]
pub use unavailable::seccomp;
#[cfg(not(feature = "platform"))]
pub(crate) use unavailable::{inprocess, landlock_rules, watch};
