//! `--json-schema`: the `StructuredOutput` tool, whose input schema is the caller's
//! schema. The model ends its work by calling it; the input, checked against the
//! schema, is the run's `structured_output`. It touches nothing.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rein_effects::Effects;
use rein_protocol::ToolSpec;
use serde_json::Value;

use crate::{ExternalTool, ToolContext, ToolError, ToolOutput};

/// The tool's name, as Claude Code calls it.
pub const STRUCTURED_OUTPUT: &str = "StructuredOutput";

/// The tool, and where the last valid answer is kept.
pub struct StructuredOutput {
    spec: ToolSpec,
    answer: Arc<Mutex<Option<Value>>>,
}

impl StructuredOutput {
    /// A tool whose input must match `schema`; `answer` receives each valid call's input.
    pub fn new(schema: Value, answer: Arc<Mutex<Option<Value>>>) -> Self {
        let spec = ToolSpec {
            name: STRUCTURED_OUTPUT.into(),
            description: "Give your final answer as structured output. Call this tool exactly once, at the end, with \
                          an input that matches its schema; your answer is the input."
                .into(),
            input_schema: schema,
        };
        StructuredOutput { spec, answer }
    }
}

impl ExternalTool for StructuredOutput {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn effects(&self, _input: &Value) -> Effects {
        // The model's answer, kept for the caller: nothing read from outside, nothing
        // changed outside the session (a subagent answering a workflow's schema is not
        // asked either).
        Effects { own_result: true, ..Effects::session_only(true) }
    }

    fn call(&self, input: Value, _ctx: ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        *self.answer.lock().unwrap_or_else(|p| p.into_inner()) = Some(input);
        Box::pin(async { Ok(ToolOutput::text("Structured output provided successfully")) })
    }
}
