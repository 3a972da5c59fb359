//! rein's built-in tools, with Claude Code's names and input schemas.

mod bash;
mod bash_jobs;
mod edit;
mod files;
mod glob;
mod grep;
mod grep_sink;
mod notebook_edit;
mod read;
mod shell;
mod shell_jobs;
mod shell_output;
mod shell_state;
mod shell_trial;
mod structured_output;
mod todo_write;
mod walk;
mod web_fetch;
mod web_page;
mod write;

pub use bash::{Bash, set_bash_timeouts, set_git_guidance};
pub use bash_jobs::{BashOutput, KillShell};
pub use edit::{Edit, MultiEdit};
pub use glob::Glob;
pub use grep::Grep;
pub use notebook_edit::NotebookEdit;
pub use read::Read;
pub use shell_trial::{TrialSlot, Tried};
pub use structured_output::{STRUCTURED_OUTPUT, StructuredOutput};
pub use todo_write::{Todo, TodoStatus, TodoWrite};
pub use web_fetch::WebFetch;
pub use write::Write;

use std::sync::Arc;

use crate::{Registry, RegistryError};

/// Put every built-in tool in `registry`. The Bash tools share one session shell.
pub fn register_builtins(registry: &mut Registry) -> Result<(), RegistryError> {
    register_builtins_sandboxed(registry, None)
}

/// [`register_builtins`], with the session's OS sandbox around the shell's commands.
pub fn register_builtins_sandboxed(
    registry: &mut Registry,
    sandbox: Option<Arc<rein_sandbox::Sandbox>>,
) -> Result<(), RegistryError> {
    let shell = Arc::new(shell::Shell::new(sandbox).map_err(|e| RegistryError::Setup(format!("session shell: {e}")))?);
    registry.register(Read)?;
    registry.register(Glob)?;
    registry.register(Grep)?;
    registry.register(Bash::new(shell.clone()))?;
    registry.register(BashOutput::new(shell.clone()))?;
    registry.set_session_shell(shell.clone());
    registry.register(KillShell::new(shell))?;
    // Their earlier names, which models and settings still use.
    registry.alias("BashOutput", "TaskOutput");
    registry.alias("KillShell", "TaskStop");
    registry.alias("KillBash", "TaskStop");
    registry.register(Write)?;
    registry.register(Edit)?;
    registry.register(MultiEdit)?;
    registry.register(NotebookEdit)?;
    registry.register(WebFetch)?;
    registry.register(TodoWrite::default())?;
    Ok(())
}
