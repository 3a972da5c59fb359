//! Workflow scripts, as Claude Code's Workflow tool runs them: a JavaScript script that
//! begins with a pure-literal `export const meta = {…}` and orchestrates subagents with
//! `agent(prompt, opts)`, `parallel(thunks)`, `pipeline(items, ...stages)`, `phase`,
//! `log`, `budget`, `args` and one level of `workflow(name, args)`.
//!
//! [`Script::parse`] reads the header and makes the submission checks; [`run`] runs
//! the script on a thread of its own in an embedded QuickJS ([`vm`]) that has no file,
//! process or network access — only subagents act — and hands each `agent()` to the
//! [`Host`], at most `concurrency` at once. Every agent call is journalled: a rerun
//! given the earlier journal answers the longest unchanged prefix of calls from it
//! (same prompt and options, in the same order), so a fixed script resumes where it
//! changed. The clock and `Math.random` are refused, so a rerun does the same.

mod script;
mod vm;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use futures::StreamExt as _;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use script::{MAX_SCRIPT_BYTES, Meta, PhaseMeta, Script};

/// Why a workflow did not run or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum WorkflowError {
    /// Refused before running: the header, the size or a nondeterministic call.
    #[error("{0}")]
    Script(String),
    /// The script threw, or was stopped.
    #[error("the workflow failed: {0}")]
    Failed(String),
}

/// Why something a script asked for failed (an agent, a named workflow, a value that
/// does not convert): what its promise is rejected with, or what it threw.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Rejection(pub String);

impl From<String> for Rejection {
    fn from(why: String) -> Self {
        Rejection(why)
    }
}

impl From<&str> for Rejection {
    fn from(why: &str) -> Self {
        Rejection(why.to_string())
    }
}

/// One `agent()` call: its prompt and options, as the script gave them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCall {
    #[serde(default)]
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<String>,
}

impl AgentCall {
    /// What a resumed run compares: everything but the label and the phase.
    fn key(&self) -> Value {
        serde_json::json!([self.prompt, self.schema, self.model, self.agent_type, self.isolation])
    }
}

/// What an agent gave back.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AgentAnswer {
    /// Its final text, or the validated object when the call had a schema.
    pub value: Value,
    pub output_tokens: u64,
    pub tool_uses: u64,
}

/// What the script reports as it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    Phase(String),
    Log(String),
    AgentStarted { index: usize, label: String },
    AgentEnded { index: usize, label: String, ok: bool, cached: bool },
}

/// One journalled agent call.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JournalEntry {
    pub key: Value,
    /// `None`: the agent failed (a rerun runs it again).
    pub answer: Option<AgentAnswer>,
}

/// What runs the script's agents; the rest of a workflow is the script's own.
pub trait Host: Send + Sync {
    /// Run one subagent to its end.
    fn agent(&self, index: usize, call: AgentCall) -> BoxFuture<'static, Result<AgentAnswer, Rejection>>;
    /// `agentType` names a subagent type (checked before anything runs).
    fn agent_type_known(&self, name: &str) -> Result<(), Rejection>;
    /// The script of a named workflow (`workflow(name)`), or of `{"scriptPath": …}`.
    fn named(&self, key: &str) -> Result<String, Rejection>;
    fn progress(&self, progress: Progress);
    /// Agent `index` ended (or was answered from the earlier run): its entry, to keep
    /// as it comes (an interrupted run can then be resumed).
    fn journal(&self, _index: usize, _entry: &JournalEntry) {}
}

/// The bounds of a run.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Agents running at once; the rest wait.
    pub concurrency: usize,
    /// Agent calls in a run.
    pub max_agents: usize,
    /// The longest the script may run without waiting for anything.
    pub slice: Duration,
    /// The turn's output-token target, if the person set one (`budget.total`).
    pub budget_total: Option<u64>,
}

impl Default for Limits {
    /// Claude Code's: `min(16, cores − 2)` agents at once (at least 2), 1 000 agents,
    /// 30 s slices.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Limits {
            concurrency: cores.saturating_sub(2).clamp(2, 16),
            max_agents: 1000,
            slice: Duration::from_secs(30),
            budget_total: None,
        }
    }
}

/// A finished run, whether the script returned or failed.
#[derive(Debug)]
pub struct Finished {
    /// The script's return value (`null` for none), or why it failed.
    pub result: Result<Value, WorkflowError>,
    pub agents: usize,
    /// Agents answered from the earlier journal.
    pub cached: usize,
    pub output_tokens: u64,
    pub tool_uses: u64,
    /// Every agent call of this run, in the order the script made them.
    pub journal: Vec<JournalEntry>,
}

/// Run `script` with `args`, its agents through `host`; `earlier` is a previous run's
/// journal to resume from. Dropping the future stops the script and its agents.
pub async fn run(
    script: Script,
    args: Value,
    host: Arc<dyn Host>,
    earlier: Vec<JournalEntry>,
    limits: Limits,
) -> Finished {
    let mut finished =
        Finished { result: Ok(Value::Null), agents: 0, cached: 0, output_tokens: 0, tool_uses: 0, journal: Vec::new() };
    let error = |mut f: Finished, why: String| {
        f.result = Err(WorkflowError::Failed(why));
        f
    };
    let (to_host, mut requests) = tokio::sync::mpsc::unbounded_channel();
    let (answer, answers) = std::sync::mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let spent = Arc::new(AtomicU64::new(0));
    let setup = vm::VmSetup {
        script,
        args,
        host: host.clone(),
        total: limits.budget_total,
        spent: spent.clone(),
        max_agents: limits.max_agents,
        slice_limit: limits.slice,
        stop: stop.clone(),
    };
    // Whatever ends this future (its end, or being dropped) stops the script.
    struct StopOnDrop(Arc<AtomicBool>);
    impl Drop for StopOnDrop {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let _stop = StopOnDrop(stop);
    if let Err(e) =
        std::thread::Builder::new().name("rein-workflow".into()).spawn(move || vm::run(setup, to_host, answers))
    {
        return error(finished, format!("no thread for the script: {e}"));
    }

    let gate = Arc::new(tokio::sync::Semaphore::new(limits.concurrency.max(1)));
    let mut running = futures::stream::FuturesUnordered::new();
    let mut journal: Vec<JournalEntry> = Vec::new();
    let mut on_prefix = true;
    loop {
        tokio::select! {
            request = requests.recv() => match request {
                None => return error(finished, "the script's thread ended".into()),
                Some(vm::ToHost::Done(result)) => {
                    finished.agents = journal.len();
                    finished.journal = journal;
                    finished.result = result.map_err(|r| WorkflowError::Failed(r.0));
                    return finished;
                }
                Some(vm::ToHost::Progress(p)) => host.progress(p),
                Some(vm::ToHost::Sleep { id, ms }) => running.push(Box::pin(async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    (id, None, Ok(AgentAnswer::default()))
                }) as BoxFuture<'static, _>),
                Some(vm::ToHost::Agent { id, call }) => {
                    let index = journal.len();
                    let key = call.key();
                    let label = call.label.clone().unwrap_or_else(|| format!("agent {}", index + 1));
                    journal.push(JournalEntry { key: key.clone(), answer: None });
                    let hit = on_prefix
                        .then(|| earlier.get(index).filter(|e| e.key == key).and_then(|e| e.answer.clone()))
                        .flatten();
                    on_prefix = hit.is_some();
                    if let Some(answer) = hit {
                        finished.cached += 1;
                        host.progress(Progress::AgentEnded { index, label, ok: true, cached: true });
                        running.push(Box::pin(async move { (id, Some(index), Ok(answer)) }));
                        continue;
                    }
                    let host = host.clone();
                    let gate = gate.clone();
                    running.push(Box::pin(async move {
                        let _permit = gate.acquire_owned().await;
                        host.progress(Progress::AgentStarted { index, label: label.clone() });
                        let result = host.agent(index, call).await;
                        host.progress(Progress::AgentEnded { index, label, ok: result.is_ok(), cached: false });
                        (id, Some(index), result)
                    }));
                }
            },
            Some((id, agent, result)) = running.next(), if !running.is_empty() => {
                let result = match (agent, result) {
                    (Some(index), Ok(answer)) => {
                        spent.fetch_add(answer.output_tokens, Ordering::Relaxed);
                        finished.output_tokens += answer.output_tokens;
                        finished.tool_uses += answer.tool_uses;
                        let value = answer.value.clone();
                        if let Some(entry) = journal.get_mut(index) {
                            entry.answer = Some(answer);
                            host.journal(index, entry);
                        }
                        Ok(value)
                    }
                    (None, _) => Ok(Value::Null),
                    (Some(_), Err(why)) => Err(why),
                };
                // The script's thread may have ended already; its Done is on the way.
                let _ = answer.send(vm::Settled { id, result });
            }
        }
    }
}

#[cfg(test)]
mod tests;
