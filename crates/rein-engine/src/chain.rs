//! The validation chain every tool call passes, in a fixed order: input schema → the
//! tool's own validation → PreToolUse hooks → permission decision → execute →
//! PostToolUse hooks. Cheap, non-negotiable checks first; human time last. Each stage
//! that stops a call produces the paired `is_error` result with a reason the model can
//! act on. (Hooks fill their stages in a later issue; their place in the order is fixed
//! here.)

use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use rein_protocol::{ContentBlock, ToolUse};
use rein_tools::{Registry, ToolContext};

use crate::gate::{Gate, Verdict};

/// What happened to one call: its result, and the permission verdict when the call got
/// that far (audit records both; a denial is listed in the run's result).
pub struct CallReport {
    pub result: ContentBlock,
    pub verdict: Option<Verdict>,
}

impl CallReport {
    fn stopped(call: &ToolUse, message: String) -> Self {
        CallReport { result: ContentBlock::tool_result(&call.id, message, true), verdict: None }
    }
}

/// Run one call through the chain; always returns its `tool_result`.
pub async fn run_call(registry: &Registry, gate: &Gate, call: &ToolUse, ctx: &ToolContext) -> CallReport {
    // 1. Input schema (and the tool's existence).
    let prepared = match registry.prepare(&call.name, &call.input) {
        Ok(p) => p,
        Err(message) => return CallReport::stopped(call, message),
    };
    // 2. The tool's own validation.
    if let Err(reason) = prepared.validate(ctx) {
        return CallReport::stopped(call, format!("{} refused this input: {reason}", call.name));
    }
    // 3. PreToolUse hooks plug in here.
    // 4. The permission decision: deny → ask → allow.
    let verdict = gate.check(call, prepared.is_read_only()).await;
    if !verdict.allowed() {
        let result = ContentBlock::tool_result(&call.id, verdict.decision.reason.clone(), true);
        return CallReport { result, verdict: Some(verdict) };
    }
    // 5. Execute. A panicking tool is a failed call, never a lost one.
    let result = AssertUnwindSafe(prepared.call(ctx.clone())).catch_unwind().await;
    // 6. PostToolUse hooks plug in here.
    let result = match result {
        Ok(Ok(output)) => ContentBlock::ToolResult {
            tool_use_id: call.id.clone(),
            content: output.content,
            is_error: output.is_error,
        },
        Ok(Err(e)) => ContentBlock::tool_result(&call.id, format!("Error: {e}"), true),
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(tool = %call.name, %why, "tool panicked");
            ContentBlock::tool_result(&call.id, format!("Error: the {} tool crashed: {why}", call.name), true)
        }
    };
    CallReport { result, verdict: Some(verdict) }
}
