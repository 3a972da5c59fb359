//! The Workflow tool: the model (or a person's `/name` command) runs a workflow script —
//! its own, a named one from the `workflows` folders, or one saved earlier — whose
//! `agent()` calls are subagents run as the Agent tool runs them (a `schema` makes the
//! subagent answer through StructuredOutput). The script itself is plain JavaScript in
//! `rein_workflow`'s interpreter, with no access to the machine. Each run is saved under
//! the session (`workflows/<run id>/`: the script and the journal of its agents), so a
//! changed script can be run again from its path and resume where it changed.
//!
//! Claude Code launches a workflow in the background and reports its end later; rein
//! runs it as the call (the answer is the workflow's result), since its background
//! notifications are not built yet.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rein_prompt::workflows::WorkflowDef;
use rein_tools::{Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};
use rein_workflow::{AgentAnswer, AgentCall, Host, JournalEntry, Progress, Script};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::End;
use crate::agent_tool::AgentTool;

/// The tool, with the subagent types its agents may be and the named workflows.
pub struct WorkflowTool {
    pub agents: Arc<AgentTool>,
    pub workflows: Vec<WorkflowDef>,
    /// `disableWorkflows` / `CLAUDE_CODE_DISABLE_WORKFLOWS` turn it off.
    pub enabled: bool,
    /// `workflowSizeGuideline`: `small`, `medium` or `large` (advice only).
    pub size: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowInput {
    /// A whole script: `export const meta = { name, description }` first, then the body.
    pub script: Option<String>,
    /// A named workflow (from a workflows folder or a plugin).
    pub name: Option<String>,
    /// A script saved on disk (an earlier run's scriptPath, edited); wins over the others.
    pub script_path: Option<String>,
    /// The script's global `args`.
    pub args: Option<Value>,
    /// An earlier run of this session: its agents whose prompt and options are unchanged,
    /// up to the first changed one, answer from that run.
    pub resume_from_run_id: Option<String>,
}

impl Tool for WorkflowTool {
    type Input = WorkflowInput;

    fn name(&self) -> &'static str {
        "Workflow"
    }

    fn description(&self) -> String {
        let mut d = "Runs a workflow: a JavaScript script that drives many subagents with fixed control flow (fan out \
                     over files, review then verify, loop until nothing new is found) and returns the script's value. \
                     Use it for work that splits into many independent agent tasks; for one task use Agent.\n\
                     The script begins with a plain literal `export const meta = { name: 'x', description: 'one line', \
                     phases: [{ title: 'Scan' }] }`; the body runs as an async function (use await, end with return). \
                     Globals: `agent(prompt, { label, phase, schema, model, agentType })` runs one subagent and gives \
                     its final text, or with a JSON `schema` an object that matches it; `parallel([() => agent(..), \
                     ...])` runs thunks at once and waits for all (a failed one is null); `pipeline(items, stage1, \
                     stage2)` sends each item through the stages on its own (stage(prev, item, index); a failure makes \
                     the item null); `phase(title)`, `log(text)`, `args`, `budget` ({ total, spent(), remaining() }), \
                     `workflow(name, args)` (one level). The script cannot read files, run commands or reach the \
                     network — only agents can — and Date.now(), new Date() and Math.random() are refused so a rerun \
                     does the same. Each run is saved: the answer gives its runId and scriptPath; edit the file and \
                     run { scriptPath, resumeFromRunId } to redo only the agents from the first changed one on."
            .to_string();
        let size = match self.size.as_deref() {
            Some("small") => Some("a handful of agents (up to about 5)"),
            Some("medium") => Some("up to about 20 agents"),
            Some("large") => Some("up to about 100 agents"),
            _ => None,
        };
        if let Some(size) = size {
            d.push_str(&format!("\nThe person asks that a workflow you write use {size}."));
        }
        if !self.workflows.is_empty() {
            d.push_str("\nNamed workflows (run with { name, args }):");
            for w in &self.workflows {
                let when = w.when_to_use.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
                d.push_str(&format!("\n- {}: {}{when}", w.name, w.description));
            }
        }
        d
    }

    fn validate(&self, input: &WorkflowInput, _: &ToolContext) -> Result<(), String> {
        if input.script.is_none() && input.name.is_none() && input.script_path.is_none() {
            return Err("give the workflow as script, name or scriptPath".into());
        }
        if let Some(name) = &input.name
            && input.script.is_none()
            && input.script_path.is_none()
            && self.named(name).is_none()
        {
            let known: Vec<&str> = self.workflows.iter().map(|w| w.name.as_str()).collect();
            return Err(format!("no workflow named {name:?}; the named ones are: {}", known.join(", ")));
        }
        Ok(())
    }

    /// The run itself is asked about unless allowed; its agents' calls then pass the
    /// chain one by one, with the session's permissions.
    /// A script read from disk is a read of that file (Read's deny rules hold).
    fn effects(&self, input: &WorkflowInput, ctx: &ToolContext) -> Effects {
        let reads = input.script_path.iter().map(|p| ctx.effect_path(p)).collect();
        Effects { reads, ..Effects::workflow() }
    }

    fn path_fields(&self) -> &'static [&'static str] {
        &["scriptPath"]
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Field { default: Some("name") }
    }

    fn offered_to_model(&self) -> bool {
        self.enabled
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    /// An agent cannot start a workflow.
    fn offered_to_subagents(&self) -> bool {
        false
    }

    async fn call(&self, input: WorkflowInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        if !self.enabled {
            return Err(ToolError::new("workflows are turned off (disableWorkflows)"));
        }
        let text = self.source(&input, ctx)?;
        let script = Script::parse(&text).map_err(|e| ToolError::new(e.to_string()))?;
        let runs = ctx.session_dir.join("workflows");
        let earlier = match &input.resume_from_run_id {
            Some(id) => read_journal(&runs, id)?,
            None => Vec::new(),
        };
        let run_id = input.resume_from_run_id.clone().unwrap_or_else(new_run_id);
        let dir = runs.join(&run_id);
        std::fs::create_dir_all(&dir).map_err(|e| ToolError::new(format!("cannot save the run: {e}")))?;
        let script_path = dir.join("script.js");
        std::fs::write(&script_path, &text).map_err(|e| ToolError::new(format!("cannot save the script: {e}")))?;
        let host = Arc::new(RunHost {
            agents: self.agents.clone(),
            ctx: ctx.clone(),
            named: self.workflows.clone(),
            lines: Mutex::default(),
        });
        let started = std::time::Instant::now();
        let name = script.meta.name.clone();
        let limits = rein_workflow::Limits::default();
        let run = rein_workflow::run(script, input.args.unwrap_or(Value::Null), host.clone(), earlier, limits);
        let done = tokio::select! {
            done = run => done,
            () = ctx.abort.cancelled() => return Err(ToolError::new(rein_protocol::INTERRUPTED)),
        };
        let lines = host.lines.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let place = format!("runId: {run_id}\nscriptPath: {}", script_path.display());
        let progress = tail(&lines);
        save_journal(&dir, &done.journal);
        match done.result {
            Ok(value) => {
                let value = serde_json::to_string_pretty(&value).unwrap_or_default();
                let cached =
                    if done.cached > 0 { format!(" ({} from the earlier run)", done.cached) } else { String::new() };
                Ok(ToolOutput::text(format!(
                    "Workflow {name:?} finished: {} agents{cached}, {} output tokens, {:.1} s.\n{place}{progress}\n\
                     Result:\n{value}",
                    done.agents,
                    done.output_tokens,
                    started.elapsed().as_secs_f64()
                )))
            }
            Err(e) => Ok(ToolOutput::failure(format!(
                "Workflow {name:?}: {e}\n{place}{progress}\nFix the script at scriptPath and run it again with \
                 {{ scriptPath, resumeFromRunId }}."
            ))),
        }
    }
}

impl WorkflowTool {
    fn named(&self, name: &str) -> Option<&WorkflowDef> {
        self.workflows.iter().find(|w| w.name == name)
    }

    /// The script's text: scriptPath, else script, else the named workflow's file.
    fn source(&self, input: &WorkflowInput, ctx: &ToolContext) -> Result<String, ToolError> {
        let read = |p: &std::path::Path| read_script(ctx, p).map_err(ToolError::new);
        if let Some(path) = &input.script_path {
            return read(&ctx.resolve(path));
        }
        if let Some(text) = &input.script {
            return Ok(text.clone());
        }
        let name = input.name.as_deref().unwrap_or_default();
        let def = self.named(name).ok_or_else(|| ToolError::new(format!("no workflow named {name:?}")))?;
        read(&def.path)
    }
}

/// The run's side of the script: its agents, named workflows and progress.
struct RunHost {
    agents: Arc<AgentTool>,
    ctx: ToolContext,
    named: Vec<WorkflowDef>,
    lines: Mutex<Vec<String>>,
}

impl Host for RunHost {
    fn agent(&self, _index: usize, call: AgentCall) -> BoxFuture<'static, Result<AgentAnswer, String>> {
        let agents = self.agents.clone();
        let ctx = self.ctx.clone();
        Box::pin(async move {
            if call.isolation.as_deref() == Some("worktree") {
                return Err("agent({isolation: 'worktree'}) is not available in rein yet: run agents that edit the \
                            same files one after another"
                    .into());
            }
            let kind = call.agent_type.clone().unwrap_or_else(|| "general-purpose".into());
            let label = call.label.clone().unwrap_or_else(|| kind.clone());
            let (outcome, structured) = agents
                .run_subagent(&kind, call.prompt, call.model, call.schema.clone(), &ctx)
                .await
                .map_err(|e| e.to_string())?;
            match &outcome.end {
                End::Completed | End::Stopped(_) => {}
                End::MaxTurns | End::MaxBudget => return Err(format!("agent {label:?} hit its limit")),
                End::Interrupted => return Err(rein_protocol::INTERRUPTED.into()),
                End::Deferred(_) => return Err(format!("a hook deferred a call of agent {label:?}")),
                End::Failed(e) => return Err(format!("agent {label:?} failed: {e}")),
            }
            let value = match call.schema {
                Some(_) => structured.ok_or_else(|| format!("agent {label:?} ended without its structured answer"))?,
                None => Value::String(outcome.result_text),
            };
            let tool_uses = outcome.num_turns.saturating_sub(1) as u64;
            Ok(AgentAnswer { value, output_tokens: outcome.usage.output_tokens, tool_uses })
        })
    }

    fn agent_type_known(&self, name: &str) -> Result<(), String> {
        self.agents.knows(name)
    }

    fn named(&self, key: &str) -> Result<String, String> {
        let path =
            match serde_json::from_str::<Value>(key).ok().and_then(|v| v["scriptPath"].as_str().map(String::from)) {
                Some(p) => self.ctx.resolve(&p),
                None => match self.named.iter().find(|w| w.name == key) {
                    Some(w) => w.path.clone(),
                    None => {
                        let known: Vec<&str> = self.named.iter().map(|w| w.name.as_str()).collect();
                        return Err(format!("no workflow {key:?}; the named ones are: {}", known.join(", ")));
                    }
                },
            };
        read_script(&self.ctx, &path)
    }

    fn progress(&self, progress: Progress) {
        let line = match progress {
            Progress::Phase(t) => format!("## {t}"),
            Progress::Log(t) => t,
            Progress::AgentStarted { .. } => return,
            Progress::AgentEnded { label, ok, cached, .. } => {
                format!("{} {label}{}", if ok { "✓" } else { "✗" }, if cached { " (earlier run)" } else { "" })
            }
        };
        tracing::debug!(target: "rein::workflow", "{line}");
        self.lines.lock().unwrap_or_else(|p| p.into_inner()).push(line);
    }
}

/// A script file's text, unless a Read deny rule holds it (by its path, its real path
/// or its inode: a link or a hard link to a denied file is denied too).
fn read_script(ctx: &ToolContext, path: &std::path::Path) -> Result<String, String> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if ctx.read_denied(path, Some(meta.ino())) || ctx.read_denied(&real, Some(meta.ino())) {
        return Err(format!("{} is denied by a Read rule", path.display()));
    }
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// The last lines of a run's progress, for its answer.
fn tail(lines: &[String]) -> String {
    const KEEP: usize = 40;
    if lines.is_empty() {
        return String::new();
    }
    let skipped = lines.len().saturating_sub(KEEP);
    let mut out = String::from("\nProgress:");
    if skipped > 0 {
        out.push_str(&format!("\n({skipped} earlier lines)"));
    }
    for l in &lines[skipped..] {
        out.push('\n');
        out.push_str(l);
    }
    out
}

fn new_run_id() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("wf_{}-{}", &id[..8], &id[8..11])
}

/// An earlier run's journal (this session's runs only).
fn read_journal(runs: &std::path::Path, id: &str) -> Result<Vec<JournalEntry>, ToolError> {
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(ToolError::new(format!("{id:?} is not a run id")));
    }
    let path: PathBuf = runs.join(id).join("journal.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|_| ToolError::new(format!("no run {id} in this session to resume from")))?;
    serde_json::from_str(&text).map_err(|e| ToolError::new(format!("the journal of {id} does not read: {e}")))
}

fn save_journal(dir: &std::path::Path, journal: &[JournalEntry]) {
    match serde_json::to_string(journal) {
        Ok(text) => {
            if let Err(e) = std::fs::write(dir.join("journal.json"), text) {
                tracing::warn!(error = %e, "the workflow's journal was not saved");
            }
        }
        Err(e) => tracing::warn!(error = %e, "the workflow's journal was not saved"),
    }
}
