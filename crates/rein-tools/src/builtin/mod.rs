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

pub use bash::{Bash, BashSettings};
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
    registry.register(Read)?;
    registry.register(Glob)?;
    registry.register(Grep)?;
    register_shell_tools(registry, sandbox, BashSettings::default(), false)?;
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

/// Give the built-in tools of `registry` a new session shell: in `sandbox`, with the
/// session's Bash settings. A session's registry is built once, before its settings are
/// read (the rule kinds come from it); this is the step that configures it after.
pub fn use_session_shell(
    registry: &mut Registry,
    sandbox: Option<Arc<rein_sandbox::Sandbox>>,
    settings: BashSettings,
) -> Result<(), RegistryError> {
    register_shell_tools(registry, sandbox, settings, true)
}

/// What a session shell is made with.
#[derive(Clone)]
pub(crate) struct ShellRecipe {
    sandbox: Option<Arc<rein_sandbox::Sandbox>>,
    settings: BashSettings,
}

/// Give the shell tools `registry` offers (a subagent's choice of them) a shell of their
/// own, made as the session's was: a subagent working in a worktree runs its commands
/// there without moving the session's shell. Tools it does not offer stay out.
pub fn use_own_shell(registry: &mut Registry) -> Result<(), RegistryError> {
    let Some(recipe) = registry.shell_recipe.clone() else { return Ok(()) };
    let shell =
        Arc::new(shell::Shell::new(recipe.sandbox).map_err(|e| RegistryError::Setup(format!("session shell: {e}")))?);
    let offered = |r: &Registry, name: &str| r.registered_names().iter().any(|n| n == name);
    if offered(registry, "Bash") {
        registry.replace(Bash::new(shell.clone(), recipe.settings))?;
    }
    if offered(registry, "TaskOutput") {
        registry.replace(BashOutput::new(shell.clone()))?;
    }
    if offered(registry, "TaskStop") {
        registry.replace(KillShell::new(shell.clone()))?;
    }
    registry.set_session_shell(shell);
    Ok(())
}

/// The three tools that share the session shell, registered new or in place of the
/// ones `registry` has.
fn register_shell_tools(
    registry: &mut Registry,
    sandbox: Option<Arc<rein_sandbox::Sandbox>>,
    settings: BashSettings,
    in_place: bool,
) -> Result<(), RegistryError> {
    registry.shell_recipe = Some(ShellRecipe { sandbox: sandbox.clone(), settings });
    let shell = Arc::new(shell::Shell::new(sandbox).map_err(|e| RegistryError::Setup(format!("session shell: {e}")))?);
    macro_rules! put {
        ($tool:expr) => {
            if in_place { registry.replace($tool) } else { registry.register($tool) }
        };
    }
    put!(Bash::new(shell.clone(), settings))?;
    put!(BashOutput::new(shell.clone()))?;
    registry.set_session_shell(shell.clone());
    put!(KillShell::new(shell))
}
