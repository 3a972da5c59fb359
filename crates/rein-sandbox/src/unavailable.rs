//! The platform mechanisms' stand-ins, for a build without the `platform` feature or
//! for a system other than Linux: each reports itself unavailable, so no command is ever
//! taken for confined.

use crate::SandboxError;

fn unavailable(what: &str) -> SandboxError {
    SandboxError::Unavailable(format!("{what}: a Linux mechanism, not in this build of rein"))
}

pub mod seccomp {
    use super::unavailable;
    use crate::SandboxError;
    use crate::platform::FilterOptions;

    pub fn available() -> bool {
        false
    }

    pub fn install(_: FilterOptions) -> Result<(), SandboxError> {
        Err(unavailable("seccomp"))
    }
}

pub(crate) mod landlock_rules {
    use super::unavailable;
    use crate::SandboxError;

    pub(crate) fn abi_version() -> i64 {
        0
    }

    pub(crate) fn restrict_to_own_processes() -> Result<(), SandboxError> {
        Err(unavailable("Landlock"))
    }
}

pub(crate) mod inprocess {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::unavailable;
    use crate::SandboxError;
    use crate::platform::FilterOptions;

    /// Never made: Landlock and seccomp are not built in.
    #[derive(Debug)]
    pub(crate) struct InProcess;

    impl InProcess {
        pub(crate) fn new(_: &[PathBuf], _: FilterOptions) -> Result<Arc<InProcess>, SandboxError> {
            Err(unavailable("Landlock"))
        }

        pub(crate) fn attach(self: &Arc<Self>, _: &mut std::process::Command, _: &[i32]) {}
    }
}

pub(crate) mod watch {
    use std::os::fd::{OwnedFd, RawFd};
    use std::path::PathBuf;
    use std::sync::Arc;

    use crate::WriteRecorder;

    pub(crate) fn prepare() {}

    pub(crate) fn child_side(_: RawFd) {}

    pub(crate) fn socket_pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
        Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
    }

    #[derive(Debug, Default)]
    #[allow(dead_code, reason = "the same fields as the platform's: never read without it")]
    pub(crate) struct Walls {
        pub(crate) masked: Vec<PathBuf>,
        pub(crate) held: Vec<PathBuf>,
        pub(crate) reopened: Vec<PathBuf>,
    }

    /// Never watching: writes are not recorded live without seccomp.
    #[derive(Debug)]
    pub(crate) struct Watch;

    impl Watch {
        pub(crate) fn start(_: OwnedFd, _: Vec<PathBuf>, _: Walls, _: Arc<dyn WriteRecorder>) -> Watch {
            Watch
        }

        pub(crate) fn settle(&self) {}
    }
}

#[cfg(test)]
mod tests {
    /// Without the platform the sandbox is Tier C, and says why.
    #[test]
    fn without_the_platform_the_probe_finds_tier_c() {
        let probe = crate::detect::probe(None, &[], None);
        let crate::Tier::C { missing } = &probe.tier else { panic!("{:?}", probe.tier) };
        assert!(missing.iter().any(|m| m.contains("platform")), "{missing:?}");
    }
}
