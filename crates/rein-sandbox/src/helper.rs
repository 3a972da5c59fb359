//! The helper stage, `rein __sandbox-exec [options] -- PROGRAM ARGS…`: the rein binary
//! re-executed just before the command. It applies Landlock (Tier B), then no-new-privs
//! and the seccomp filter, then becomes the command. Nothing of it stays behind.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;

use crate::SandboxError;
use crate::seccomp::{FilterOptions, install};

/// The argument that selects the helper.
pub const HELPER_ARG: &str = "__sandbox-exec";

/// The helper's arguments (after [`HELPER_ARG`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HelperArgs {
    pub filter: FilterOptions,
    /// Tier B: the directories writes are confined to.
    pub landlock_write: Vec<PathBuf>,
    pub landlock: bool,
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
        if self.landlock {
            a.push("--landlock".into());
        }
        for w in &self.landlock_write {
            a.push("--write".into());
            a.push(w.into());
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
                Some("--landlock") => out.landlock = true,
                Some("--write") => out
                    .landlock_write
                    .push(it.next().ok_or(SandboxError::Helper("--write needs a path".into()))?.into()),
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
    if parsed.landlock
        && let Err(e) = crate::landlock_rules::restrict(&parsed.landlock_write)
    {
        return e;
    }
    if let Err(e) = drop_capabilities() {
        return e;
    }
    if let Err(e) = install(parsed.filter) {
        return e;
    }
    let err = std::process::Command::new(&parsed.command[0]).args(&parsed.command[1..]).exec();
    SandboxError::Helper(format!("cannot run {:?}: {err}", parsed.command[0]))
}

/// Give up every capability (bounding, ambient, effective, permitted, inheritable): a
/// command started by rein running as root must not keep root's powers (with
/// `CAP_SYS_PTRACE` it could read rein's memory and environment through `/proc`, which
/// Landlock allows to holders of that capability). In Tier A the user namespace has
/// none to give up.
fn drop_capabilities() -> Result<(), SandboxError> {
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
        return Err(SandboxError::Helper(format!("cannot drop capabilities: {}", std::io::Error::last_os_error())));
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
            landlock: true,
            landlock_write: vec![PathBuf::from("/w")],
            command: vec!["bash".into(), "-c".into(), "--".into()],
        };
        assert_eq!(HelperArgs::parse(&h.to_args()[1..]).unwrap(), h);
        assert!(HelperArgs::parse(&["--".into()]).is_err());
    }
}
