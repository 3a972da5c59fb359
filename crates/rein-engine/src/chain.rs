//! The validation chain every tool call passes, in a fixed order: input schema → the
//! tool's own validation → PreToolUse hooks → permission decision → execute →
//! PostToolUse hooks. Cheap, non-negotiable checks first; human time last. Each stage
//! that stops a call produces the paired `is_error` result with a reason the model can
//! act on, and the permission verdict (including a hook's block) goes to the audit.

use std::panic::AssertUnwindSafe;
use std::time::Instant;

use futures::FutureExt;
use rein_hooks::{HookDecision, Hooks};
use rein_policy::{Behavior, Call, Decision};
use rein_protocol::{ContentBlock, ToolResultContent, ToolUse};
use rein_tools::{Effects, PreparedCall, Registry, ToolContext};
use serde_json::{Value, json};

use crate::gate::{Gate, HookSay, Verdict};
use rein_hooks::{HookEvent, HookInput};

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
}

/// A call through stage 1 with what it touches, worked out when it was scheduled.
pub struct Checked {
    pub prepared: Box<dyn PreparedCall>,
    pub effects: Effects,
}

impl Checked {
    /// Stage 1 and the call's effects in `ctx` as it is now.
    pub fn new(registry: &Registry, call: &ToolUse, ctx: &ToolContext) -> Result<Checked, String> {
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
        }
    }
}

/// Stages 1 and 2: the schema, then the tool's own validation (relative file paths made
/// absolute first).
fn prepare(registry: &Registry, call: &mut ToolUse, ctx: &ToolContext) -> Result<Checked, String> {
    if let Some(input) = registry.expand_paths(&call.name, &call.input, ctx) {
        call.input = input;
    }
    validate(Checked::new(registry, call, ctx)?, call, ctx)
}

/// Stage 2 alone, for a call whose schema stage already ran.
fn validate(checked: Checked, call: &ToolUse, ctx: &ToolContext) -> Result<Checked, String> {
    checked.prepared.validate(ctx).map_err(|reason| format!("{} refused this input: {reason}", call.name))?;
    Ok(checked)
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
    let mut notices = Vec::new();
    let mut stop = None;
    // Relative file paths were made absolute when the call was scheduled (the executor)
    // or are in `prepare` below.
    let mut call = call.clone();
    if call.input.get(rein_model::INCOMPLETE_INPUT_KEY).is_some() {
        let message = "The input of this call was cut off by the output token limit (max_tokens) before it was complete, \
                       so the call was not run. Send it again, with a shorter input if you can.";
        return CallReport::stopped(&call, message.to_string(), notices);
    }
    let first = match checked {
        Some(p) => validate(p, &call, ctx),
        None => {
            // A tool of a server still connecting: wait for it rather than answer
            // "no such tool".
            registry.ready(&call.name).await;
            prepare(registry, &mut call, ctx)
        }
    };
    let mut checked = match first {
        Ok(p) => p,
        Err(message) => return CallReport::stopped(&call, message, notices),
    };
    // 3. PreToolUse hooks: they may block, ask, allow (only where no rule asks) or
    //    rewrite the input, which then goes through stages 1 and 2 again.
    let mut hook_say = None;
    let mut context = Vec::new();
    if let Some(hooks) = &gate.hooks {
        let input = HookInput::PreToolUse {
            tool_name: call.name.clone(),
            tool_input: call.input.clone(),
            tool_use_id: call.id.clone(),
        };
        let policy = gate.policy.get();
        let effects = &checked.effects;
        let out = hooks.fire_input(&input, |h| if_passes(h.if_rule.as_deref(), &policy, &call, effects)).await;
        notices.extend(out.notices(HookEvent::PreToolUse));
        stop = out.stop();
        context = out.context(false);
        if let Some(rein_hooks::PreToolDecision { decision, reason, hook }) = out.pre_tool_decision() {
            if decision == HookDecision::Deny {
                let reason = if reason.is_empty() { "no reason given".to_string() } else { reason };
                let message = format!("PreToolUse hook `{hook}` blocked this call: {reason}");
                let verdict = Verdict {
                    decision: Decision::new(
                        Behavior::Deny,
                        message.clone(),
                        format!("PreToolUse hook `{hook}`: {reason}"),
                    ),
                    asked: false,
                    judgement: None,
                };
                let result = ContentBlock::tool_result(&call.id, message, true);
                return CallReport { result, verdict: Some(verdict), notices, stop, deferred: false, ran_shell: false };
            }
            // Headless, `defer` stops the session with the call unanswered, to be run on resume.
            if decision == HookDecision::Defer && gate.approver.is_none() {
                let source = format!("PreToolUse hook `{hook}` deferred the call");
                let verdict = Verdict {
                    decision: Decision::new(Behavior::Ask, "Deferred by a hook.", source),
                    asked: false,
                    judgement: None,
                };
                let result = ContentBlock::tool_result(&call.id, "Deferred by a PreToolUse hook.", true);
                return CallReport { result, verdict: Some(verdict), notices, stop, deferred: true, ran_shell: false };
            }
            hook_say = Some(HookSay { decision, reason, hook });
        }
        if let Some(input) = out.updated_input() {
            call.input = input;
            checked = match prepare(registry, &mut call, ctx) {
                Ok(p) => p,
                Err(message) => {
                    return CallReport::stopped(
                        &call,
                        format!("A PreToolUse hook rewrote the input, and {message}"),
                        notices,
                    );
                }
            };
        }
    }
    // 4. The permission decision: deny → ask → allow.
    let (mut verdict, rewritten) = gate.check(&call, &checked.effects, hook_say).await;
    if let Some(input) = rewritten.filter(|_| verdict.allowed()) {
        // A PermissionRequest hook rewrote the input: the new call is checked against
        // the deny rules again.
        call.input = input;
        checked = match prepare(registry, &mut call, ctx) {
            Ok(p) => p,
            Err(message) => return CallReport::stopped(&call, message, notices),
        };
        let again = gate.policy.get().decide(&Call { tool: &call.name, input: &call.input, effects: &checked.effects });
        if again.behavior == Behavior::Deny {
            verdict = Verdict { decision: again, asked: true, judgement: None };
        }
    }
    let ran_shell = checked.effects.shell.is_some();
    if !verdict.allowed() {
        let result = ContentBlock::tool_result(&call.id, verdict.decision.reason.clone(), true);
        return CallReport { result, verdict: Some(verdict), notices, stop, deferred: false, ran_shell: false };
    }
    // 5. Execute. A panicking tool is a failed call, never a lost one. What a file tool
    //    changes is checkpointed first (and noted after), so that it can be rewound.
    let checkpoints = ctx.checkpoints.as_ref().filter(|_| rein_tools::CHECKPOINTED_TOOLS.contains(&call.name.as_str()));
    let written = checked.effects.writes.clone();
    if let Some(cp) = checkpoints {
        written.iter().for_each(|p| cp.before_write(p));
    }
    let started = Instant::now();
    let result = AssertUnwindSafe(checked.prepared.call(ctx.clone())).catch_unwind().await;
    if let Some(cp) = checkpoints {
        written.iter().for_each(|p| cp.after_write(p));
    }
    let (content, is_error) = match result {
        Ok(Ok(output)) => (output.content, output.is_error),
        Ok(Err(e)) => (ToolResultContent::Text(format!("Error: {e}")), true),
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(tool = %call.name, %why, "tool panicked");
            (ToolResultContent::Text(format!("Error: the {} tool crashed: {why}", call.name)), true)
        }
    };
    // 6. PostToolUse (or PostToolUseFailure) hooks: feedback and context for the model.
    let mut content = content;
    if let Some(hooks) = &gate.hooks {
        let ms = started.elapsed().as_millis() as u64;
        let post = Post { gate, call: &call, effects: &checked.effects, duration_ms: ms };
        let extra = post.run(hooks, &content, is_error, &mut notices).await;
        if stop.is_none() {
            stop = extra.1;
        }
        context.extend(extra.0);
        // A PostToolUse hook may give the model another result (updatedToolOutput).
        if let Some(replaced) = extra.2 {
            content = match replaced {
                Value::String(text) => ToolResultContent::Text(text),
                Value::Array(blocks) => serde_json::from_value(Value::Array(blocks.clone()))
                    .map(ToolResultContent::Blocks)
                    .unwrap_or_else(|_| ToolResultContent::Text(Value::Array(blocks).to_string())),
                other => ToolResultContent::Text(other.to_string()),
            };
        }
    }
    let content = with_context(content, &context);
    CallReport {
        result: ContentBlock::ToolResult { tool_use_id: call.id.clone(), content, is_error },
        verdict: Some(verdict),
        notices,
        stop,
        deferred: false,
        ran_shell,
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
}

impl Post<'_> {
    /// Run PostToolUse or PostToolUseFailure (handlers whose `if` matches the call);
    /// returns the text for the model and a stop.
    async fn run(
        &self,
        hooks: &Hooks,
        content: &ToolResultContent,
        is_error: bool,
        notices: &mut Vec<String>,
    ) -> (Vec<String>, Option<String>, Option<Value>) {
        let (call, duration_ms) = (self.call, self.duration_ms);
        let text = content.to_text();
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
        (extra, out.stop(), replaced)
    }
}

/// Hook context travels with the result it is about.
fn with_context(content: ToolResultContent, context: &[String]) -> ToolResultContent {
    if context.is_empty() {
        return content;
    }
    let note = format!("\n\n<hook-context>\n{}\n</hook-context>", context.join("\n"));
    match content {
        ToolResultContent::Text(t) => ToolResultContent::Text(t + &note),
        ToolResultContent::Blocks(mut b) => {
            b.push(ContentBlock::text(note.trim_start()));
            ToolResultContent::Blocks(b)
        }
    }
}
