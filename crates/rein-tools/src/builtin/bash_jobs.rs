//! BashOutput and KillShell: reading and stopping background commands.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::bash::MAX_OUTPUT_CHARS;
use super::shell::{JobStatus, Shell};
use crate::spilling::{Collected, Spilling, new_file as spill_path};
use crate::{Effects, Tool, ToolContext, ToolError, ToolOutput};

pub struct BashOutput {
    shell: Arc<Shell>,
}

pub struct KillShell {
    shell: Arc<Shell>,
}

impl BashOutput {
    pub(crate) fn new(shell: Arc<Shell>) -> Self {
        BashOutput { shell }
    }
}

impl KillShell {
    pub(crate) fn new(shell: Arc<Shell>) -> Self {
        KillShell { shell }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashOutputInput {
    pub bash_id: String,
    /// Only lines matching this regex.
    pub filter: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct KillShellInput {
    pub shell_id: String,
}

fn unknown(shell: &Shell, id: &str) -> ToolError {
    let ids = shell.job_ids();
    ToolError::new(format!(
        "No background command with ID {id}. Known: {}",
        if ids.is_empty() { "none".to_string() } else { ids.join(", ") }
    ))
}

fn describe(status: &JobStatus) -> String {
    match status {
        JobStatus::Running => "running".into(),
        JobStatus::Exited(Some(c)) => format!("exited with code {c}"),
        JobStatus::Exited(None) => "ended by a signal".into(),
        JobStatus::Killed => "killed".into(),
    }
}

impl Tool for BashOutput {
    type Input = BashOutputInput;

    fn name(&self) -> &'static str {
        "BashOutput"
    }

    fn description(&self) -> String {
        "New output of a background Bash command since the last read, and whether it still runs.".to_string()
    }

    fn validate(&self, input: &BashOutputInput, _: &ToolContext) -> Result<(), String> {
        match &input.filter {
            Some(f) => regex::Regex::new(f).map(|_| ()).map_err(|e| format!("invalid filter regex: {e}")),
            None => Ok(()),
        }
    }

    fn effects(&self, _: &BashOutputInput, _: &ToolContext) -> Effects {
        Effects::session_only(true)
    }

    async fn call(&self, input: BashOutputInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let (collected, status) = self
            .shell
            .read_new(&input.bash_id, MAX_OUTPUT_CHARS, &spill_path(ctx, &input.bash_id))
            .ok_or_else(|| unknown(&self.shell, &input.bash_id))?;
        let shown = match input.filter.as_deref().map(regex::Regex::new) {
            Some(Ok(re)) => filtered(collected, &re, &spill_path(ctx, &input.bash_id)),
            Some(Err(e)) => return Err(ToolError::new(format!("invalid filter regex: {e}"))),
            None => collected,
        };
        let text = shown.for_model();
        let body = if text.trim().is_empty() { "(no new output)".to_string() } else { text };
        let mut output = ToolOutput::text(format!("<status>{}</status>\n{body}", describe(&status)));
        // Hooks and frontends read the whole new output from where it was saved.
        output.saved = shown.saved();
        Ok(output)
    }
}

impl Tool for KillShell {
    type Input = KillShellInput;

    fn name(&self) -> &'static str {
        "KillShell"
    }

    fn description(&self) -> String {
        "Stops a background Bash command and all it started.".to_string()
    }

    fn effects(&self, _: &KillShellInput, _: &ToolContext) -> Effects {
        Effects::session_only(false)
    }

    async fn call(&self, input: KillShellInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let status = self.shell.kill(&input.shell_id).ok_or_else(|| unknown(&self.shell, &input.shell_id))?;
        Ok(ToolOutput::text(format!("{}: {}", input.shell_id, describe(&status))))
    }
}

/// The lines of `collected` that match `re` — read back from the saved file when the
/// output was too large to keep — themselves saved when still too large.
fn filtered(collected: Collected, re: &regex::Regex, spill: &std::path::Path) -> Collected {
    match &collected {
        Collected::Whole(text) => {
            Collected::Whole(text.lines().filter(|l| re.is_match(l)).collect::<Vec<_>>().join("\n"))
        }
        Collected::Spilled { saved: Ok(saved), .. } => {
            use std::io::BufRead as _;
            let mut out = Spilling::new(MAX_OUTPUT_CHARS, spill);
            if let Ok(file) = std::fs::File::open(&saved.path) {
                for line in std::io::BufReader::new(file).lines().map_while(Result::ok).filter(|l| re.is_match(l)) {
                    out.push_str(&line);
                    out.push_str("\n");
                }
            }
            out.finish()
        }
        Collected::Spilled { saved: Err(_), .. } => collected,
    }
}
