//! The permission stage of the chain: the policy's decision, a PreToolUse hook's
//! decision (which can only tighten), PermissionRequest hooks and the `Approver` seam
//! for questions. Without an approver (headless), a question is answered "no", with a
//! message that tells the model the user has not granted it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use futures::future::BoxFuture;
use rein_hooks::{HookDecision, HookInput, Hooks};
use rein_policy::{Behavior, Call, Decision, Effects, Grant, PermissionMode, SharedPolicy};
use rein_protocol::ToolUse;
use serde_json::Value;

use crate::judge::{Judge, JudgeContext, Judgement};
use crate::judge::{JudgeRequest, JudgeVerdict};

pub use crate::approver::{Answer, Approver, PermissionQuestion};

/// The outcome of the permission stage.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The final decision (an answered question becomes allow or deny).
    pub decision: Decision,
    /// The policy asked, and an approver (or its absence) answered.
    pub asked: bool,
    /// What the auto-mode judge said, when it was consulted.
    pub judgement: Option<Judgement>,
}

impl Verdict {
    pub fn allowed(&self) -> bool {
        self.decision.behavior == Behavior::Allow
    }
}

/// A PreToolUse hook's say on the call.
pub struct HookSay {
    pub decision: HookDecision,
    pub reason: String,
    pub hook: String,
}

/// What a call tried first did (the chain's [`crate::trial`] runs it).
#[derive(Debug, Clone, PartialEq)]
pub enum TriedOutcome {
    /// It changed no file and used no network: its result stands, nobody is asked.
    Nothing,
    /// It changed files: what, for the person; and whether the rules allow every one
    /// of those changes as a file edit (acceptEdits' workspace, an Edit rule): they are
    /// then kept unasked.
    Changed { summary: String, allowed: bool },
    /// A change it made is one a rule denies: the call is refused, saying which.
    Denied(String),
    /// It tried the network or met the jail's walls: its result is not what it would
    /// do, so it is asked as before, saying what it tried.
    Withheld(String),
}

/// Runs a call where it can change nothing, and keeps what it did when told to.
pub trait TryFirst: Send + Sync {
    /// Try the call; `None` when it cannot be tried here.
    fn run(&self) -> BoxFuture<'_, Option<TriedOutcome>>;
    /// Keep the trial's result: its changes made, the call done (not run again).
    fn keep(&self) -> Result<usize, KeepError>;
}

/// Why a trial's result could not be kept.
#[derive(Debug, thiserror::Error)]
pub enum KeepError {
    #[error("nothing was tried")]
    NothingTried,
    #[error(transparent)]
    Apply(#[from] rein_tools::ApplyError),
}

/// Blocks in a row after which auto mode leaves the questions to the person.
pub const MAX_BLOCKS_IN_ROW: u32 = 3;

/// Policy, hooks, the auto-mode judge and the approver.
#[derive(Clone)]
pub struct Gate {
    pub policy: SharedPolicy,
    pub approver: Option<Arc<dyn Approver>>,
    pub hooks: Option<Arc<Hooks>>,
    /// Consulted in auto mode for what the rules would ask.
    pub judge: Option<Arc<dyn Judge>>,
    /// What the judge sees of the session (kept by the engine).
    pub judge_context: Arc<JudgeContext>,
    /// Consecutive blocks by the judge; at [`MAX_BLOCKS_IN_ROW`] the person decides
    /// until they have answered once.
    blocks_in_row: Arc<AtomicU32>,
    /// The task list's items as TaskCreated and TaskCompleted hooks have seen them.
    pub tasks: Arc<std::sync::Mutex<crate::task_list::TaskList>>,
    /// Who asks, when not the session itself (a background agent): named on every
    /// question put to the person.
    pub asker: Option<String>,
}

impl Gate {
    pub fn new(policy: impl Into<SharedPolicy>) -> Self {
        Gate {
            policy: policy.into(),
            approver: None,
            hooks: None,
            judge: None,
            judge_context: Arc::default(),
            blocks_in_row: Arc::default(),
            tasks: Arc::default(),
            asker: None,
        }
    }

    /// Decide `call`, which touches `effects`; `hook` is what PreToolUse hooks said (deny
    /// was handled before). Returns the verdict and, when a PermissionRequest hook
    /// rewrote it, the new input (which the chain checks against the rules again).
    pub async fn check(&self, call: &ToolUse, effects: &Effects, hook: Option<HookSay>) -> (Verdict, Option<Value>) {
        self.check_trying(call, effects, hook, None).await
    }

    /// [`check`](Self::check), trying the call first with `first` where it would be
    /// asked (never where a rule, a protected path or a hook asked).
    pub async fn check_trying(
        &self,
        call: &ToolUse,
        effects: &Effects,
        hook: Option<HookSay>,
        first: Option<&dyn TryFirst>,
    ) -> (Verdict, Option<Value>) {
        let mut decision = self.policy.get().decide(&Call { tool: &call.name, input: &call.input, effects });
        if decision.behavior == Behavior::Deny {
            return (Verdict { decision, asked: false, judgement: None }, None);
        }
        let mut hook_asked = false;
        match hook {
            // A hook's allow skips the question only where no ask rule or protected path asked.
            Some(h)
                if h.decision == HookDecision::Allow && decision.behavior == Behavior::Ask && !decision.explicit =>
            {
                let source =
                    format!("PreToolUse hook `{}` allowed; the policy would have asked ({})", h.hook, decision.source);
                return (
                    Verdict {
                        decision: Decision::new(Behavior::Allow, "Allowed by a hook.", source),
                        asked: false,
                        judgement: None,
                    },
                    None,
                );
            }
            // ask (and defer, which rein treats as ask) forces a question.
            Some(ref h) if matches!(h.decision, HookDecision::Ask | HookDecision::Defer) => {
                hook_asked = true;
                let reason = if h.reason.is_empty() {
                    format!("A hook asks to confirm this {} call.", call.name)
                } else {
                    h.reason.clone()
                };
                decision = Decision::new(Behavior::Ask, reason, format!("PreToolUse hook `{}` asked", h.hook));
            }
            _ => {}
        }
        if decision.behavior != Behavior::Ask {
            return (Verdict { decision, asked: false, judgement: None }, None);
        }
        let mut judgement = if hook_asked { None } else { self.consult_judge(call, effects, &decision).await };
        match judgement.as_ref().map(|j| &j.verdict) {
            Some(JudgeVerdict::Allow) => {
                self.blocks_in_row.store(0, Ordering::SeqCst);
                let j = judgement.as_ref().map(|j| (j.model.clone(), j.reason.clone())).unwrap_or_default();
                let d = Decision::new(
                    Behavior::Allow,
                    format!("Allowed by the auto-mode judge: {}", j.1),
                    format!("auto mode: {} allowed; the rules would have asked ({})", j.0, decision.source),
                )
                // The judge is rein's, not the person's: what it lets through runs with the
                // workspace's powers only.
                .granting(rein_policy::Grant::Workspace);
                return (Verdict { decision: d, asked: false, judgement }, None);
            }
            Some(JudgeVerdict::Block) => {
                let blocks = self.blocks_in_row.fetch_add(1, Ordering::SeqCst) + 1;
                if blocks < MAX_BLOCKS_IN_ROW {
                    let j = judgement.as_ref().map(|j| (j.model.clone(), j.reason.clone())).unwrap_or_default();
                    if let Some(hooks) = &self.hooks {
                        let denied = HookInput::PermissionDenied {
                            tool_name: call.name.clone(),
                            tool_input: call.input.clone(),
                            tool_use_id: call.id.clone(),
                            reason: j.1.clone(),
                        };
                        hooks.fire_input(&denied, |_| true).await;
                    }
                    let d = Decision::new(
                        Behavior::Deny,
                        format!(
                            "The auto-mode judge blocked this call: {}. Do not try to get around the block; do \
                             something else, or ask the user to allow it.",
                            j.1
                        ),
                        format!("auto mode: {} blocked; the rules would have asked ({})", j.0, decision.source),
                    );
                    return (Verdict { decision: d, asked: false, judgement }, None);
                }
                decision.reason = format!(
                    "The auto-mode judge blocked {blocks} calls in a row, so the user decides. {}",
                    decision.reason
                );
            }
            Some(JudgeVerdict::Failed) => {
                let why = judgement.as_ref().map(|j| j.reason.clone()).unwrap_or_default();
                decision.reason = format!("The auto-mode judge could not decide ({why}). {}", decision.reason);
            }
            None => {}
        }
        // Never tried: what a rule, a protected path or a hook asked about by name, and a
        // read outside the workspace (the jail would let it read and change nothing).
        let tryable = !hook_asked && decision.may_be_tried();
        if let Some(first) = first.filter(|_| tryable) {
            match decide_after_trial(self, first, call, effects, decision, judgement).await {
                Ok(decided) => return decided,
                Err((d, j)) => {
                    decision = d;
                    judgement = j;
                }
            }
        }
        let (mut verdict, input) = self.ask(call, decision, effects).await;
        if self.approver.is_some() {
            // The person decided: auto mode judges again from the next question.
            self.blocks_in_row.store(0, Ordering::SeqCst);
        }
        verdict.judgement = judgement;
        (verdict, input)
    }

    /// In auto mode, the judge's say on a call the rules would ask about; `None` where
    /// the judge is not consulted: another mode, an explicit ask rule or protected
    /// path, a read-only call, or auto mode paused after blocks in a row.
    async fn consult_judge(&self, call: &ToolUse, effects: &Effects, decision: &Decision) -> Option<Judgement> {
        let judge = self.judge.as_ref()?;
        let policy = self.policy.get();
        if policy.mode != PermissionMode::Auto
            || decision.explicit
            || effects.read_only
            || self.blocks_in_row.load(Ordering::SeqCst) >= MAX_BLOCKS_IN_ROW
        {
            return None;
        }
        let request =
            JudgeRequest { call, effects, decision, roots: &policy.roots, context: self.judge_context.snapshot() };
        let judgement = judge.judge(request).await;
        tracing::debug!(
            target: "rein::judge",
            tool = %call.name,
            verdict = ?judgement.verdict,
            reason = %judgement.reason,
            model = %judgement.model,
            latency_ms = judgement.latency.as_millis() as u64,
            input_tokens = judgement.usage.input_tokens,
            output_tokens = judgement.usage.output_tokens,
            cost_usd = judgement.cost_usd,
            cached = judgement.cached,
            "auto-mode judgement"
        );
        Some(judgement)
    }

    pub(crate) async fn ask(&self, call: &ToolUse, decision: Decision, effects: &Effects) -> (Verdict, Option<Value>) {
        let (verdict, input, _) = self.ask_full(call, decision, effects).await;
        (verdict, input)
    }

    /// [`ask`](Self::ask), and whether a refusal's message is the whole of what the
    /// model reads ([`Answer::verbatim`]).
    pub(crate) async fn ask_full(
        &self,
        call: &ToolUse,
        decision: Decision,
        effects: &Effects,
    ) -> (Verdict, Option<Value>, bool) {
        if let Some(hooks) = &self.hooks {
            let input = HookInput::PermissionRequest { tool_name: call.name.clone(), tool_input: call.input.clone() };
            let out = hooks.fire_input(&input, |_| true).await;
            if let Some(answer) = out.permission_answer() {
                let hook = answer.hook;
                if !answer.allow {
                    let reason = if answer.message.is_empty() {
                        format!("{} The PermissionRequest hook refused.", decision.reason)
                    } else {
                        answer.message
                    };
                    let d = Decision::new(Behavior::Deny, reason, format!("PermissionRequest hook `{hook}` denied"));
                    return (Verdict { decision: d, asked: true, judgement: None }, None, false);
                }
                let d = Decision::new(
                    Behavior::Allow,
                    "Allowed by a PermissionRequest hook.",
                    format!("PermissionRequest hook `{hook}` allowed"),
                );
                return (Verdict { decision: d, asked: true, judgement: None }, answer.updated_input, false);
            }
            let from = self.asker.as_ref().map(|a| format!(" (for {a})")).unwrap_or_default();
            let note = HookInput::Notification {
                message: format!("rein needs your permission to use {}{from}", call.name),
                title: "Permission needed".into(),
                notification_type: "permission_prompt".into(),
            };
            hooks.fire_input(&note, |_| true).await;
        }
        // A background agent's question says whose it is.
        let shown = match &self.asker {
            Some(who) => Decision { reason: format!("{who} asks. {}", decision.reason), ..decision.clone() },
            None => decision.clone(),
        };
        let answer = match &self.approver {
            Some(a) => a.approve(PermissionQuestion::Call { call, decision: &shown, effects }).await,
            None => Answer::no(),
        };
        for rule in &answer.remember {
            if let Err(e) = self.policy.remember(rule, "this session (approved)") {
                tracing::warn!(error = %e, "could not remember a rule");
            }
        }
        let note = answer.message.as_deref().map(|m| format!(" The user says: {m}")).unwrap_or_default();
        let decision = if answer.allow {
            Decision::new(
                Behavior::Allow,
                format!("Allowed by the user.{note}"),
                format!("user approval; {}", decision.source),
            )
        } else if let Some(message) = answer.message.as_ref().filter(|_| answer.verbatim) {
            Decision::new(Behavior::Deny, message.clone(), format!("refused by the program; {}", decision.source))
        } else if self.approver.is_some() {
            Decision::new(
                Behavior::Deny,
                format!("{} The user declined.{note}", decision.reason),
                format!("user refusal; {}", decision.source),
            )
        } else {
            Decision::new(
                Behavior::Deny,
                format!(
                    "{} The user has not granted this permission: rein is running without an approver, so questions \
                     are answered no. Do not retry the same call; use another approach, or tell the user which rule \
                     to add (--allowedTools or permissions.allow in .claude/settings.json).",
                    decision.reason
                ),
                format!("no approver (headless); {}", decision.source),
            )
        };
        let verbatim = answer.verbatim && !answer.allow && answer.message.is_some();
        (Verdict { decision, asked: true, judgement: None }, answer.updated_input.filter(|_| answer.allow), verbatim)
    }
}

/// What the permission stage does with a trial: decided (`Ok`), or ask as before with
/// this decision (`Err`).
type Decided = Result<(Verdict, Option<Value>), (Decision, Option<Judgement>)>;

async fn decide_after_trial(
    gate: &Gate,
    first: &dyn TryFirst,
    call: &ToolUse,
    effects: &Effects,
    mut decision: Decision,
    judgement: Option<Judgement>,
) -> Decided {
    let Some(outcome) = first.run().await else { return Err((decision, judgement)) };
    let source = decision.source.clone();
    let allowed = |reason: String, how: String| {
        let d = Decision::new(Behavior::Allow, reason, format!("{how}; the rules would have asked ({source})"))
            .granting(Grant::ReadOnly);
        Verdict { decision: d, asked: false, judgement: judgement.clone() }
    };
    match outcome {
        TriedOutcome::Nothing => match first.keep() {
            Ok(_) => Ok((
                allowed(
                    "Tried where it could change nothing: it changed no file and used no network, so its result stands."
                        .into(),
                    "tried first: changed nothing".into(),
                ),
                None,
            )),
            Err(e) => {
                decision.reason = format!("{} (Its trial could not be kept: {e}.)", decision.reason);
                Err((decision, judgement))
            }
        },
        TriedOutcome::Denied(why) => {
            let d = Decision::new(Behavior::Deny, why, format!("tried first: a change it made is denied ({source})"));
            Ok((Verdict { decision: d, asked: false, judgement }, None))
        }
        TriedOutcome::Changed { summary, allowed: every_change_allowed } => {
            if every_change_allowed {
                return match first.keep() {
                    Ok(n) => Ok((
                        allowed(
                            format!("Tried first, then its {n} change(s) were kept: the rules allow each as an edit."),
                            "tried first: every change allowed as an edit, kept".into(),
                        ),
                        None,
                    )),
                    Err(e) => Ok((refusal(&decision, &e), None)),
                };
            }
            decision.reason = format!(
                "{} rein ran it first where it could change nothing; \"yes\" makes exactly the changes it made there \
                 (it does not run again).",
                decision.reason
            );
            decision.tried = Some(summary.clone());
            let (mut verdict, input, verbatim) = gate.ask_full(call, decision, effects).await;
            verdict.judgement = judgement;
            if !verdict.allowed() {
                // The model learns what the refused command would have changed (unless
                // the refusal is a program's message, given as written).
                if !verbatim {
                    verdict.decision.reason =
                        format!("{}\nIt would have made these changes:\n{summary}", verdict.decision.reason);
                }
                return Ok((verdict, input));
            }
            if input.is_some() {
                // The person edited the command: the trial is dropped and the edited one
                // runs as it comes.
                return Ok((verdict, input));
            }
            match first.keep() {
                Ok(n) => {
                    verdict.decision.source = format!("{}; kept the {n} change(s) it made when tried", verdict.decision.source);
                    Ok((verdict, None))
                }
                Err(e) => Ok((refusal(&verdict.decision, &e), None)),
            }
        }
        TriedOutcome::Withheld(what) => {
            decision.reason = format!("{} Run first where it could change nothing, it {what}.", decision.reason);
            Err((decision, judgement))
        }
    }
}

/// The trial's changes could not be made: the call fails, saying how far it got.
fn refusal(decision: &Decision, why: &KeepError) -> Verdict {
    let d = Decision::new(
        Behavior::Deny,
        format!("The changes the command made when tried could not all be made: {why}"),
        decision.source.clone(),
    );
    Verdict { decision: d, asked: true, judgement: None }
}
