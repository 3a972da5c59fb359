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
use rein_tools::{PreparedCall, Registry, ToolContext};
use serde_json::json;

use crate::gate::{Gate, HookSay, Verdict};

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
        }
    }

    fn stopped(call: &ToolUse, message: String, notices: Vec<String>) -> Self {
        CallReport {
            result: ContentBlock::tool_result(&call.id, message, true),
            verdict: None,
            notices,
            stop: None,
            deferred: false,
        }
    }
}

/// Stages 1 and 2: the schema, then the tool's own validation.
fn prepare(registry: &Registry, call: &ToolUse, ctx: &ToolContext) -> Result<Box<dyn PreparedCall>, String> {
    validate(registry.prepare(&call.name, &call.input)?, call, ctx)
}

/// Stage 2 alone, for a call whose schema stage already ran.
fn validate(
    prepared: Box<dyn PreparedCall>,
    call: &ToolUse,
    ctx: &ToolContext,
) -> Result<Box<dyn PreparedCall>, String> {
    prepared.validate(ctx).map_err(|reason| format!("{} refused this input: {reason}", call.name))?;
    Ok(prepared)
}

/// Run one call through the chain; always returns its `tool_result`. `checked` is the
/// call already through stage 1 (the executor parses each call once, to batch it).
pub async fn run_call(
    registry: &Registry,
    gate: &Gate,
    call: &ToolUse,
    ctx: &ToolContext,
    checked: Option<Box<dyn PreparedCall>>,
) -> CallReport {
    let mut notices = Vec::new();
    let mut stop = None;
    let mut call = call.clone();
    if call.input.get(rein_model::INCOMPLETE_INPUT_KEY).is_some() {
        let message = "The input of this call was cut off by the output token limit (max_tokens) before it was complete, \
                       so the call was not run. Send it again, with a shorter input if you can.";
        return CallReport::stopped(&call, message.to_string(), notices);
    }
    let first = match checked {
        Some(p) => validate(p, &call, ctx),
        None => prepare(registry, &call, ctx),
    };
    let mut prepared = match first {
        Ok(p) => p,
        Err(message) => return CallReport::stopped(&call, message, notices),
    };
    // 3. PreToolUse hooks: they may block, ask, allow (only where no rule asks) or
    //    rewrite the input, which then goes through stages 1 and 2 again.
    let mut hook_say = None;
    let mut context = Vec::new();
    if let Some(hooks) = &gate.hooks {
        let fields = json!({"tool_name": call.name, "tool_input": call.input, "tool_use_id": call.id});
        let policy = gate.policy.clone();
        let read_only = prepared.is_read_only();
        let out = hooks
            .fire("PreToolUse", Some(&call.name), fields, |h| {
                if_passes(h.if_rule.as_deref(), &policy, &call, read_only)
            })
            .await;
        notices.extend(out.notices("PreToolUse"));
        stop = out.stop();
        context = out.context(false);
        if let Some((decision, reason, hook)) = out.pre_tool_decision() {
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
                };
                let result = ContentBlock::tool_result(&call.id, message, true);
                return CallReport { result, verdict: Some(verdict), notices, stop, deferred: false };
            }
            // Headless, `defer` stops the session with the call unanswered, to be run on resume.
            if decision == HookDecision::Defer && gate.approver.is_none() {
                let source = format!("PreToolUse hook `{hook}` deferred the call");
                let verdict =
                    Verdict { decision: Decision::new(Behavior::Ask, "Deferred by a hook.", source), asked: false };
                let result = ContentBlock::tool_result(&call.id, "Deferred by a PreToolUse hook.", true);
                return CallReport { result, verdict: Some(verdict), notices, stop, deferred: true };
            }
            hook_say = Some(HookSay { decision, reason, hook });
        }
        if let Some(input) = out.updated_input() {
            call.input = input;
            prepared = match prepare(registry, &call, ctx) {
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
    let (verdict, rewritten) = gate.check(&call, prepared.is_read_only(), hook_say).await;
    if !verdict.allowed() {
        let result = ContentBlock::tool_result(&call.id, verdict.decision.reason.clone(), true);
        return CallReport { result, verdict: Some(verdict), notices, stop, deferred: false };
    }
    if let Some(input) = rewritten {
        call.input = input;
        prepared = match prepare(registry, &call, ctx) {
            Ok(p) => p,
            Err(message) => return CallReport::stopped(&call, message, notices),
        };
    }
    // 5. Execute. A panicking tool is a failed call, never a lost one.
    let started = Instant::now();
    let result = AssertUnwindSafe(prepared.call(ctx.clone())).catch_unwind().await;
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
    if let Some(hooks) = &gate.hooks {
        let extra =
            post_hooks(hooks, &call, &content, is_error, started.elapsed().as_millis() as u64, &mut notices).await;
        if stop.is_none() {
            stop = extra.1;
        }
        context.extend(extra.0);
    }
    let content = with_context(content, &context);
    CallReport {
        result: ContentBlock::ToolResult { tool_use_id: call.id.clone(), content, is_error },
        verdict: Some(verdict),
        notices,
        stop,
        deferred: false,
    }
}

/// A handler's `if` rule must match the call (tool events only).
fn if_passes(rule: Option<&str>, policy: &rein_policy::Policy, call: &ToolUse, read_only: bool) -> bool {
    match rule {
        None => true,
        Some(r) => policy.rule_matches(r, &Call { tool: &call.name, input: &call.input, read_only }),
    }
}

/// Run PostToolUse or PostToolUseFailure; returns the text for the model and a stop.
async fn post_hooks(
    hooks: &Hooks,
    call: &ToolUse,
    content: &ToolResultContent,
    is_error: bool,
    duration_ms: u64,
    notices: &mut Vec<String>,
) -> (Vec<String>, Option<String>) {
    let text = content.to_text();
    let (event, fields) = if is_error {
        (
            "PostToolUseFailure",
            json!({"tool_name": call.name, "tool_input": call.input, "tool_use_id": call.id, "error": text, "duration_ms": duration_ms}),
        )
    } else {
        let response = if call.name == "Bash" {
            json!({"stdout": text, "stderr": "", "interrupted": false, "isImage": false})
        } else {
            json!(text)
        };
        (
            "PostToolUse",
            json!({"tool_name": call.name, "tool_input": call.input, "tool_response": response, "tool_use_id": call.id, "duration_ms": duration_ms}),
        )
    };
    let out = hooks.fire(event, Some(&call.name), fields, |_| true).await;
    notices.extend(out.notices(event));
    let mut extra = out.context(false);
    if let Some((reason, hook)) = out.block() {
        extra.push(format!("{event} hook `{hook}` says: {reason}"));
    }
    (extra, out.stop())
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
