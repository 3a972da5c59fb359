//! TaskOutput and TaskStop (Claude Code's names today; BashOutput and KillShell, the
//! earlier ones, are aliases): reading and stopping background commands.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::bash::MAX_OUTPUT_CHARS;
use super::shell::{JobStatus, Shell};
use crate::spilling::{Collected, Spilling, new_file as spill_path};
use crate::{AgentState, Effects, Tool, ToolContext, ToolError, ToolOutput};

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

/// How long TaskOutput waits for a command to end, by default and at most (ms).
const DEFAULT_WAIT_MS: u64 = 30_000;
const MAX_WAIT_MS: u64 = 600_000;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashOutputInput {
    /// The background command's ID (as Bash gave it).
    #[serde(default)]
    pub task_id: Option<String>,
    /// BashOutput's name for `task_id`.
    #[serde(default)]
    #[schemars(skip)]
    pub bash_id: Option<String>,
    /// Wait for the command to end (or for `timeout`) before reading; true unless called
    /// by its old name, BashOutput.
    pub block: Option<bool>,
    /// How long to wait, in ms (default 30000, at most 600000).
    pub timeout: Option<u64>,
    /// Only lines matching this regex.
    pub filter: Option<String>,
}

impl BashOutputInput {
    fn id(&self) -> Result<&str, ToolError> {
        self.task_id.as_deref().or(self.bash_id.as_deref()).ok_or_else(|| ToolError::new("task_id is required"))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct KillShellInput {
    /// The background command's ID.
    #[serde(default, alias = "shell_id")]
    pub task_id: Option<String>,
}

fn unknown(shell: &Shell, id: &str) -> ToolError {
    let mut ids = shell.job_ids();
    ids.extend(shell.agents.ids());
    ToolError::new(format!(
        "No background command with ID {id}. Known: {}",
        if ids.is_empty() { "none".to_string() } else { ids.join(", ") }
    ))
}

pub(crate) fn describe(status: &JobStatus) -> String {
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
        "TaskOutput"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "New output of a background Bash command since the last read, or a background agent's report, and whether \
         it still runs. By default it waits for the command or agent to end (at most `timeout` ms); `block: false` \
         reads at once."
            .to_string()
    }

    fn validate(&self, input: &BashOutputInput, _: &ToolContext) -> Result<(), crate::InputError> {
        match &input.filter {
            Some(f) => regex::Regex::new(f).map(|_| ()).map_err(|e| format!("invalid filter regex: {e}").into()),
            None => Ok(()),
        }
    }

    fn effects(&self, _: &BashOutputInput, _: &ToolContext) -> Effects {
        Effects::session_only(true)
    }

    async fn call(&self, input: BashOutputInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input.id()?.to_string();
        if self.shell.agents.get(&id).is_some() {
            return Ok(self.agent_report(&id, &input, ctx).await);
        }
        if input.block.unwrap_or(input.task_id.is_some()) {
            let wait = std::time::Duration::from_millis(input.timeout.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS));
            let until = tokio::time::Instant::now() + wait;
            loop {
                match self.shell.status(&id) {
                    None => return Err(unknown(&self.shell, &id)),
                    Some(JobStatus::Running) if tokio::time::Instant::now() < until => {}
                    Some(_) => break,
                }
                tokio::select! {
                    _ = tokio::time::sleep(std::time::Duration::from_millis(50)) => {}
                    _ = ctx.abort.cancelled() => break,
                }
            }
        }
        let (collected, status) = self
            .shell
            .read_new(&id, MAX_OUTPUT_CHARS, &spill_path(ctx, &id))
            .ok_or_else(|| unknown(&self.shell, &id))?;
        let shown = match input.filter.as_deref().map(regex::Regex::new) {
            Some(Ok(re)) => filtered(collected, &re, &spill_path(ctx, &id)),
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

impl BashOutput {
    /// A background agent's report: waited for as a command's end is.
    async fn agent_report(&self, id: &str, input: &BashOutputInput, ctx: &ToolContext) -> ToolOutput {
        let agents = &self.shell.agents;
        if input.block.unwrap_or(input.task_id.is_some()) {
            let wait = std::time::Duration::from_millis(input.timeout.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS));
            let until = tokio::time::Instant::now() + wait;
            while agents.get(id).is_some_and(|a| a.state == AgentState::Running) && tokio::time::Instant::now() < until
            {
                tokio::select! {
                    _ = tokio::time::sleep(std::time::Duration::from_millis(50)) => {}
                    _ = ctx.abort.cancelled() => break,
                }
            }
        }
        let Some(agent) = agents.get(id) else {
            return ToolOutput::failure(format!("No background agent with ID {id}"));
        };
        let body = match &agent.state {
            AgentState::Running => "(still running)".to_string(),
            AgentState::Done(report) if report.is_empty() => "(the agent finished without a report)".to_string(),
            AgentState::Done(report) | AgentState::Failed(report) => report.clone(),
            AgentState::Stopped => "(stopped before it reported)".to_string(),
        };
        if agent.state != AgentState::Running {
            agents.mark_told(id);
        }
        ToolOutput::text(format!("<status>{}</status>\n{body}", agent.state.describe()))
    }
}

impl Tool for KillShell {
    type Input = KillShellInput;

    fn name(&self) -> &'static str {
        "TaskStop"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Stops a background Bash command and all it started, or a background agent.".to_string()
    }

    fn effects(&self, _: &KillShellInput, _: &ToolContext) -> Effects {
        Effects::session_only(false)
    }

    async fn call(&self, input: KillShellInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let id = input.task_id.ok_or_else(|| ToolError::new("task_id is required"))?;
        if let Some(state) = self.shell.agents.stop(&id) {
            return Ok(ToolOutput::text(format!("{id}: {}", state.describe())));
        }
        let status = self.shell.kill(&id).ok_or_else(|| unknown(&self.shell, &id))?;
        Ok(ToolOutput::text(format!("{id}: {}", describe(&status))))
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
