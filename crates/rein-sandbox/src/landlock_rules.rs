//! Tier B: in-process Landlock for hosts without user namespaces. Everything stays
//! readable; writes are confined to the roots (and the terminal and `/dev/null`); where
//! the kernel has it (ABI 6), signals and abstract Unix sockets cannot leave the domain.
//! Landlock cannot deny a file inside a readable tree, so read masks and protected
//! paths inside the roots are not enforced in this tier.

use std::path::PathBuf;

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
    path_beneath_rules,
};

use crate::SandboxError;

/// Devices a command may write besides its roots.
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts"];

/// Restrict the calling thread (and what it `exec`s) to writing `roots`.
pub fn restrict(roots: &[PathBuf]) -> Result<(), SandboxError> {
    let abi = ABI::V6;
    let err = |e: landlock::RulesetError| SandboxError::Landlock(e.to_string());
    let status = Ruleset::default()
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
        .map_err(err)?
        .restrict_self()
        .map_err(err)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(SandboxError::Landlock("the kernel does not enforce Landlock".into()));
    }
    Ok(())
}

/// The Landlock ABI version the kernel offers (0: none).
pub fn abi_version() -> i64 {
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
