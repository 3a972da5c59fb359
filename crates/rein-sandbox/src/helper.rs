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
    /// Descriptors (above 2) the command inherits; every other one closes at exec.
    pub keep: Vec<i32>,
    /// The command shares the host's processes: Landlock scopes keep it from
    /// signalling them (and, as every Landlock domain, from tracing them or reading
    /// their memory and environment through `/proc`). Refused where the kernel cannot.
    pub scoped: bool,
    /// A trial: stay as the parent, and when the command ends write to this descriptor
    /// whether the jail sent or refused any IP packet (its network counters).
    pub net_report: Option<i32>,
    /// A recorded run: the socket on which to send the write watch's listener.
    pub watch: Option<i32>,
    pub command: Vec<OsString>,
}

impl HelperArgs {
    pub fn to_args(&self) -> Vec<OsString> {
        let mut a: Vec<OsString> = vec![HELPER_ARG.into()];
        if self.scoped {
            a.push("--scoped".into());
        }
        if let Some(fd) = self.net_report {
            a.push("--net-report".into());
            a.push(fd.to_string().into());
        }
        if let Some(fd) = self.watch {
            a.push("--watch-fd".into());
            a.push(fd.to_string().into());
        }
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
        for fd in &self.keep {
            a.push("--keep-fd".into());
            a.push(fd.to_string().into());
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
                Some("--scoped") => {
                    out.scoped = true;
                    out.filter.own_processes_only = true;
                }
                Some("--net-report") => {
                    let fd = it.next().and_then(|f| f.to_str()).and_then(|f| f.parse::<i32>().ok());
                    match fd {
                        Some(fd) if fd > 2 => out.net_report = Some(fd),
                        _ => return Err(SandboxError::Helper("--net-report needs a descriptor above 2".into())),
                    }
                }
                Some("--watch-fd") => {
                    let fd = it.next().and_then(|f| f.to_str()).and_then(|f| f.parse::<i32>().ok());
                    match fd {
                        Some(fd) if fd > 2 => out.watch = Some(fd),
                        _ => return Err(SandboxError::Helper("--watch-fd needs a descriptor above 2".into())),
                    }
                }
                Some("--proxy") => {
                    out.proxy = Some(it.next().ok_or(SandboxError::Helper("--proxy needs a path".into()))?.into());
                }
                Some("--keep-fd") => {
                    let fd = it.next().and_then(|f| f.to_str()).and_then(|f| f.parse::<i32>().ok());
                    match fd {
                        Some(fd) if fd > 2 => out.keep.push(fd),
                        _ => return Err(SandboxError::Helper("--keep-fd needs a descriptor above 2".into())),
                    }
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
    if let Some(fd) = parsed.watch {
        // First: every process the command makes, whatever stays behind as its parent,
        // is watched (the relay and the reaper write nothing).
        crate::platform::watch::prepare();
        crate::platform::watch::child_side(fd);
    }
    if let Some(socket) = &parsed.proxy {
        // Stay as the namespace's relay; the command runs in a child.
        let relay = match crate::relay::Relay::bind(socket) {
            Ok(r) => r,
            Err(e) => return SandboxError::Helper(format!("cannot start the network relay: {e}")),
        };
        crate::platform::sys::set_not_dumpable();
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
    if parsed.scoped {
        // Sharing the host's processes: confined to its own Landlock domain first, then
        // it stays as the parent and the reaper of everything the command starts, and
        // ends every process of the domain when the command ends (no pid namespace dies
        // with it here, and the command's own session is not rein's process group).
        if let Err(e) = crate::platform::landlock_rules::restrict_to_own_processes() {
            return e;
        }
        crate::platform::sys::set_child_subreaper();
        // SAFETY: the process is single-threaded here.
        let child = unsafe { libc::fork() };
        if child < 0 {
            return SandboxError::Helper(format!("fork: {}", std::io::Error::last_os_error()));
        }
        if child > 0 {
            let code = reap_until(child);
            // SAFETY: integer arguments; -1 reaches only the processes this Landlock
            // domain may signal: the command's own.
            unsafe { libc::kill(-1, libc::SIGKILL) };
            // SAFETY: a null status pointer is allowed.
            while unsafe { libc::waitpid(-1, std::ptr::null_mut(), 0) } > 0 {}
            std::process::exit(code);
        }
    }
    if let Some(fd) = parsed.net_report {
        // SAFETY: the process is single-threaded here.
        let child = unsafe { libc::fork() };
        if child < 0 {
            return SandboxError::Helper(format!("fork: {}", std::io::Error::last_os_error()));
        }
        if child > 0 {
            let code = reap_until(child);
            let report = if network_used() { "1" } else { "0" };
            // SAFETY: a descriptor rein handed over and a buffer of its length.
            unsafe { libc::write(fd, report.as_ptr().cast(), report.len()) };
            std::process::exit(code);
        }
        // SAFETY: the report is the parent's alone.
        unsafe { libc::close(fd) };
    }
    if let Err(e) = drop_capabilities() {
        return SandboxError::Helper(format!("cannot drop capabilities: {e}"));
    }
    if let Err(e) = close_at_exec_all_but(&parsed.keep) {
        return SandboxError::Helper(format!("cannot close inherited descriptors: {e}"));
    }
    if let Err(e) = install(parsed.filter) {
        return e;
    }
    let err = std::process::Command::new(&parsed.command[0]).args(&parsed.command[1..]).exec();
    SandboxError::Helper(format!("cannot run {:?}: {err}", parsed.command[0]))
}

/// Mark every descriptor above 2 but those in `keep` close-on-exec: the command inherits
/// nothing rein (or bubblewrap, or whoever started rein) did not mean to give it. Makes
/// system calls only (it also runs between fork and exec in Tier B).
pub(crate) fn close_at_exec_all_but(keep: &[i32]) -> std::io::Result<()> {
    let mut from: libc::c_uint = 3;
    let mark = |first: libc::c_uint, last: libc::c_uint| -> std::io::Result<()> {
        if first > last {
            return Ok(());
        }
        if crate::platform::sys::close_range_cloexec(first, last) {
            return Ok(());
        }
        // Kernels before 5.11: one descriptor at a time, up to the limit.
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: a valid pointer to an rlimit.
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
        let end = last.min(limit.rlim_cur.min(1 << 20) as libc::c_uint);
        for fd in first..=end {
            // SAFETY: integer arguments only; EBADF for descriptors not open.
            unsafe { libc::fcntl(fd as i32, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        Ok(())
    };
    let mut sorted = [0i32; 8];
    let n = keep.len().min(sorted.len());
    sorted[..n].copy_from_slice(&keep[..n]);
    sorted[..n].sort_unstable();
    for &fd in &sorted[..n] {
        let fd = fd as libc::c_uint;
        if fd >= from {
            mark(from, fd - 1)?;
            from = fd + 1;
        }
    }
    mark(from, libc::c_uint::MAX)
}

/// Whether this network namespace (the jail's own, with only loopback) sent any IP
/// packet or dropped one for want of a route: a TCP connection opened, a datagram sent,
/// a name looked up.
fn network_used() -> bool {
    let count = |file: &str, keys: &[&str]| -> u64 {
        let Ok(text) = std::fs::read_to_string(file) else { return 1 };
        let lines: Vec<&str> = text.lines().collect();
        let mut total = 0;
        // /proc/net/snmp: a header line of names, then a line of values, per protocol.
        for pair in lines.chunks(2) {
            if let [names, values] = pair {
                for (n, v) in names.split_whitespace().zip(values.split_whitespace()) {
                    if keys.contains(&n) {
                        total += v.parse::<u64>().unwrap_or(0);
                    }
                }
            }
        }
        // /proc/net/snmp6: one "name value" per line.
        for line in &lines {
            let mut parts = line.split_whitespace();
            if let (Some(n), Some(v), None) = (parts.next(), parts.next(), parts.next())
                && keys.contains(&n)
            {
                total += v.parse::<u64>().unwrap_or(0);
            }
        }
        total
    };
    count("/proc/net/snmp", &["OutRequests", "OutNoRoutes", "ActiveOpens", "OutDatagrams"]) > 0
        || count("/proc/net/snmp6", &["Ip6OutRequests", "Ip6OutNoRoutes", "Udp6OutDatagrams"]) > 0
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
/// command started by rein running as root must not keep root's powers. In Tier A the
/// user namespace has none to give up.
pub(crate) fn drop_capabilities() -> std::io::Result<()> {
    crate::platform::sys::drop_capabilities()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_round_trip() {
        let h = HelperArgs {
            filter: FilterOptions { allow_unix_sockets: false, deny_ip_sockets: true, own_processes_only: true },
            proxy: Some(PathBuf::from("/p.sock")),
            keep: vec![71, 72],
            scoped: true,
            net_report: Some(73),
            watch: Some(74),
            command: vec!["bash".into(), "-c".into(), "--".into()],
        };
        assert_eq!(HelperArgs::parse(&h.to_args()[1..]).unwrap(), h);
        assert!(HelperArgs::parse(&["--".into()]).is_err());
    }
}
