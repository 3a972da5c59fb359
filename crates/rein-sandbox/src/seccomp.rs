//! The seccomp filter every sandboxed command runs under (all tiers): it closes the ways
//! out that namespaces and mounts do not — every socket family but IP (in Tier A's own
//! network namespace), netlink and, when allowed, Unix; io_uring,
//! tracing other processes, making new namespaces or mounts (which could undo the
//! masks), the kernel keyring, BPF, perf, userfaultfd, typing into the terminal, and
//! setting setuid/setgid bits (a setuid file made in the workspace would persist on the
//! host). Default allow; each listed call fails with `EPERM`, `clone3` and `openat2`
//! with `ENOSYS` so that libc falls back to `clone` and `openat`, whose flags can be
//! inspected.
//!
//! Every condition compares exactly the bits the kernel reads: an `int` or `unsigned int`
//! argument (a socket family, an ioctl request, a mode) as 32 bits, so that a value with
//! its upper half set cannot slip past a rule written for the lower one; `clone`'s
//! `unsigned long` flags as 64. On x86-64 a third program refuses every x32 system call
//! (number with bit 30 set): the same calls under other numbers that no rule names.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition as Cond, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::SandboxError;

pub use crate::platform::FilterOptions;

const CLONE_NAMESPACES_EACH: [i32; 7] = [
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWCGROUP,
];

/// A condition on a 32-bit argument (`int`, `unsigned int`, `umode_t`): the kernel
/// truncates the register, so only the low half is compared.
fn cond(arg: u8, op: Op, value: u64) -> Result<Cond, SandboxError> {
    Cond::new(arg, Len::Dword, op, value).map_err(|e| SandboxError::Seccomp(e.to_string()))
}

/// A condition on a 64-bit argument (`unsigned long`).
fn cond64(arg: u8, op: Op, value: u64) -> Result<Cond, SandboxError> {
    Cond::new(arg, Len::Qword, op, value).map_err(|e| SandboxError::Seccomp(e.to_string()))
}

fn rule(conds: Vec<Cond>) -> Result<SeccompRule, SandboxError> {
    SeccompRule::new(conds).map_err(|e| SandboxError::Seccomp(e.to_string()))
}

/// Rules matching when `arg` has any of the setuid/setgid bits.
fn setid_bits(arg: u8) -> Result<Vec<SeccompRule>, SandboxError> {
    let bits = [libc::S_ISUID as u64, libc::S_ISGID as u64];
    bits.iter().map(|&b| rule(vec![cond(arg, Op::MaskedEq(b), b)?])).collect()
}

/// Calls refused with `EPERM`: syscall → rules (empty: always).
fn eperm_rules(opts: FilterOptions) -> Result<BTreeMap<i64, Vec<SeccompRule>>, SandboxError> {
    // An allow-list of socket families: IP (in Tier A's own network namespace; refused
    // in Tier B, which has none), netlink (the namespace's routes), and Unix sockets
    // only when allowed. Every other family — vsock, packet, and those that reach a
    // network some other way (SMC over TCP, RDS, TIPC, …) — is refused.
    let mut allowed = vec![libc::AF_NETLINK];
    if opts.allow_unix_sockets {
        allowed.push(libc::AF_UNIX);
    }
    if !opts.deny_ip_sockets {
        allowed.extend([libc::AF_INET, libc::AF_INET6]);
    }
    let not_allowed: Vec<Cond> = allowed.iter().map(|&f| cond(0, Op::Ne, f as u64)).collect::<Result<_, _>>()?;
    let socket = vec![rule(not_allowed)?];
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket);
    // socketpair makes connected pairs only, but an AF_INET pair is refused by the
    // kernel anyway; other families than Unix have no business here.
    rules.insert(libc::SYS_socketpair, vec![rule(vec![cond(0, Op::Ne, libc::AF_UNIX as u64)?])?]);
    let always = [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_ptrace,
        libc::SYS_process_vm_readv,
        libc::SYS_process_vm_writev,
        libc::SYS_pidfd_getfd,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
        libc::SYS_keyctl,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_bpf,
        libc::SYS_perf_event_open,
        libc::SYS_userfaultfd,
        libc::SYS_name_to_handle_at,
        libc::SYS_open_by_handle_at,
    ];
    for nr in always {
        rules.insert(nr, Vec::new());
    }
    // `clone` with any namespace flag (one rule per flag: the rules of a call are
    // alternatives, the conditions of a rule all hold).
    let clone: Vec<SeccompRule> = CLONE_NAMESPACES_EACH
        .iter()
        .map(|&f| rule(vec![cond64(0, Op::MaskedEq(f as u64), f as u64)?]))
        .collect::<Result<_, _>>()?;
    rules.insert(libc::SYS_clone, clone);
    rules.insert(
        libc::SYS_ioctl,
        vec![rule(vec![cond(1, Op::Eq, libc::TIOCSTI)?])?, rule(vec![cond(1, Op::Eq, libc::TIOCLINUX)?])?],
    );
    if opts.own_processes_only {
        // Acting on another process by its id: refused unless the id is 0 (the caller).
        for nr in [
            libc::SYS_prlimit64,
            libc::SYS_sched_setaffinity,
            libc::SYS_sched_setscheduler,
            libc::SYS_sched_setparam,
            libc::SYS_sched_setattr,
            libc::SYS_migrate_pages,
            libc::SYS_move_pages,
            libc::SYS_get_robust_list,
        ] {
            rules.insert(nr, vec![rule(vec![cond(0, Op::Ne, 0)?])?]);
        }
        // Whole users and groups at once, or other processes: refused outright.
        for nr in [libc::SYS_setpriority, libc::SYS_ioprio_set, libc::SYS_process_madvise, libc::SYS_kcmp] {
            rules.insert(nr, Vec::new());
        }
    }
    rules.insert(libc::SYS_fchmod, setid_bits(1)?);
    rules.insert(libc::SYS_fchmodat, setid_bits(2)?);
    rules.insert(FCHMODAT2, setid_bits(2)?);
    #[cfg(target_arch = "x86_64")]
    {
        rules.insert(libc::SYS_chmod, setid_bits(1)?);
        rules.insert(libc::SYS_creat, setid_bits(1)?);
        rules.insert(libc::SYS_open, setid_bits(2)?);
        rules.insert(libc::SYS_mkdir, setid_bits(1)?);
        rules.insert(libc::SYS_mknod, setid_bits(1)?);
    }
    rules.insert(libc::SYS_mknodat, setid_bits(2)?);
    rules.insert(libc::SYS_openat, setid_bits(3)?);
    rules.insert(libc::SYS_mkdirat, setid_bits(2)?);
    Ok(rules)
}

/// `fchmodat2` (Linux 6.6); not every libc names it yet.
const FCHMODAT2: i64 = 452;

fn arch() -> Result<TargetArch, SandboxError> {
    TargetArch::try_from(std::env::consts::ARCH).map_err(|e| SandboxError::Seccomp(e.to_string()))
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, errno: i32) -> Result<BpfProgram, SandboxError> {
    let filter = SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(errno as u32), arch()?)
        .map_err(|e| SandboxError::Seccomp(e.to_string()))?;
    filter.try_into().map_err(|e: seccompiler::BackendError| SandboxError::Seccomp(e.to_string()))
}

/// The programs (EPERM rules; `clone3` and `openat2`, whose arguments are in memory a
/// filter cannot read, → ENOSYS; on x86-64 the x32 calls → EPERM), compiled.
pub fn programs(opts: FilterOptions) -> Result<Vec<BpfProgram>, SandboxError> {
    let mut enosys = BTreeMap::new();
    enosys.insert(libc::SYS_clone3, Vec::new());
    enosys.insert(libc::SYS_openat2, Vec::new());
    let mut out = vec![compile(eperm_rules(opts)?, libc::EPERM)?, compile(enosys, libc::ENOSYS)?];
    out.extend(no_x32());
    Ok(out)
}

/// x86-64 only: every system call numbered in the x32 range fails with EPERM (not
/// ENOSYS: a kernel without x32 says that, and the filter must be told from it). (The
/// architecture is checked first: a foreign one is left to the other programs, which
/// kill it.)
#[cfg(target_arch = "x86_64")]
fn no_x32() -> Option<BpfProgram> {
    use seccompiler::sock_filter;
    // Classic BPF opcodes (linux/bpf_common.h).
    const BPF_LD: u16 = 0x00;
    const BPF_W: u16 = 0x00;
    const BPF_ABS: u16 = 0x20;
    const BPF_JMP: u16 = 0x05;
    const BPF_JEQ: u16 = 0x10;
    const BPF_JGE: u16 = 0x30;
    const BPF_K: u16 = 0x00;
    const BPF_RET: u16 = 0x06;
    const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
    const X32_SYSCALL_BIT: u32 = 0x4000_0000;
    const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    // struct seccomp_data: nr at 0, arch at 4.
    let op = |code: u16, jt: u8, jf: u8, k: u32| sock_filter { code, jt, jf, k };
    Some(vec![
        op(BPF_LD | BPF_W | BPF_ABS, 0, 0, 4),
        op(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, AUDIT_ARCH_X86_64),
        op(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW),
        op(BPF_LD | BPF_W | BPF_ABS, 0, 0, 0),
        op(BPF_JMP | BPF_JGE | BPF_K, 0, 1, X32_SYSCALL_BIT),
        op(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ERRNO | libc::EPERM as u32),
        op(BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW),
    ])
}

#[cfg(not(target_arch = "x86_64"))]
fn no_x32() -> Option<BpfProgram> {
    None
}

/// Install the filter on the calling thread (and so on what it `exec`s). Sets
/// `no_new_privs`, which seccomp needs.
pub fn install(opts: FilterOptions) -> Result<(), SandboxError> {
    for program in programs(opts)? {
        seccompiler::apply_filter(&program).map_err(|e| SandboxError::Seccomp(e.to_string()))?;
    }
    Ok(())
}

/// Whether this kernel lets a process install seccomp filters.
pub fn available() -> bool {
    // SAFETY: PR_GET_SECCOMP takes no pointers.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile_for_this_machine() {
        let all = FilterOptions { allow_unix_sockets: true, deny_ip_sockets: true, own_processes_only: true };
        for opts in [FilterOptions::default(), all] {
            let programs = programs(opts).unwrap();
            assert_eq!(programs.len(), if cfg!(target_arch = "x86_64") { 3 } else { 2 });
            assert!(programs.iter().all(|p| !p.is_empty()));
        }
    }
}

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod rule_tests;
