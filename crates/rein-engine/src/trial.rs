//! Tried first, the step between a question and the person: a shell command the rules
//! would ask about, that no rule, protected path or hook asked about by name, first runs
//! where it can change nothing (`rein_sandbox::trial`). Then:
//! - it changed no file and used no network: its result goes to the model, nobody asked;
//! - it changed files: the person sees exactly which (a diff for text), and "yes" keeps
//!   those changes — the command does not run again; in acceptEdits, changes to
//!   unprotected files of the workspace are kept unasked, as edits are;
//! - it tried the network, or met the jail's walls: asked as before, saying so;
//! - headless, the first case runs and the others are refused with what it would have
//!   changed.
//!
//! Here is the chain's runner that tries a call; what the gate decides from what it
//! did is the gate's own step (`decide_after_trial` in `gate.rs`).

use std::sync::Mutex;

use futures::future::BoxFuture;
use rein_policy::{Behavior, Effects, Grant};
use rein_protocol::{ToolResultContent, ToolUse};
use rein_tools::{Registry, ToolContext, TrialSlot, Tried};

use crate::gate::{Gate, TriedOutcome, TryFirst};

/// The chain's [`TryFirst`] for one call: runs it through the registry with a trial
/// slot, and holds its result until the permission stage decides.
pub(crate) struct Runner<'a> {
    registry: &'a Registry,
    gate: &'a Gate,
    call: &'a ToolUse,
    ctx: &'a ToolContext,
    tried: Mutex<Option<Tried>>,
    /// The result the model gets when the trial is kept.
    result: Mutex<Option<(ToolResultContent, bool)>>,
    kept: std::sync::atomic::AtomicBool,
}

impl<'a> Runner<'a> {
    pub(crate) fn new(registry: &'a Registry, gate: &'a Gate, call: &'a ToolUse, ctx: &'a ToolContext) -> Self {
        Runner {
            registry,
            gate,
            call,
            ctx,
            tried: Mutex::new(None),
            result: Mutex::new(None),
            kept: Default::default(),
        }
    }

    /// Each change held to the rules as a file edit of its path would be (deny rules,
    /// protected paths, the workspace wall, the mode): the outcome, with the changes
    /// the rules would ask about marked and listed first.
    fn judge_changes(&self, tried: &Tried) -> TriedOutcome {
        let policy = self.gate.policy.get();
        let mut marks = std::collections::HashMap::new();
        let mut every_change_allowed = true;
        for path in tried.changed_paths() {
            let input = serde_json::json!({"file_path": path});
            let effects = Effects::editing([path.clone()]);
            let d = policy.decide(&rein_policy::Call { tool: "Write", input: &input, effects: &effects });
            match d.behavior {
                Behavior::Deny => {
                    return TriedOutcome::Denied(format!(
                        "Tried first where it could change nothing, the command changed {}, which is denied: {}",
                        path.display(),
                        d.reason
                    ));
                }
                Behavior::Ask => {
                    every_change_allowed = false;
                    // Only what a rule or protection asks about is marked: in the default
                    // mode every change needs the person, and a mark on each says nothing.
                    if d.explicit {
                        marks.insert(path, "asked by a rule or protected");
                    }
                }
                Behavior::Allow => {}
            }
        }
        let allowed = every_change_allowed && !tried.touches_protected();
        TriedOutcome::Changed { summary: tried.summary(&marks), allowed }
    }

    /// The trial's result, when the permission stage kept it.
    pub(crate) fn kept_result(&self) -> Option<(ToolResultContent, bool)> {
        if !self.kept.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        self.result.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// Words in a tried command's output that say it met the jail's walls.
const WALLS: &[&str] = &[
    "Read-only file system",
    "Permission denied",
    "Operation not permitted",
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "PermissionError",
    "EACCES",
    "EROFS",
    "EPERM",
    "[Errno 13]",
    "[Errno 30]",
];

impl TryFirst for Runner<'_> {
    fn run(&self) -> BoxFuture<'_, Option<TriedOutcome>> {
        Box::pin(async move {
            let prepared = self.registry.prepare(&self.call.name, &self.call.input).ok()?;
            let slot = TrialSlot::default();
            let mut ctx = self.ctx.clone();
            ctx.trial = Some(slot.clone());
            ctx.grant = Grant::ReadOnly;
            let output = match prepared.call(ctx).await {
                Ok(o) => o,
                Err(e) => {
                    tracing::debug!(target: "rein::trial", error = %e, "the command could not be tried; asking");
                    return None;
                }
            };
            let tried = slot.take()?;
            let text = output.content.to_text();
            let outcome = if tried.trial.network {
                TriedOutcome::Withheld(match tried.trial.hosts.as_slice() {
                    [] => "tried to reach the network, which it had none of".into(),
                    hosts => format!("tried to reach the network ({}), which it had none of", named(hosts)),
                })
            } else if let Some(wall) = WALLS.iter().find(|w| text.contains(*w)) {
                TriedOutcome::Withheld(format!("met a wall of the jail (\"{wall}\")"))
            } else if tried.trial.changes.is_empty() {
                TriedOutcome::Nothing
            } else {
                self.judge_changes(&tried)
            };
            *self.result.lock().unwrap_or_else(|p| p.into_inner()) = Some((output.content, output.is_error));
            *self.tried.lock().unwrap_or_else(|p| p.into_inner()) = Some(tried);
            Some(outcome)
        })
    }

    /// Keep the trial's changes, checkpointed first like the file tools' edits: a rewind
    /// restores what the command changed (the files it wrote, and those it removed).
    fn keep(&self) -> Result<usize, crate::gate::KeepError> {
        let tried =
            self.tried.lock().unwrap_or_else(|p| p.into_inner()).take().ok_or(crate::gate::KeepError::NothingTried)?;
        let files = tried.touched_files();
        let checkpoints = self.ctx.checkpoints.as_ref();
        if let Some(cp) = checkpoints {
            files.iter().for_each(|p| cp.before_write(p));
        }
        let made = tried.keep();
        if let Some(cp) = checkpoints {
            files.iter().for_each(|p| cp.after_write(p));
        }
        let n = made?;
        self.kept.store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(n)
    }
}

/// Hosts as the person reads them: control characters escaped, at most five named.
fn named(hosts: &[String]) -> String {
    let shown: Vec<String> = hosts.iter().take(5).map(|h| h.escape_default().to_string()).collect();
    match hosts.len() {
        n if n > 5 => format!("{} and {} more", shown.join(", "), n - 5),
        _ => shown.join(", "),
    }
}
