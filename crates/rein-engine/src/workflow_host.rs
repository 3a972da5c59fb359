//! A workflow run's side of the script ([`rein_workflow::Host`]): its agents, run as
//! the Agent tool runs subagents; the named workflows and script files it may start;
//! its progress; its journal, written as each agent ends (an interrupted run can be
//! resumed). The run itself was allowed, but what it starts from inside is held to the
//! session's rules as it goes: an `agent()` to the rules on `Agent(type)`, a
//! `workflow(name)` to those on `Workflow(name)`, a script file to what Read may read
//! unasked — a deny refuses, and so does a question, since a running script cannot
//! stop to ask.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rein_policy::{Behavior, Call};
use rein_prompt::workflows::WorkflowDef;
use rein_tools::{Effects, ToolContext};
use rein_workflow::{AgentAnswer, AgentCall, Host, JournalEntry, MAX_SCRIPT_BYTES, Progress};
use serde_json::{Value, json};

use crate::agent_tool::AgentTool;
use crate::{End, EngineServices};

/// Progress lines kept for the answer, and the longest kept line.
const KEEP_LINES: usize = 40;
const MAX_LINE_CHARS: usize = 2_000;

pub(crate) struct RunHost {
    pub(crate) agents: Arc<AgentTool>,
    pub(crate) ctx: ToolContext,
    pub(crate) named: Vec<WorkflowDef>,
    /// The last progress lines (each cut to a bounded length) and how many came.
    pub(crate) lines: Mutex<(VecDeque<String>, usize)>,
    /// The run's journal file (`journal.jsonl`), appended as each agent ends.
    pub(crate) journal: Option<PathBuf>,
}

impl RunHost {
    /// The run's progress for its answer: the last lines, and how many came before.
    pub(crate) fn progress_text(&self) -> String {
        let (lines, count) = &*self.lines.lock().unwrap_or_else(|p| p.into_inner());
        if lines.is_empty() {
            return String::new();
        }
        let mut out = String::from("\nProgress:");
        if *count > lines.len() {
            out.push_str(&format!("\n({} earlier lines)", count - lines.len()));
        }
        for l in lines {
            out.push('\n');
            out.push_str(l);
        }
        out
    }

    /// Refuse what the rules deny or would ask about (`reads`: any question, a read
    /// outside what Read may do unasked; otherwise only an explicit ask rule, since the
    /// run itself was allowed).
    fn held(&self, tool: &str, input: Value, effects: Effects, reads: bool) -> Result<(), rein_workflow::Rejection> {
        held(&self.ctx, tool, input, effects, reads)
    }

    /// A named workflow's file, held to the rules on `Workflow(name)`.
    fn named_file(&self, name: &str) -> Result<PathBuf, rein_workflow::Rejection> {
        let Some(def) = self.named.iter().find(|w| w.name == name) else {
            let known: Vec<&str> = self.named.iter().map(|w| w.name.as_str()).collect();
            return Err(format!("no workflow {name:?}; the named ones are: {}", known.join(", ")).into());
        };
        self.held("Workflow", json!({ "name": name }), Effects::workflow(), false)?;
        Ok(def.path.clone())
    }

    fn journalled(&self, index: usize, entry: &JournalEntry) {
        let Some(path) = &self.journal else { return };
        let line = json!({ "index": index, "entry": entry });
        let appended = std::fs::OpenOptions::new().create(true).append(true).open(path).and_then(|mut f| {
            use std::io::Write as _;
            writeln!(f, "{line}")
        });
        if let Err(e) = appended {
            tracing::warn!(error = %e, "the workflow's journal was not written");
        }
    }
}

impl Host for RunHost {
    fn agent(
        &self,
        _index: usize,
        call: AgentCall,
    ) -> BoxFuture<'static, Result<AgentAnswer, rein_workflow::Rejection>> {
        let kind = call.agent_type.clone().unwrap_or_else(|| "general-purpose".into());
        let allowed =
            self.held("Agent", json!({ "subagent_type": kind, "prompt": call.prompt }), Effects::subagent(), false);
        let agents = self.agents.clone();
        let ctx = self.ctx.clone();
        Box::pin(async move {
            allowed?;
            let worktree = match call.isolation.as_deref() {
                None => false,
                Some("worktree") => true,
                Some(other) => return Err(format!("agent isolation {other:?} is not known (only 'worktree')").into()),
            };
            let label = call.label.clone().unwrap_or_else(|| kind.clone());
            let (outcome, structured) = agents
                .run_subagent(&kind, call.prompt, (call.model, worktree), call.schema.clone(), &ctx)
                .await
                .map_err(|e| e.to_string())?;
            match &outcome.end {
                End::Completed | End::Stopped(_) => {}
                End::MaxTurns | End::MaxBudget => return Err(format!("agent {label:?} hit its limit").into()),
                End::Interrupted => return Err(rein_protocol::INTERRUPTED.into()),
                End::Deferred(_) => return Err(format!("a hook deferred a call of agent {label:?}").into()),
                End::Failed(e) => return Err(format!("agent {label:?} failed: {e}").into()),
            }
            let value = match call.schema {
                Some(_) => structured.ok_or_else(|| format!("agent {label:?} ended without its structured answer"))?,
                None => Value::String(outcome.result_text),
            };
            let tool_uses = outcome.num_turns.saturating_sub(1) as u64;
            Ok(AgentAnswer { value, output_tokens: outcome.usage.output_tokens, tool_uses })
        })
    }

    fn agent_type_known(&self, name: &str) -> Result<(), rein_workflow::Rejection> {
        self.agents.knows(name).map_err(|e| rein_workflow::Rejection(e.to_string()))
    }

    /// `workflow(name)` or `workflow({scriptPath})` from inside a script.
    fn named(&self, key: &str) -> Result<String, rein_workflow::Rejection> {
        let script_path =
            serde_json::from_str::<Value>(key).ok().and_then(|v| v["scriptPath"].as_str().map(String::from));
        let path = match script_path {
            Some(p) => {
                let path = self.ctx.effect_path(&p);
                let read = json!({ "file_path": path });
                self.held("Read", read, Effects::reading(vec![path.clone()]), true)?;
                if let Some(def) = named_at(&self.named, &path) {
                    self.named_file(&def.name)?;
                }
                path
            }
            None => self.named_file(key)?,
        };
        read_script(&self.ctx, &path)
    }

    fn progress(&self, progress: Progress) {
        let mut line = match progress {
            Progress::Phase(t) => format!("## {t}"),
            Progress::Log(t) => t,
            Progress::AgentStarted { .. } => return,
            Progress::AgentEnded { label, ok, cached, .. } => {
                format!("{} {label}{}", if ok { "✓" } else { "✗" }, if cached { " (earlier run)" } else { "" })
            }
        };
        if line.len() > MAX_LINE_CHARS {
            let cut = (0..=MAX_LINE_CHARS).rev().find(|i| line.is_char_boundary(*i)).unwrap_or(0);
            line.truncate(cut);
            line.push('…');
        }
        let (lines, count) = &mut *self.lines.lock().unwrap_or_else(|p| p.into_inner());
        *count += 1;
        if lines.len() == KEEP_LINES {
            lines.pop_front();
        }
        lines.push_back(line);
    }

    fn journal(&self, index: usize, entry: &JournalEntry) {
        self.journalled(index, entry);
    }
}

/// What the session's rules say of a call a workflow makes without the chain: a deny
/// refuses, and so does a question (`reads`: any question; otherwise only an explicit
/// ask rule, since the run itself was allowed) — a running workflow cannot ask.
pub(crate) fn held(
    ctx: &ToolContext,
    tool: &str,
    input: Value,
    effects: Effects,
    reads: bool,
) -> Result<(), rein_workflow::Rejection> {
    let services = EngineServices::of(ctx).map_err(|e| e.to_string())?;
    let d = services.gate.policy.get().decide(&Call { tool, input: &input, effects: &effects });
    match d.behavior {
        Behavior::Allow => Ok(()),
        Behavior::Deny => Err(d.reason.into()),
        Behavior::Ask if reads || d.explicit => {
            Err(format!("{} A running workflow cannot stop to ask; allow it by a rule first.", d.reason).into())
        }
        Behavior::Ask => Ok(()),
    }
}

/// The named workflow whose file is `path` (its real path compared).
pub(crate) fn named_at<'a>(named: &'a [WorkflowDef], path: &Path) -> Option<&'a WorkflowDef> {
    let real = std::fs::canonicalize(path).ok()?;
    named.iter().find(|w| std::fs::canonicalize(&w.path).is_ok_and(|p| p == real))
}

/// A script file's text: a regular file of at most [`MAX_SCRIPT_BYTES`] (a FIFO or a
/// device never blocks the run), unless a Read deny rule holds it by its path, its real
/// path or its inode (a link or a hard link to a denied file is denied too).
pub(crate) fn read_script(ctx: &ToolContext, path: &Path) -> Result<String, rein_workflow::Rejection> {
    use std::io::Read as _;
    use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
    let cannot = |e: std::io::Error| format!("cannot read {}: {e}", path.display());
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(cannot)?;
    let meta = file.metadata().map_err(cannot)?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", path.display()).into());
    }
    if meta.len() > MAX_SCRIPT_BYTES as u64 {
        return Err(format!("{} is {} bytes; a script may have {MAX_SCRIPT_BYTES}", path.display(), meta.len()).into());
    }
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    if ctx.read_denied(path, Some(meta.ino())) || ctx.read_denied(&real, Some(meta.ino())) {
        return Err(format!("{} is denied by a Read rule", path.display()).into());
    }
    let mut bytes = Vec::new();
    file.take(MAX_SCRIPT_BYTES as u64 + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() > MAX_SCRIPT_BYTES {
        return Err(format!("{} is larger than a script may be ({MAX_SCRIPT_BYTES} bytes)", path.display()).into());
    }
    String::from_utf8(bytes).map_err(|_| format!("{} is not UTF-8 text", path.display()).into())
}

/// An earlier run's journal (`journal.jsonl`: one `{index, entry}` per agent that
/// ended; a later line for an index wins).
pub(crate) fn read_journal(path: &Path) -> Result<Vec<JournalEntry>, rein_workflow::Rejection> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read its journal: {e}"))?;
    let mut entries: Vec<Option<JournalEntry>> = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
        let (Some(index), Ok(entry)) =
            (v["index"].as_u64(), serde_json::from_value::<JournalEntry>(v["entry"].clone()))
        else {
            continue;
        };
        let index = usize::try_from(index).unwrap_or(usize::MAX).min(1_000_000);
        if entries.len() <= index {
            entries.resize(index + 1, None);
        }
        entries[index] = Some(entry);
    }
    Ok(entries.into_iter().map(|e| e.unwrap_or(JournalEntry { key: Value::Null, answer: None })).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_keeps_each_agent_s_last_entry_in_its_place() -> Result<(), rein_workflow::Rejection> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let path = dir.path().join("journal.jsonl");
        let entry = |v: &str| json!({ "key": [v], "answer": { "value": v, "output_tokens": 1, "tool_uses": 0 } });
        let lines = [
            json!({ "index": 1, "entry": entry("b") }).to_string(),
            "{torn".to_string(),
            json!({ "index": 0, "entry": entry("a") }).to_string(),
            json!({ "index": 1, "entry": entry("b2") }).to_string(),
        ];
        std::fs::write(&path, lines.join("\n")).map_err(|e| e.to_string())?;
        let journal = read_journal(&path)?;
        let values: Vec<Value> =
            journal.iter().map(|e| e.answer.as_ref().map_or(Value::Null, |a| a.value.clone())).collect();
        assert_eq!(values, [json!("a"), json!("b2")]);
        Ok(())
    }
}
