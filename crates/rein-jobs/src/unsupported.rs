//! Background sessions need a Unix (a pseudo-terminal, a Unix socket, sessions and
//! signals); elsewhere the same calls say so.

/// What is said where background sessions cannot run.
fn unsupported() -> crate::JobError {
    crate::JobError::Terminal("background sessions need a Unix system (Linux, macOS)".into())
}

pub mod host {
    use std::ffi::OsString;
    use std::path::Path;

    use crate::JobError;

    /// How a host starts its session.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Start {
        Fresh,
        Resume,
    }

    pub fn spawn(_: &Path, _: &Path, _: &[(OsString, OsString)], _: (u16, u16), _: Start) -> Result<(), JobError> {
        Err(super::unsupported())
    }

    pub fn run(_: &[OsString]) -> Result<i32, JobError> {
        Err(super::unsupported())
    }
}

pub mod client {
    use std::path::Path;

    use crate::JobError;

    /// How an attached terminal let go of its session.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Ended {
        Detached,
        SessionEnded,
    }

    pub fn attach(_: &Path) -> Result<Ended, JobError> {
        Err(super::unsupported())
    }

    pub fn stop(_: &Path, _: &str) -> Result<(), JobError> {
        Err(super::unsupported())
    }

    pub fn terminal_size() -> (u16, u16) {
        (100, 30)
    }
}
