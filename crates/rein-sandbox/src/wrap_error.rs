//! Why a command could not be wrapped in the sandbox.

/// Why a command could not be wrapped in the sandbox (it is then refused, never run
/// unconfined).
#[derive(Debug, thiserror::Error)]
pub enum WrapError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Sandbox(#[from] crate::SandboxError),
    #[error("no tier A here")]
    NoTierA,
    #[error("the workspace cannot be overlaid")]
    NotOverlaid,
    #[error("the shell is outside the workspace")]
    OutsideWorkspace,
}
