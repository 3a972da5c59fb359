//! The validation chain every tool call passes, in a fixed order: input schema → the
//! tool's own validation → PreToolUse hooks → permission decision → task hooks (a
//! TodoWrite call) → execute → the edited files' diagnostics → PostToolUse hooks. Cheap, non-negotiable checks first; human time last. Each stage
//! that stops a call produces the paired `is_error` result with a reason the model can
//! act on, and the permission verdict (including a hook's block) goes to the audit.

use std::panic::AssertUnwindSafe;
use std::time::Instant;

use futures::FutureExt;
use rein_hooks::{HookDecision, Hooks};
use rein_policy::{Behavior, Call, Decision};
use rein_protocol::{ContentBlock, ToolResultContent, ToolUse};
use rein_tools::{Effects, InputError, PreparedCall, Registry, ToolContext};
use serde_json::{Value, json};

use crate::gate::{Gate, HookSay, Verdict};
use rein_hooks::{HookEvent, HookInput};

mod diagnostics;
mod task_hooks;
pub use task_hooks::TaskList;

/// What happened to one call.
pub struct CallReport {
    pub result: ContentBlock,
    /// The permission verdict, when the call got that far (a hook's block counts).
    pub verdict: Option<Verdict>,
    /// Messages for the user (hook errors, `systemMessage`s).
    pub notices: Vec<String>,
    /// A hook said `continue: false`: stop the session, with this reason.
    pub stop: Option<String>,
    /// A PreToolUse hook deferred the call (headless): the session stops here and the
    /// call runs when the session is resumed.
    pub deferred: bool,
    /// The call ran a shell command (its failure cancels its parallel siblings).
    pub ran_shell: bool,
    /// What the call touched, when it ran (the auto-mode judge reads where its result
    /// came from).
    pub effects: Option<Effects>,
    /// Where the whole result was saved when the model got only a preview (frontends
    /// show the whole of it).
    pub saved: Option<std::path::PathBuf>,
}

/// A call through stage 1 with what it touches, worked out when it was scheduled.
pub struct Checked {
    pub prepared: Box<dyn PreparedCall>,
    pub effects: Effects,
}

impl Checked {
    /// Stage 1 and the call's effects in `ctx` as it is now.
    pub fn new(registry: &Registry, call: &ToolUse, ctx: &ToolContext) -> Result<Checked, InputError> {
        let prepared = registry.prepare(&call.name, &call.input)?;
        let effects = prepared.effects(ctx);
        Ok(Checked { prepared, effects })
    }
}

impl CallReport {
    /// An error result the executor writes for a call it cancelled or never ran.
    pub fn synthetic(id: &str, message: &str) -> Self {
        CallReport {
            result: ContentBlock::tool_result(id, message, true),
            verdict: None,
            notices: Vec::new(),
            stop: None,
            deferred: false,
            ran_shell: false,
            effects: None,
            saved: None,
        }
    }

    fn stopped(call: &ToolUse, message: String, notices: Vec<String>) -> Self {
        CallReport {
            result: ContentBlock::tool_result(&call.id, message, true),
            verdict: None,
            notices,
            stop: None,
            deferred: false,
            ran_shell: false,
            effects: None,
            saved: None,
        }
    }
}

/// Stages 1 and 2: the schema, then the tool's own validation (relative file paths made
/// absolute first).
fn prepare(registry: &Registry, call: &mut ToolUse, ctx: &ToolContext) -> Result<Checked, InputError> {
    if let Some(input) = registry.expand_paths(&call.name, &call.input, ctx) {
        call.input = input;
    }
    validate(Checked::new(registry, call, ctx)?, call, ctx)
}

/// Stage 2 alone, for a call whose schema stage already ran.
fn validate(checked: Checked, call: &ToolUse, ctx: &ToolContext) -> Result<Checked, InputError> {
    checked
        .prepared
        .validate(ctx)
        .map_err(|reason| InputError::Refused(format!("{} refused this input: {reason}", call.name)))?;
    Ok(checked)
}

/// What a stage says: go on to the next one, or stop with the call's report.
enum Step {
    Continue,
    Stop(Box<CallReport>),
}

/// One call on its way through the chain, and what the stages so far found.
struct Flow<'a> {
    registry: &'a Registry,
    gate: &'a Gate,
    ctx: &'a ToolContext,
    call: ToolUse,
    /// The call through stages 1 and 2 (taken when it runs), and what it touches.
    prepared: Option<Box<dyn PreparedCall>>,
    effects: Effects,
    notices: Vec<String>,
    /// A hook said `continue: false`.
    stop: Option<String>,
    /// Hook context for the model, sent with the result.
    context: Vec<String>,
    /// What a PreToolUse hook decided, for the permission stage.
    hook_say: Option<HookSay>,
    verdict: Option<Verdict>,
    /// How long the tool ran (stage 5), for the PostToolUse input.
    duration_ms: u64,
    /// Where the tool saved its whole result, when the model gets only a preview.
    saved: Option<std::path::PathBuf>,
    /// The result of a trial the permission stage kept (the call is done).
    tried: Option<(ToolResultContent, bool)>,
}

/// Run one call through the chain; always returns its `tool_result`. `checked` is the
/// call already through stage 1 (the executor parses each call once, to batch it).
pub async fn run_call(
    registry: &Registry,
    gate: &Gate,
    call: &ToolUse,
    ctx: &ToolContext,
    checked: Option<Checked>,
) -> CallReport {
    // Relative file paths were made absolute when the call was scheduled (the executor)
    // or are in `prepare` below.
    let mut call = call.clone();
    let checked = match check_input(registry, &mut call, ctx, checked).await {
        Ok(c) => c,
        Err(report) => return *report,
    };
    let mut flow = Flow {
        registry,
        gate,
        ctx,
        call,
        prepared: Some(checked.prepared),
        effects: checked.effects,
        notices: Vec::new(),
        stop: None,
        context: Vec::new(),
        hook_say: None,
        verdict: None,
        duration_ms: 0,
        saved: None,
        tried: None,
    };
    if let Step::Stop(report) = flow.pre_tool_hooks().await {
        return *report;
    }
    if let Step::Stop(report) = flow.permission().await {
        return *report;
    }
    if let Step::Stop(report) = flow.task_hooks().await {
        return *report;
    }
    let (content, is_error) = flow.execute().await;
    let content = diagnostics::added(ctx, &flow.effects, content, is_error).await;
    flow.post_tool_hooks(content, is_error).await
}

/// Stages 1 and 2: a cut-off input, the schema, the tool's own validation.
async fn check_input(
    registry: &Registry,
    call: &mut ToolUse,
    ctx: &ToolContext,
    checked: Option<Checked>,
) -> Result<Checked, Box<CallReport>> {
    if call.input.get(rein_model::INCOMPLETE_INPUT_KEY).is_some() {
        let message = "The input of this call was cut off by the output token limit (max_tokens) before it was complete, \
                       so the call was not run. Send it again, with a shorter input if you can.";
        return Err(Box::new(CallReport::stopped(call, message.to_string(), Vec::new())));
    }
    let first = match checked {
        Some(p) => validate(p, call, ctx),
        None => {
            // A tool of a server still connecting: wait for it rather than answer
            // "no such tool".
            registry.ready(&call.name).await;
            prepare(registry, call, ctx)
        }
    };
    first.map_err(|e| Box::new(CallReport::stopped(call, e.to_string(), Vec::new())))
}

impl Flow<'_> {
    /// The call prepared again (its input was rewritten).
    fn checked(&mut self, c: Checked) {
        self.prepared = Some(c.prepared);
        self.effects = c.effects;
    }

    fn stopped(&mut self, message: String) -> Step {
        Step::Stop(Box::new(CallReport::stopped(&self.call, message, std::mem::take(&mut self.notices))))
    }

    fn refused(&mut self, message: String, verdict: Verdict, deferred: bool) -> Step {
        let result = ContentBlock::tool_result(&self.call.id, message, true);
        let notices = std::mem::take(&mut self.notices);
        let stop = self.stop.take();
        Step::Stop(Box::new(CallReport {
            result,
            verdict: Some(verdict),
            notices,
            stop,
            deferred,
            ran_shell: false,
            effects: None,
            saved: None,
        }))
    }

    /// Stage 3, PreToolUse hooks: they may block, defer, ask, allow (only where no rule
    /// asks) or rewrite the input, which then goes through stages 1 and 2 again.
    async fn pre_tool_hooks(&mut self) -> Step {
        let Some(hooks) = &self.gate.hooks else { return Step::Continue };
        let call = &self.call;
        let input = HookInput::PreToolUse {
            tool_name: call.name.clone(),
            tool_input: call.input.clone(),
            tool_use_id: call.id.clone(),
        };
        let policy = self.gate.policy.get();
        let effects = &self.effects;
        let out = hooks.fire_input(&input, |h| if_passes(h.if_rule.as_deref(), &policy, call, effects)).await;
        self.notices.extend(out.notices(HookEvent::PreToolUse));
        self.stop = out.stop();
        self.context = out.context(false);
        if let Some(rein_hooks::PreToolDecision { decision, reason, hook }) = out.pre_tool_decision() {
            if decision == HookDecision::Deny {
                let reason = if reason.is_empty() { "no reason given".to_string() } else { reason };
                let message = format!("PreToolUse hook `{hook}` blocked this call: {reason}");
                let source = format!("PreToolUse hook `{hook}`: {reason}");
                let verdict = Verdict {
                    decision: Decision::new(Behavior::Deny, message.clone(), source),
                    asked: false,
                    judgement: None,
                };
                return self.refused(message, verdict, false);
            }
            // Headless, `defer` stops the session with the call unanswered, to be run on resume.
            if decision == HookDecision::Defer && self.gate.approver.is_none() {
                let source = format!("PreToolUse hook `{hook}` deferred the call");
                let decision = Decision::new(Behavior::Ask, "Deferred by a hook.", source);
                let verdict = Verdict { decision, asked: false, judgement: None };
                return self.refused("Deferred by a PreToolUse hook.".into(), verdict, true);
            }
            self.hook_say = Some(HookSay { decision, reason, hook });
        }
        if let Some(input) = out.updated_input() {
            self.call.input = input;
            match prepare(self.registry, &mut self.call, self.ctx) {
                Ok(p) => self.checked(p),
                Err(e) => return self.stopped(format!("A PreToolUse hook rewrote the input, and {e}")),
            }
        }
        Step::Continue
    }

    /// Stage 4, the permission decision: deny → ask → allow. A shell command the rules
    /// would ask about is tried first where it can change nothing ([`crate::trial`]).
    async fn permission(&mut self) -> Step {
        let hook = self.hook_say.take();
        let (mut verdict, rewritten) = if self.may_try_first() {
            let runner = crate::trial::Runner::new(self.registry, self.gate, &self.call, self.ctx);
            let decided = self.gate.check_trying(&self.call, &self.effects, hook, Some(&runner)).await;
            self.tried = runner.kept_result();
            decided
        } else {
            self.gate.check(&self.call, &self.effects, hook).await
        };
        if let Some(input) = rewritten.filter(|_| verdict.allowed()) {
            // A PermissionRequest hook rewrote the input: the new call is checked against
            // the deny rules again.
            self.call.input = input;
            match prepare(self.registry, &mut self.call, self.ctx) {
                Ok(p) => self.checked(p),
                Err(e) => return self.stopped(e.to_string()),
            }
            let call = Call { tool: &self.call.name, input: &self.call.input, effects: &self.effects };
            let again = self.gate.policy.get().decide(&call);
            if again.behavior == Behavior::Deny {
                verdict = Verdict { decision: again, asked: true, judgement: None };
            }
        }
        if !verdict.allowed() {
            let reason = verdict.decision.reason.clone();
            return self.refused(reason, verdict, false);
        }
        self.verdict = Some(verdict);
        Step::Continue
    }

    /// A foreground shell command that stays in the jail it is given (not one that
    /// asked to leave the sandbox) can be tried first.
    fn may_try_first(&self) -> bool {
        self.effects.shell.as_ref().is_some_and(|s| s.confinement != rein_policy::Confinement::Unsandboxed)
            && self.call.input.get("run_in_background") != Some(&Value::Bool(true))
            && !self.gate.approver.as_ref().is_some_and(|a| a.wants_every_question())
    }

    /// Stage 5, execute. A panicking tool is a failed call, never a lost one. What a
    /// file tool changes is checkpointed first (and noted after), so that it can be
    /// rewound. A call whose trial was kept already ran: its result is the trial's.
    async fn execute(&mut self) -> (ToolResultContent, bool) {
        if let Some(result) = self.tried.take() {
            self.prepared = None;
            return result;
        }
        let checkpoints = self.ctx.checkpoints.as_ref().filter(|_| self.effects.edits_files);
        let written = self.effects.writes.clone();
        if let Some(cp) = checkpoints {
            written.iter().for_each(|p| cp.before_write(p));
        }
        let Some(prepared) = self.prepared.take() else {
            return (ToolResultContent::Text("Error: the call was already run".into()), true);
        };
        // The call runs with what its decision granted (a shell command allowed by rein's
        // own judgement runs with only what that judgement covered).
        let mut ctx = self.ctx.clone();
        ctx.grant = self.verdict.as_ref().map_or(rein_policy::Grant::User, |v| v.decision.grant);
        let started = Instant::now();
        let result = AssertUnwindSafe(prepared.call(ctx)).catch_unwind().await;
        if let Some(cp) = checkpoints {
            written.iter().for_each(|p| cp.after_write(p));
        }
        self.duration_ms = started.elapsed().as_millis() as u64;
        match result {
            Ok(Ok(output)) => {
                self.saved = output.saved;
                (output.content, output.is_error)
            }
            Ok(Err(e)) => (ToolResultContent::Text(format!("Error: {e}")), true),
            Err(panic) => {
                let why = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                tracing::error!(tool = %self.call.name, %why, "tool panicked");
                (ToolResultContent::Text(format!("Error: the {} tool crashed: {why}", self.call.name)), true)
            }
        }
    }

    /// Stage 6, PostToolUse (or PostToolUseFailure) hooks: feedback and context for the
    /// model, or another result (`updatedToolOutput`). Ends the chain with its report.
    async fn post_tool_hooks(mut self, mut content: ToolResultContent, is_error: bool) -> CallReport {
        if let Some(hooks) = &self.gate.hooks {
            let post = Post {
                gate: self.gate,
                call: &self.call,
                effects: &self.effects,
                duration_ms: self.duration_ms,
                saved: self.saved.as_deref(),
            };
            let said = post.run(hooks, &content, is_error, &mut self.notices).await;
            if said.replaced.is_some() {
                // What the model gets is the hook's text now, not a preview of the saved file.
                self.saved = None;
            }
            if self.stop.is_none() {
                self.stop = said.stop;
            }
            self.context.extend(said.context);
            if let Some(replaced) = said.replaced {
                content = match replaced {
                    Value::String(text) => ToolResultContent::Text(text),
                    Value::Array(blocks) => serde_json::from_value(Value::Array(blocks.clone()))
                        .map(ToolResultContent::Blocks)
                        .unwrap_or_else(|_| ToolResultContent::Text(Value::Array(blocks).to_string())),
                    other => ToolResultContent::Text(other.to_string()),
                };
            }
        }
        let content = with_context(content, &self.context);
        CallReport {
            result: ContentBlock::ToolResult { tool_use_id: self.call.id.clone(), content, is_error },
            verdict: self.verdict,
            notices: self.notices,
            stop: self.stop,
            deferred: false,
            ran_shell: self.effects.shell.is_some(),
            effects: Some(self.effects),
            saved: self.saved,
        }
    }
}

/// A handler's `if` rule must match the call (tool events only).
fn if_passes(rule: Option<&str>, policy: &rein_policy::Policy, call: &ToolUse, effects: &Effects) -> bool {
    match rule {
        None => true,
        Some(r) => policy.rule_matches(r, &Call { tool: &call.name, input: &call.input, effects }),
    }
}

/// What PostToolUse hooks are told of a call that ran.
struct Post<'a> {
    gate: &'a Gate,
    call: &'a ToolUse,
    effects: &'a Effects,
    duration_ms: u64,
    saved: Option<&'a std::path::Path>,
}

impl Post<'_> {
    /// Run PostToolUse or PostToolUseFailure (handlers whose `if` matches the call).
    async fn run(
        &self,
        hooks: &Hooks,
        content: &ToolResultContent,
        is_error: bool,
        notices: &mut Vec<String>,
    ) -> PostSaid {
        let (call, duration_ms) = (self.call, self.duration_ms);
        // Hooks see the whole result, read back from where it was saved, not the preview.
        let text = self
            .saved
            .and_then(|p| std::fs::read(p).ok())
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_else(|| content.to_text());
        let (tool_name, tool_input, tool_use_id) = (call.name.clone(), call.input.clone(), call.id.clone());
        let input = if is_error {
            HookInput::PostToolUseFailure { tool_name, tool_input, tool_use_id, error: text, duration_ms }
        } else {
            // A shell command's response has Claude Code's Bash shape.
            let tool_response = if self.effects.shell.is_some() {
                json!({"stdout": text, "stderr": "", "interrupted": false, "isImage": false})
            } else {
                json!(text)
            };
            HookInput::PostToolUse { tool_name, tool_input, tool_response, tool_use_id, duration_ms }
        };
        let event = input.event();
        let policy = self.gate.policy.get();
        let keep = |h: &rein_hooks::Handler| if_passes(h.if_rule.as_deref(), &policy, call, self.effects);
        let out = hooks.fire_input(&input, keep).await;
        notices.extend(out.notices(event));
        let mut extra = out.context(false);
        if let Some((reason, hook)) = out.block() {
            extra.push(format!("{event} hook `{hook}` says: {reason}"));
        }
        let replaced = if is_error { None } else { out.updated_tool_output() };
        PostSaid { context: extra, stop: out.stop(), replaced }
    }
}

/// What PostToolUse hooks said.
struct PostSaid {
    /// Context (and block reasons) for the model.
    context: Vec<String>,
    /// A hook said `continue: false`.
    stop: Option<String>,
    /// Another result for the model (`updatedToolOutput`).
    replaced: Option<Value>,
}

/// Hook context travels with the result it is about.
fn with_context(content: ToolResultContent, context: &[String]) -> ToolResultContent {
    if context.is_empty() {
        return content;
    }
    appended(content, format!("<hook-context>\n{}\n</hook-context>", context.join("\n")))
}

/// `content` with `note` after it: a paragraph of its text, or a block of its own.
fn appended(content: ToolResultContent, note: String) -> ToolResultContent {
    match content {
        ToolResultContent::Text(t) => ToolResultContent::Text(format!("{t}\n\n{note}")),
        ToolResultContent::Blocks(mut b) => {
            b.push(ContentBlock::text(note));
            ToolResultContent::Blocks(b)
        }
    }
}
