//! Tier A's helper stage, `rein __sandbox-exec [options] -- PROGRAM ARGS…`: the rein
//! binary re-executed inside bubblewrap. With a network it stays as PID 1 to relay the
//! proxy ports (not dumpable) and runs the command in a child; either way the command
//! gets no capabilities, no-new-privs and the seccomp filter before it starts.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;

use crate::SandboxError;
use crate::platform::FilterOptions;
use crate::platform::seccomp::install;

/// The argument that selects the helper.
pub const HELPER_ARG: &str = "__sandbox-exec";

/// The helper's arguments (after [`HELPER_ARG`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HelperArgs {
    pub filter: FilterOptions,
    /// Tier A with a network: the host proxy's socket, relayed from inside.
    pub proxy: Option<PathBuf>,
    pub command: Vec<OsString>,
}

impl HelperArgs {
    pub fn to_args(&self) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec![HELPER_ARG.into()];
        if self.filter.allow_unix_sockets {
            a.push("--allow-unix".into());
        }
        if self.filter.deny_ip_sockets {
            a.push("--deny-ip".into());
        }
        if let Some(p) = &self.proxy {
            a.push("--proxy".into());
            a.push(p.into());
        }
        a.push("--".into());
        a.extend(self.command.iter().cloned());
        a
    }

    pub fn parse(args: &[OsString]) -> Result<HelperArgs, SandboxError> {
        let mut out = HelperArgs::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.to_str() {
                Some("--allow-unix") => out.filter.allow_unix_sockets = true,
                Some("--deny-ip") => out.filter.deny_ip_sockets = true,
                Some("--proxy") => {
                    out.proxy = Some(it.next().ok_or(SandboxError::Helper("--proxy needs a path".into()))?.into())
                }
                Some("--") => {
                    out.command = it.cloned().collect();
                    break;
                }
                _ => return Err(SandboxError::Helper(format!("unknown option {a:?}"))),
            }
        }
        if out.command.is_empty() {
            return Err(SandboxError::Helper("no command after --".into()));
        }
        Ok(out)
    }
}

/// Run the helper stage: on success this does not return (the process is the command
/// now); on failure it returns why, and the caller exits with 126 without running it.
pub fn run(args: &[OsString]) -> SandboxError {
    let parsed = match HelperArgs::parse(args) {
        Ok(p) => p,
        Err(e) => return e,
    };
    if let Some(socket) = &parsed.proxy {
        // Stay as the namespace's relay; the command runs in a child.
        let relay = match crate::relay::Relay::bind(socket) {
            Ok(r) => r,
            Err(e) => return SandboxError::Helper(format!("cannot start the network relay: {e}")),
        };
        // SAFETY: integer arguments only.
        unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
        // SAFETY: the process is single-threaded here (the relay's threads start after).
        let child = unsafe { libc::fork() };
        if child < 0 {
            return SandboxError::Helper(format!("fork: {}", std::io::Error::last_os_error()));
        }
        if child > 0 {
            relay.serve();
            std::process::exit(reap_until(child));
        }
        drop(relay);
    }
    if let Err(e) = drop_capabilities() {
        return SandboxError::Helper(format!("cannot drop capabilities: {e}"));
    }
    if let Err(e) = install(parsed.filter) {
        return e;
    }
    let err = std::process::Command::new(&parsed.command[0]).args(&parsed.command[1..]).exec();
    SandboxError::Helper(format!("cannot run {:?}: {err}", parsed.command[0]))
}

/// As PID 1: reap every child until `child` ends; its exit code (128 + signal).
fn reap_until(child: libc::pid_t) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: a valid pointer to an int.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid == child {
            if libc::WIFEXITED(status) {
                return libc::WEXITSTATUS(status);
            }
            return 128 + libc::WTERMSIG(status);
        }
        if pid < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 1;
        }
    }
}

/// Give up every capability (bounding, ambient, effective, permitted, inheritable): a
/// command started by rein running as root must not keep root's powers (with
/// `CAP_SYS_PTRACE` it could read rein's memory and environment through `/proc`, which
/// Landlock allows to holders of that capability). In Tier A the user namespace has
/// none to give up.
pub(crate) fn drop_capabilities() -> std::io::Result<()> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    for cap in 0..64 {
        // SAFETY: integer arguments only; EINVAL past the last capability, EPERM without
        // CAP_SETPCAP (then there is nothing in the bounding set worth dropping).
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) };
    }
    // SAFETY: integer arguments only.
    unsafe { libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) };
    let mut header = Header { version: VERSION_3, pid: 0 };
    let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
    // SAFETY: capset reads a version-3 header and two data structs, which we pass.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_round_trip() {
        let h = HelperArgs {
            filter: FilterOptions { allow_unix_sockets: false, deny_ip_sockets: true },
            proxy: Some(PathBuf::from("/p.sock")),
            command: vec!["bash".into(), "-c".into(), "--".into()],
        };
        assert_eq!(HelperArgs::parse(&h.to_args()[1..]).unwrap(), h);
        assert!(HelperArgs::parse(&["--".into()]).is_err());
    }
}
