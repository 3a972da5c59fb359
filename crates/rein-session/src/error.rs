//! Why a session could not be put together: a flag, a setting, a file or a part that
//! did not start. Each renders as the one line rein prints before it stops.

use std::fmt::Display;

/// Why the session could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A flag or setting that does not say something rein can do.
    #[error("{0}")]
    Invalid(String),
    /// A file or part of the session that could not be read or started, and why.
    #[error("{what}: {why}")]
    Failed { what: String, why: String },
    #[error(transparent)]
    Settings(#[from] rein_settings::SettingsError),
    #[error(transparent)]
    Transcript(#[from] rein_transcript::SessionError),
    #[error(transparent)]
    Model(#[from] rein_model::ModelError),
    #[error(transparent)]
    Sandbox(#[from] rein_sandbox::SandboxError),
    #[error(transparent)]
    Hooks(#[from] rein_hooks::HookConfigError),
    #[error(transparent)]
    McpConfig(#[from] rein_mcp::config::ConfigError),
    #[error(transparent)]
    Registry(#[from] rein_tools::RegistryError),
    #[error(transparent)]
    Rule(#[from] rein_policy::RuleError),
}

/// `Err(SetupError::Invalid(…))`, as `anyhow::bail!` reads.
macro_rules! invalid {
    ($($arg:tt)*) => { return Err($crate::error::SetupError::Invalid(format!($($arg)*))) };
}
pub(crate) use invalid;

/// What was being done when a lower layer failed (`.context("cannot read X")?`).
pub(crate) trait Context<T> {
    fn context(self, what: impl Display) -> Result<T, SetupError>;
    fn with_context<D: Display>(self, what: impl FnOnce() -> D) -> Result<T, SetupError>;
}

impl<T, E: Display> Context<T> for Result<T, E> {
    fn context(self, what: impl Display) -> Result<T, SetupError> {
        self.map_err(|e| SetupError::Failed { what: what.to_string(), why: e.to_string() })
    }

    fn with_context<D: Display>(self, what: impl FnOnce() -> D) -> Result<T, SetupError> {
        self.map_err(|e| SetupError::Failed { what: what().to_string(), why: e.to_string() })
    }
}

impl<T> Context<T> for Option<T> {
    fn context(self, what: impl Display) -> Result<T, SetupError> {
        self.ok_or_else(|| SetupError::Invalid(what.to_string()))
    }

    fn with_context<D: Display>(self, what: impl FnOnce() -> D) -> Result<T, SetupError> {
        self.ok_or_else(|| SetupError::Invalid(what().to_string()))
    }
}
