//! Tier B: in-process Landlock for hosts without user namespaces. Everything stays
//! readable; writes are confined to the roots (and `/dev/null`, `/dev/zero`, `/dev/full`:
//! never a terminal, which a command could type into or paint over); where
//! the kernel has it (ABI 6), signals and abstract Unix sockets cannot leave the domain.
//! Landlock cannot deny a file inside a readable tree, so read masks and protected
//! paths inside the roots are not enforced in this tier.

use std::os::fd::OwnedFd;
use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope, path_beneath_rules,
};

use crate::SandboxError;

/// Devices a command may write besides its roots.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// A ruleset that confines writes to `roots`, as a file descriptor: made once, applied
/// (`landlock_restrict_self`) in each command's process just before it starts.
pub(crate) fn ruleset(roots: &[PathBuf]) -> Result<OwnedFd, SandboxError> {
    let abi = ABI::V6;
    let err = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(err)?
        .scope(Scope::Signal | Scope::AbstractUnixSocket)
        .map_err(err)?
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(["/"], AccessFs::from_read(abi)))
        .map_err(err)?
        .add_rules(path_beneath_rules(WRITABLE_DEVICES, AccessFs::from_all(abi)))
        .map_err(err)?
        .add_rules(path_beneath_rules(roots, AccessFs::from_all(abi)))
        .map_err(err)?;
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| SandboxError::Landlock("the kernel does not enforce Landlock".into()))
}

/// Confine the calling process (and what it starts) to its own processes: no signal to,
/// trace of or `/proc` peek into any process outside this Landlock domain, no abstract
/// Unix socket outside it. Files are not restricted. Fails where the kernel lacks
/// scopes (ABI 6): the caller then refuses to run the command.
pub(crate) fn restrict_to_own_processes() -> Result<(), SandboxError> {
    let err = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    let status = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .scope(Scope::Signal | Scope::AbstractUnixSocket)
        .map_err(err)?
        .create()
        .map_err(err)?
        .restrict_self()
        .map_err(err)?;
    if status.ruleset == landlock::RulesetStatus::FullyEnforced {
        Ok(())
    } else {
        Err(SandboxError::Landlock("the kernel does not enforce Landlock scopes".into()))
    }
}

/// The Landlock ABI version the kernel offers (0: none).
pub(crate) fn abi_version() -> i64 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: the documented probe call: no ruleset attributes, size 0, the VERSION flag.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    v.max(0)
}
