//! The process: its environment, read through one door ([`env`]), and its children.
//!
//! Every process group rein starts — shell commands, background jobs, hooks — is
//! registered here while it lives, so that nothing outlives rein: a group is killed
//! when its command ends or its future is dropped (cancel, abort), and all live groups
//! are killed on a second interrupt. The one exception is a hook configured `async:
//! true`, which is the person's to outlive the session, as in Claude Code (it is still
//! killed at its own timeout while rein runs: [`kill_group`]).

/// rein's own credentials: removed from the environment of every process rein starts
/// (commands, hooks), so that a command the model runs never sees them (ARCHITECTURE
/// invariant 11).
pub const CREDENTIAL_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "OPENAI_API_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
];

pub mod env;

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};

use rustix::process::{Pid, Signal, kill_process_group};

static LIVE: Mutex<Option<HashSet<i32>>> = Mutex::new(None);

fn live() -> MutexGuard<'static, Option<HashSet<i32>>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// A live process group; dropping the guard kills it.
pub struct GroupGuard(Option<Pid>);

impl GroupGuard {
    pub fn new(pid: Option<u32>) -> Self {
        let pid = pid.and_then(|p| Pid::from_raw(p as i32));
        if let Some(p) = pid {
            live().get_or_insert_with(HashSet::new).insert(p.as_raw_nonzero().get());
        }
        GroupGuard(pid)
    }

    /// Kill the group now (and forget it).
    pub fn kill(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = kill_process_group(p, Signal::KILL);
            if let Some(set) = live().as_mut() {
                set.remove(&p.as_raw_nonzero().get());
            }
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Kill the process group led by `pid` (one rein started and did not register).
pub fn kill_group(pid: u32) {
    if let Some(p) = Pid::from_raw(pid as i32) {
        let _ = kill_process_group(p, Signal::KILL);
    }
}

/// Kill every process group rein started that is still registered.
pub fn kill_all_process_groups() {
    let groups: Vec<i32> = live().as_ref().map(|s| s.iter().copied().collect()).unwrap_or_default();
    for g in groups {
        if let Some(p) = Pid::from_raw(g) {
            let _ = kill_process_group(p, Signal::KILL);
        }
    }
}

/// Ctrl+Z in the terminal UI: stop rein as the shell's job control would (SIGTSTP to
/// itself); this returns when the person brings it back (`fg`).
pub fn suspend_self() {
    let _ = rustix::process::kill_process(rustix::process::getpid(), Signal::TSTP);
}

/// How many process groups are alive (for tests: nothing may outlive a call).
pub fn live_process_groups() -> usize {
    live().as_ref().map(|s| s.len()).unwrap_or(0)
}

/// A server rein starts (MCP, language servers) is killed with rein, even when rein is
/// killed by SIGKILL (which runs none of rein's exit paths): Linux's parent-death
/// signal. Elsewhere the server's process group is still killed on every exit path
/// rein runs.
pub fn dies_with_rein(command: &mut std::process::Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt as _;
        // SAFETY: prctl with integer arguments is async-signal-safe.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}

/// Make rein's own memory and `/proc` files unreadable to other processes of the same
/// user (invariant 11): a process that is not dumpable has its `/proc/PID/environ`,
/// `mem`, `maps`, `fd` … owned by root, and cannot be traced by its own user. A command
/// rein runs is a new program (exec resets the flag), so it keeps its own.
pub fn keep_memory_private() {
    #[cfg(all(target_os = "linux", feature = "platform"))]
    {
        let _ = rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable);
    }
}
