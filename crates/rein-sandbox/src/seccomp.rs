//! The seccomp filter every sandboxed command runs under (all tiers): it closes the ways
//! out that namespaces and mounts do not — Unix, vsock and packet sockets, io_uring,
//! tracing other processes, making new namespaces or mounts (which could undo the
//! masks), the kernel keyring, BPF, perf, userfaultfd, typing into the terminal, and
//! setting setuid/setgid bits (a setuid file made in the workspace would persist on the
//! host). Default allow; each listed call fails with `EPERM`, `clone3` with `ENOSYS` so
//! that libc falls back to `clone`, whose flags can be inspected.

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

fn cond(arg: u8, op: Op, value: u64) -> Result<Cond, SandboxError> {
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
    let mut families = vec![libc::AF_VSOCK, libc::AF_PACKET];
    if !opts.allow_unix_sockets {
        families.push(libc::AF_UNIX);
    }
    if opts.deny_ip_sockets {
        families.extend([libc::AF_INET, libc::AF_INET6]);
    }
    let socket: Vec<SeccompRule> =
        families.iter().map(|&f| rule(vec![cond(0, Op::Eq, f as u64)?])).collect::<Result<_, _>>()?;
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
        .map(|&f| rule(vec![cond(0, Op::MaskedEq(f as u64), f as u64)?]))
        .collect::<Result<_, _>>()?;
    rules.insert(libc::SYS_clone, clone);
    rules.insert(
        libc::SYS_ioctl,
        vec![rule(vec![cond(1, Op::Eq, libc::TIOCSTI)?])?, rule(vec![cond(1, Op::Eq, libc::TIOCLINUX)?])?],
    );
    rules.insert(libc::SYS_fchmod, setid_bits(1)?);
    rules.insert(libc::SYS_fchmodat, setid_bits(2)?);
    rules.insert(FCHMODAT2, setid_bits(2)?);
    #[cfg(target_arch = "x86_64")]
    {
        rules.insert(libc::SYS_chmod, setid_bits(1)?);
        rules.insert(libc::SYS_creat, setid_bits(1)?);
        rules.insert(libc::SYS_open, setid_bits(2)?);
        rules.insert(libc::SYS_mkdir, setid_bits(1)?);
    }
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

/// The two programs (EPERM rules, then `clone3` → ENOSYS), compiled.
pub fn programs(opts: FilterOptions) -> Result<Vec<BpfProgram>, SandboxError> {
    let mut enosys = BTreeMap::new();
    enosys.insert(libc::SYS_clone3, Vec::new());
    Ok(vec![compile(eperm_rules(opts)?, libc::EPERM)?, compile(enosys, libc::ENOSYS)?])
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
        for opts in [FilterOptions::default(), FilterOptions { allow_unix_sockets: true, deny_ip_sockets: true }] {
            let programs = programs(opts).unwrap();
            assert_eq!(programs.len(), 2);
            assert!(programs.iter().all(|p| !p.is_empty()));
        }
    }
}
