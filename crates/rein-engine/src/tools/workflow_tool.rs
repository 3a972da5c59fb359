//! The Workflow tool: the model (or a person's `/name` command) runs a workflow script —
//! its own, a named one from the `workflows` folders, or one saved earlier — whose
//! `agent()` calls are subagents run as the Agent tool runs them (a `schema` makes the
//! subagent answer through StructuredOutput). The script itself is plain JavaScript in
//! `rein_workflow`'s interpreter, with no access to the machine. Each run is saved under
//! the session (`workflows/<run id>/`: the script and the journal of its agents), so a
//! changed script can be run again from its path and resume where it changed.
//!
//! As in Claude Code, a workflow runs in the background: the call returns its run id at
//! once, and the model is told at its next step when the workflow ends, with its result
//! (TaskOutput waits for it, TaskStop stops it). `run_in_background: false`, or a
//! session with nowhere to run it in the background, runs it as the call.

use std::sync::{Arc, Mutex};

use rein_prompt::workflows::WorkflowDef;
use rein_tools::{Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};
use rein_workflow::Script;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::agent_tool::AgentTool;
use crate::workflow_host::{RunHost, held, named_at, read_journal, read_script};

/// The tool, with the subagent types its agents may be and the named workflows.
#[derive(Clone)]
pub(crate) struct WorkflowTool {
    pub agents: Arc<AgentTool>,
    pub workflows: Vec<WorkflowDef>,
    /// `disableWorkflows` / `CLAUDE_CODE_DISABLE_WORKFLOWS` turn it off.
    pub enabled: bool,
    /// `workflowSizeGuideline`: `small`, `medium` or `large` (advice only).
    pub size: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WorkflowInput {
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
    /// `false`: wait for the workflow and get its result as this call's answer (by
    /// default it runs in the background and its end is told later).
    #[serde(alias = "run_in_background")]
    pub run_in_background: Option<bool>,
}

/// A run ready to start: the parsed script and where it is saved.
struct Prepared {
    script: Script,
    args: Value,
    earlier: Vec<rein_workflow::JournalEntry>,
    run_id: String,
    script_path: std::path::PathBuf,
    host: Arc<RunHost>,
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
                     Globals: `agent(prompt, { label, phase, schema, model, agentType, isolation })` runs one subagent \
                     and gives its final text, or with a JSON `schema` an object that matches it (isolation: \
                     'worktree' gives it a git worktree of its own); `parallel([() => agent(..), \
                     ...])` runs thunks at once and waits for all (a failed one is null); `pipeline(items, stage1, \
                     stage2)` sends each item through the stages on its own (stage(prev, item, index); a failure makes \
                     the item null); `phase(title)`, `log(text)`, `args`, `budget` ({ total, spent(), remaining() }), \
                     `workflow(name, args)` (one level). The script cannot read files, run commands or reach the \
                     network — only agents can — and Date.now(), new Date() and Math.random() are refused so a rerun \
                     does the same. Each run is saved: the answer gives its runId and scriptPath; edit the file and \
                     run { scriptPath, resumeFromRunId } to redo only the agents from the first changed one on. \
                     A workflow runs in the background: the call returns at once and you are told when it ends, with \
                     its result (TaskOutput with its runId waits for it); runInBackground: false waits for it here."
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

    fn validate(&self, input: &WorkflowInput, _: &ToolContext) -> Result<(), rein_tools::InputError> {
        if input.script.is_none() && input.name.is_none() && input.script_path.is_none() {
            return Err("give the workflow as script, name or scriptPath".into());
        }
        if let Some(name) = &input.name
            && input.script.is_none()
            && input.script_path.is_none()
            && self.named(name).is_none()
        {
            let known: Vec<&str> = self.workflows.iter().map(|w| w.name.as_str()).collect();
            return Err(format!("no workflow named {name:?}; the named ones are: {}", known.join(", ")).into());
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
        let background = input.run_in_background.unwrap_or(true);
        let prepared = self.prepare(input, ctx)?;
        let agents = crate::agent_tool::background_agents(ctx).filter(|_| background);
        let Some(agents) = agents else { return run(prepared, ctx.abort.clone()).await };
        let id = prepared.run_id.clone();
        let name = prepared.script.meta.name.clone();
        let abort = tokio_util::sync::CancellationToken::new();
        agents.start(&id, &name, "workflow", abort.clone()).map_err(|e| ToolError::new(e.to_string()))?;
        let (place, ended) = (format!("scriptPath: {}", prepared.script_path.display()), id.clone());
        tokio::spawn(async move {
            let state = match run(prepared, abort).await {
                Ok(out) if !out.is_error => rein_tools::AgentState::Done(out.content.to_text()),
                Ok(out) => rein_tools::AgentState::Failed(out.content.to_text()),
                Err(e) if e.0 == rein_protocol::INTERRUPTED => rein_tools::AgentState::Stopped,
                Err(e) => rein_tools::AgentState::Failed(e.0),
            };
            agents.finish(&ended, state);
        });
        Ok(ToolOutput::text(format!(
            "Started the workflow {name:?} in the background (runId: {id}, {place}). You will be told when it ends, \
             with its result; TaskOutput (task_id {id}) waits for it, TaskStop stops it."
        )))
    }
}

/// Run a prepared workflow to its end (or until `abort`): its result, or what failed.
async fn run(p: Prepared, abort: tokio_util::sync::CancellationToken) -> Result<ToolOutput, ToolError> {
    let started = std::time::Instant::now();
    let name = p.script.meta.name.clone();
    let limits = rein_workflow::Limits::default();
    let done = tokio::select! {
        done = rein_workflow::run(p.script, p.args, p.host.clone(), p.earlier, limits) => done,
        () = abort.cancelled() => return Err(ToolError::new(rein_protocol::INTERRUPTED)),
    };
    let place = format!("runId: {}\nscriptPath: {}", p.run_id, p.script_path.display());
    let progress = p.host.progress_text();
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

impl WorkflowTool {
    /// Read and parse the script, save it under the session, and make its host (the
    /// agents it starts run with `ctx`'s permissions).
    fn prepare(&self, input: WorkflowInput, ctx: &ToolContext) -> Result<Prepared, ToolError> {
        let text = self.source(&input, ctx)?;
        let script = Script::parse(&text).map_err(|e| ToolError::new(e.to_string()))?;
        let runs = ctx.session_dir.join("workflows");
        let earlier = match &input.resume_from_run_id {
            Some(id) => earlier_run(&runs, id)?,
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
            journal: Some(dir.join("journal.jsonl")),
        });
        Ok(Prepared { script, args: input.args.unwrap_or(Value::Null), earlier, run_id, script_path, host })
    }

    fn named(&self, name: &str) -> Option<&WorkflowDef> {
        self.workflows.iter().find(|w| w.name == name)
    }

    /// The script's text: scriptPath, else script, else the named workflow's file.
    fn source(&self, input: &WorkflowInput, ctx: &ToolContext) -> Result<String, ToolError> {
        let read = |p: &std::path::Path| read_script(ctx, p).map_err(|e| ToolError::new(e.0));
        if let Some(path) = &input.script_path {
            let path = ctx.resolve(path);
            // The file of a named workflow is that workflow: its rules hold.
            if let Some(def) = named_at(&self.workflows, &path) {
                let input = serde_json::json!({ "name": def.name });
                held(ctx, "Workflow", input, Effects::workflow(), false).map_err(|why| {
                    ToolError::new(format!("{} is the workflow {:?}: {why}", path.display(), def.name))
                })?;
            }
            return read(&path);
        }
        if let Some(text) = &input.script {
            return Ok(text.clone());
        }
        let name = input.name.as_deref().unwrap_or_default();
        let def = self.named(name).ok_or_else(|| ToolError::new(format!("no workflow named {name:?}")))?;
        read(&def.path)
    }
}

fn new_run_id() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("wf_{}-{}", &id[..8], &id[8..11])
}

/// An earlier run of this session, to resume from.
fn earlier_run(runs: &std::path::Path, id: &str) -> Result<Vec<rein_workflow::JournalEntry>, ToolError> {
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(ToolError::new(format!("{id:?} is not a run id")));
    }
    let dir = runs.join(id);
    if !dir.is_dir() {
        return Err(ToolError::new(format!("no run {id} in this session to resume from")));
    }
    let journal = dir.join("journal.jsonl");
    if !journal.exists() {
        return Ok(Vec::new());
    }
    read_journal(&journal).map_err(|e| ToolError::new(format!("run {id}: {e}")))
}
