//! Tier B, in process: no helper and no extra exec. The Landlock ruleset and the seccomp
//! programs are made once in rein; in each command's process, between fork and exec,
//! only system calls run (no allocation, as the child of a threaded parent requires):
//! no-new-privs, `landlock_restrict_self`, every capability dropped, the filters.

use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt as _;
use std::path::PathBuf;
use std::sync::Arc;

use seccompiler::BpfProgram;

use crate::SandboxError;
use crate::platform::FilterOptions;
use crate::platform::seccomp::programs;

/// What one set of writable roots needs, ready to apply.
#[derive(Debug)]
pub(crate) struct InProcess {
    ruleset: OwnedFd,
    programs: Vec<BpfProgram>,
}

impl InProcess {
    pub(crate) fn new(roots: &[PathBuf], filter: FilterOptions) -> Result<Arc<InProcess>, SandboxError> {
        Ok(Arc::new(InProcess {
            ruleset: crate::platform::landlock_rules::ruleset(roots)?,
            programs: programs(filter)?,
        }))
    }

    /// Confine what `command` starts; it inherits descriptors 0–2 and `keep` only.
    pub(crate) fn attach(self: &Arc<Self>, command: &mut std::process::Command, keep: &[i32]) {
        let me = self.clone();
        let keep = keep.to_vec();
        // SAFETY: the closure only makes system calls on memory prepared before the
        // fork (the ruleset descriptor, the compiled filters, `keep`); it allocates
        // nothing.
        unsafe {
            command.pre_exec(move || me.apply(&keep));
        }
    }

    fn apply(&self, keep: &[i32]) -> std::io::Result<()> {
        crate::helper::close_at_exec_all_but(keep)?;
        let fail = std::io::Error::last_os_error;
        // SAFETY: integer arguments only.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
            return Err(fail());
        }
        // SAFETY: a valid ruleset descriptor and no flags.
        if unsafe { libc::syscall(libc::SYS_landlock_restrict_self, self.ruleset.as_raw_fd(), 0u32) } != 0 {
            return Err(fail());
        }
        crate::helper::drop_capabilities()?;
        for program in &self.programs {
            let prog =
                libc::sock_fprog { len: program.len() as u16, filter: program.as_ptr() as *mut libc::sock_filter };
            // SAFETY: `prog` points at a compiled filter that outlives the call.
            if unsafe { libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0u32, &prog) } != 0 {
                return Err(fail());
            }
        }
        Ok(())
    }
}
