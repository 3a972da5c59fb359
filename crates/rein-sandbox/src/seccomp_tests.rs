//! One row per rule of the filter: the system call made with arguments the rule must
//! catch (the upper half of a 32-bit argument set, where that could slip past), in a
//! child under the filter, and the same call in a child without it. Under the filter
//! the call must fail as the rule says; without it (as root, where a missing privilege
//! cannot fail it for other reasons) it must not, so that each row is red without its
//! rule.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt as _;

use super::*;

/// Bits above the low 32: ignored by the kernel for an `int` argument.
const HIGH: u64 = 1 << 32;
/// A child's exit code when the filter could not be installed.
const NOT_INSTALLED: i32 = 250;

struct Row {
    name: &'static str,
    nr: i64,
    args: [u64; 6],
    /// The errno the filter gives.
    errno: i32,
}

/// Run `row` in a forked child (under `programs` when given): 0 on success, else errno.
fn run(row: &Row, programs: Option<&[BpfProgram]>) -> i32 {
    // SAFETY: the child makes system calls only (everything it needs was prepared
    // before the fork) and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        unsafe {
            if let Some(programs) = programs {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    libc::_exit(NOT_INSTALLED);
                }
                for p in programs {
                    let prog = libc::sock_fprog { len: p.len() as u16, filter: p.as_ptr() as *mut libc::sock_filter };
                    if libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0u32, &prog) != 0 {
                        libc::_exit(NOT_INSTALLED);
                    }
                }
            }
            let [a, b, c, d, e, f] = row.args;
            let r = libc::syscall(row.nr, a, b, c, d, e, f);
            // A clone that went through: the new process leaves at once.
            if r == 0 && matches!(row.nr, libc::SYS_clone) {
                libc::_exit(0);
            }
            libc::_exit(if r < 0 { *libc::__errno_location() } else { 0 });
        }
    }
    let mut status = 0;
    // SAFETY: a valid pointer to an int.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert!(libc::WIFEXITED(status), "{}: the child was killed", row.name);
    libc::WEXITSTATUS(status)
}

fn c(path: &std::path::Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).unwrap()
}

#[test]
fn every_rule_catches_what_the_kernel_reads() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "x").unwrap();
    let file_c = c(&file);
    let fresh: Vec<CString> = (0..8).map(|i| c(&dir.path().join(format!("new{i}")))).collect();
    let null = std::fs::File::open("/dev/null").unwrap();
    let file_fd = std::fs::File::open(&file).unwrap();
    use std::os::fd::AsRawFd as _;
    let (null_fd, file_fd_n) = (null.as_raw_fd() as u64, file_fd.as_raw_fd() as u64);
    let mut pair = [0i32; 2];
    let pair_ptr = pair.as_mut_ptr() as u64;
    let p = |s: &CString| s.as_ptr() as u64;
    let setuid = libc::S_ISUID as u64 | 0o755;
    let setgid = libc::S_ISGID as u64 | 0o755;
    let at_cwd = libc::AT_FDCWD as u32 as u64;
    let creat = (libc::O_CREAT | libc::O_WRONLY) as u64;
    let stream = libc::SOCK_STREAM as u64;
    let row = |name, nr, args: [u64; 6], errno| Row { name, nr, args, errno };
    let eperm = libc::EPERM;
    #[allow(unused_mut)]
    let mut rows = vec![
        row("socket AF_UNIX", libc::SYS_socket, [libc::AF_UNIX as u64, stream, 0, 0, 0, 0], eperm),
        row(
            "socket AF_UNIX, upper bits set",
            libc::SYS_socket,
            [HIGH | libc::AF_UNIX as u64, stream, 0, 0, 0, 0],
            eperm,
        ),
        row(
            "socket AF_VSOCK, upper bits set",
            libc::SYS_socket,
            [HIGH | libc::AF_VSOCK as u64, stream, 0, 0, 0, 0],
            eperm,
        ),
        row(
            "socket AF_PACKET, upper bits set",
            libc::SYS_socket,
            [HIGH | libc::AF_PACKET as u64, libc::SOCK_RAW as u64, 0, 0, 0, 0],
            eperm,
        ),
        row("socket AF_SMC (TCP underneath)", libc::SYS_socket, [43, stream, 0, 0, 0, 0], eperm),
        row(
            "socket AF_RDS, upper bits set",
            libc::SYS_socket,
            [HIGH | 21, libc::SOCK_SEQPACKET as u64, 0, 0, 0, 0],
            eperm,
        ),
        row("socket AF_TIPC", libc::SYS_socket, [30, libc::SOCK_RDM as u64, 0, 0, 0, 0], eperm),
        row("socket AF_ALG", libc::SYS_socket, [38, libc::SOCK_SEQPACKET as u64, 0, 0, 0, 0], eperm),
        row("socketpair AF_INET", libc::SYS_socketpair, [libc::AF_INET as u64, stream, 0, pair_ptr, 0, 0], eperm),
        row(
            "ioctl TIOCSTI, upper bits set",
            libc::SYS_ioctl,
            [null_fd, HIGH | libc::TIOCSTI, pair_ptr, 0, 0, 0],
            eperm,
        ),
        row(
            "ioctl TIOCLINUX, upper bits set",
            libc::SYS_ioctl,
            [null_fd, HIGH | libc::TIOCLINUX, pair_ptr, 0, 0, 0],
            eperm,
        ),
        row("fchmod setuid, upper bits set", libc::SYS_fchmod, [file_fd_n, HIGH | setuid, 0, 0, 0, 0], eperm),
        row("fchmodat setgid", libc::SYS_fchmodat, [at_cwd, p(&file_c), setgid, 0, 0, 0], eperm),
        row("fchmodat2 setuid", FCHMODAT2, [at_cwd, p(&file_c), setuid, 0, 0, 0], eperm),
        row("openat O_CREAT setuid", libc::SYS_openat, [at_cwd, p(&fresh[0]), creat, HIGH | setuid, 0, 0], eperm),
        row("mkdirat setgid", libc::SYS_mkdirat, [at_cwd, p(&fresh[1]), HIGH | setgid, 0, 0, 0], eperm),
        row(
            "mknodat setuid",
            libc::SYS_mknodat,
            [at_cwd, p(&fresh[2]), HIGH | libc::S_IFREG as u64 | setuid, 0, 0, 0],
            eperm,
        ),
        row("openat2", libc::SYS_openat2, [at_cwd, p(&fresh[3]), 0, 0, 0, 0], libc::ENOSYS),
        row("clone3", libc::SYS_clone3, [0, 0, 0, 0, 0, 0], libc::ENOSYS),
        row(
            "clone CLONE_NEWUSER",
            libc::SYS_clone,
            [(libc::CLONE_NEWUSER | libc::SIGCHLD) as u64, 0, 0, 0, 0, 0],
            eperm,
        ),
        row("clone CLONE_NEWNET", libc::SYS_clone, [(libc::CLONE_NEWNET | libc::SIGCHLD) as u64, 0, 0, 0, 0, 0], eperm),
        row("unshare", libc::SYS_unshare, [0, 0, 0, 0, 0, 0], eperm),
        row("setns", libc::SYS_setns, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("mount", libc::SYS_mount, [0, 0, 0, 0, 0, 0], eperm),
        row("umount2", libc::SYS_umount2, [p(&fresh[4]), 0, 0, 0, 0, 0], eperm),
        row("pivot_root", libc::SYS_pivot_root, [0, 0, 0, 0, 0, 0], eperm),
        row("open_tree", libc::SYS_open_tree, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("move_mount", libc::SYS_move_mount, [u64::MAX, 0, u64::MAX, 0, 0, 0], eperm),
        row("fsopen", libc::SYS_fsopen, [0, 0, 0, 0, 0, 0], eperm),
        row("fsconfig", libc::SYS_fsconfig, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("fsmount", libc::SYS_fsmount, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("fspick", libc::SYS_fspick, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("mount_setattr", libc::SYS_mount_setattr, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("keyctl", libc::SYS_keyctl, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("add_key", libc::SYS_add_key, [0, 0, 0, 0, 0, 0], eperm),
        row("request_key", libc::SYS_request_key, [0, 0, 0, 0, 0, 0], eperm),
        row("bpf", libc::SYS_bpf, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("perf_event_open", libc::SYS_perf_event_open, [0, 0, 0, 0, 0, 0], eperm),
        row("userfaultfd", libc::SYS_userfaultfd, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("name_to_handle_at", libc::SYS_name_to_handle_at, [at_cwd, 0, 0, 0, 0, 0], eperm),
        row("open_by_handle_at", libc::SYS_open_by_handle_at, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("io_uring_setup", libc::SYS_io_uring_setup, [0, 0, 0, 0, 0, 0], eperm),
        row("io_uring_enter", libc::SYS_io_uring_enter, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("io_uring_register", libc::SYS_io_uring_register, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("ptrace", libc::SYS_ptrace, [u64::MAX, 0, 0, 0, 0, 0], eperm),
        row("process_vm_readv", libc::SYS_process_vm_readv, [0, 0, 0, 0, 0, 0], eperm),
        row("process_vm_writev", libc::SYS_process_vm_writev, [0, 0, 0, 0, 0, 0], eperm),
        row("pidfd_getfd", libc::SYS_pidfd_getfd, [u64::MAX, 0, 0, 0, 0, 0], eperm),
    ];
    #[cfg(target_arch = "x86_64")]
    rows.extend([
        row("chmod setuid", libc::SYS_chmod, [p(&file_c), HIGH | setuid, 0, 0, 0, 0], eperm),
        row("open O_CREAT setuid", libc::SYS_open, [p(&fresh[5]), creat, HIGH | setuid, 0, 0, 0], eperm),
        row("creat setuid", libc::SYS_creat, [p(&fresh[6]), HIGH | setuid, 0, 0, 0, 0], eperm),
        row("mkdir setgid", libc::SYS_mkdir, [p(&fresh[7]), HIGH | setgid, 0, 0, 0, 0], eperm),
        row("mknod setuid", libc::SYS_mknod, [p(&fresh[7]), libc::S_IFREG as u64 | setuid, 0, 0, 0, 0], eperm),
        // x32: socket(AF_UNIX) under the x32 number of the same call.
        row("x32 socket", 0x4000_0000 | libc::SYS_socket, [libc::AF_UNIX as u64, stream, 0, 0, 0, 0], eperm),
    ]);
    let programs = programs(FilterOptions::default()).unwrap();
    // SAFETY: no arguments.
    let root = unsafe { libc::geteuid() } == 0;
    let mut wrong = Vec::new();
    for r in &rows {
        let filtered = run(r, Some(&programs));
        if filtered != r.errno {
            wrong.push(format!("{}: under the filter {filtered}, want {}", r.name, r.errno));
        }
        if root && run(r, None) == r.errno {
            wrong.push(format!("{}: fails with {} without the filter too: the row proves nothing", r.name, r.errno));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // What the filter lets through.
    let allowed = [
        row("socket AF_INET", libc::SYS_socket, [libc::AF_INET as u64, stream, 0, 0, 0, 0], 0),
        row("socketpair AF_UNIX, upper bits set", libc::SYS_socketpair, [HIGH | 1, stream, 0, pair_ptr, 0, 0], 0),
        row("fchmod 0644", libc::SYS_fchmod, [file_fd_n, 0o644, 0, 0, 0, 0], 0),
        row("clone a plain fork", libc::SYS_clone, [libc::SIGCHLD as u64, 0, 0, 0, 0, 0], 0),
    ];
    for r in &allowed {
        assert_eq!(run(r, Some(&programs)), 0, "{}", r.name);
    }
    let unix = FilterOptions { allow_unix_sockets: true, ..FilterOptions::default() };
    assert_eq!(run(&rows[1], Some(&programs_or_panic(unix))), 0, "allowAllUnixSockets opens Unix sockets");
    let tier_b = programs_or_panic(FilterOptions { deny_ip_sockets: true, ..FilterOptions::default() });
    assert_eq!(run(&allowed[0], Some(&tier_b)), libc::EPERM, "Tier B refuses IP sockets");
    let netlink =
        row("socket AF_NETLINK", libc::SYS_socket, [libc::AF_NETLINK as u64, libc::SOCK_RAW as u64, 0, 0, 0, 0], 0);
    assert_eq!(run(&netlink, Some(&tier_b)), 0, "netlink stays open");
}

fn programs_or_panic(opts: FilterOptions) -> Vec<BpfProgram> {
    programs(opts).unwrap()
}
