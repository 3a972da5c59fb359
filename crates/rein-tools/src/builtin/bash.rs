//! Bash: run a command in the session's shell (see `shell`), in the foreground with a
//! timeout, or in the background with an id for BashOutput and KillShell.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::shell::{Ending, Shell};
use crate::{Effects, RuleKind, ShellCommand, Tool, ToolContext, ToolError, ToolOutput};

const DEFAULT_TIMEOUT_MS: u64 = 120_000;
const MAX_TIMEOUT_MS: u64 = 600_000;
pub(crate) const MAX_OUTPUT_CHARS: usize = 30_000;

pub struct Bash {
    shell: Arc<Shell>,
}

impl Bash {
    pub(crate) fn new(shell: Arc<Shell>) -> Self {
        Bash { shell }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashInput {
    /// The command to execute.
    pub command: String,
    /// Optional timeout in milliseconds (max 600000, default 120000).
    pub timeout: Option<u64>,
    /// A short description of what the command does, in 5-10 words.
    pub description: Option<String>,
    /// Run the command in the background; read its output later with BashOutput.
    pub run_in_background: Option<bool>,
}

impl Tool for Bash {
    type Input = BashInput;

    fn name(&self) -> &'static str {
        "Bash"
    }

    fn description(&self) -> String {
        format!(
            "Executes a bash command in the session's shell and returns its combined stdout and stderr, in order, \
             with the exit code when it is not zero. The shell persists between calls: `cd`, exported variables \
             and functions carry over. Stdin is closed. Output beyond {MAX_OUTPUT_CHARS} characters is cut in the \
             middle. The default timeout is {}s (max {}s); on timeout the command and everything it started are \
             killed. Set run_in_background for long-running commands (servers, watchers) and read their output \
             with BashOutput; stop them with KillShell. Prefer Read, Glob and Grep over cat, find and grep.",
            DEFAULT_TIMEOUT_MS / 1000,
            MAX_TIMEOUT_MS / 1000
        )
    }

    fn validate(&self, input: &BashInput, _ctx: &ToolContext) -> Result<(), String> {
        if input.command.trim().is_empty() {
            return Err("command is empty".into());
        }
        Ok(())
    }

    /// The line as the session shell will run it: from its current directory.
    fn effects(&self, input: &BashInput, ctx: &ToolContext) -> Effects {
        let cwd = self.shell.current_dir().unwrap_or_else(|| ctx.cwd.clone());
        let shell = ShellCommand::new(&input.command, &cwd, ctx.home.as_deref()).with_state(self.shell.state());
        let effects = Effects::running(shell);
        if input.run_in_background == Some(true) { effects.not_read_only() } else { effects }
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Command { field: "command" }
    }

    fn max_result_chars(&self) -> Option<usize> {
        Some(MAX_OUTPUT_CHARS + 200)
    }

    async fn call(&self, input: BashInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if input.run_in_background == Some(true) {
            let id = self
                .shell
                .spawn_background(&ctx.cwd, &input.command)
                .map_err(|e| ToolError::new(format!("cannot start bash: {e}")))?;
            return Ok(ToolOutput::text(format!(
                "Command running in the background with ID: {id}. Read its output with BashOutput, stop it with \
                 KillShell."
            )));
        }
        let timeout = Duration::from_millis(input.timeout.unwrap_or(DEFAULT_TIMEOUT_MS).clamp(1, MAX_TIMEOUT_MS));
        let (output, ending) = self
            .shell
            .run(&ctx.cwd, &input.command, timeout, &ctx.abort, MAX_OUTPUT_CHARS)
            .await
            .map_err(|e| ToolError::new(format!("cannot run bash: {e}")))?;
        let output = output.trim_end_matches('\n');
        let sep = if output.is_empty() { "" } else { "\n" };
        Ok(match ending {
            Ending::Exited(Some(0)) => ToolOutput::text(if output.is_empty() { "(no output)" } else { output }),
            Ending::Exited(code) => {
                let code = code.map(|c| c.to_string()).unwrap_or_else(|| "none (killed by a signal)".into());
                ToolOutput::failure(format!("{output}{sep}Exit code {code}"))
            }
            Ending::TimedOut => ToolOutput::failure(format!(
                "{output}{sep}Command timed out after {} ms; it and everything it started were killed",
                timeout.as_millis()
            )),
            Ending::Cancelled => ToolOutput::failure(format!("{output}{sep}{}", rein_protocol::INTERRUPTED)),
        })
    }
}
