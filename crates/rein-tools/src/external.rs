//! Tools whose definition arrives at run time — an MCP server's tools: a name, a
//! description and an input schema from outside, checked against that schema like any
//! other tool, declaring their effects and answering with a `ToolOutput`.

use std::sync::Arc;

use futures::future::BoxFuture;
use rein_effects::{Effects, RuleKind};
use rein_protocol::ToolSpec;
use serde_json::Value;

use crate::checked_call::{DynTool, PreparedCall, input_error, problems};
use crate::{ToolContext, ToolError, ToolOutput};

/// A tool defined at run time.
pub trait ExternalTool: Send + Sync {
    fn spec(&self) -> &ToolSpec;
    /// What a call with `input` touches.
    fn effects(&self, input: &Value) -> Effects;
    /// The largest inline result in characters (larger ones are spilled to a file).
    fn max_result_chars(&self) -> Option<usize> {
        Some(100_000)
    }
    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>>;
}

pub(crate) struct RegisteredExternal {
    pub(crate) tool: Arc<dyn ExternalTool>,
    /// The schema compiled on the tool's first call (a server may offer a hundred tools
    /// and a session call three). `None` when it does not compile: any object is
    /// accepted then, and the server does its own checking.
    validator: std::sync::OnceLock<Option<jsonschema::Validator>>,
}

impl RegisteredExternal {
    pub(crate) fn new(tool: Arc<dyn ExternalTool>) -> Self {
        RegisteredExternal { tool, validator: std::sync::OnceLock::new() }
    }
}

struct PreparedExternal {
    tool: Arc<dyn ExternalTool>,
    input: Value,
}

impl PreparedCall for PreparedExternal {
    fn tool_name(&self) -> &str {
        &self.tool.spec().name
    }
    fn effects(&self, _ctx: &ToolContext) -> Effects {
        self.tool.effects(&self.input)
    }
    fn validate(&self, _ctx: &ToolContext) -> Result<(), crate::InputError> {
        Ok(())
    }
    fn call(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let PreparedExternal { tool, input } = *self;
        Box::pin(async move {
            let name = tool.spec().name.clone();
            let limit = tool.max_result_chars();
            let output = tool.call(input, ctx.clone()).await?;
            Ok(crate::budget::apply_budget(&name, output, limit, &ctx))
        })
    }
}

impl DynTool for RegisteredExternal {
    fn spec(&self) -> &ToolSpec {
        self.tool.spec()
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Field { default: None }
    }

    fn path_fields(&self) -> &'static [&'static str] {
        &[]
    }

    fn collapses_repeats(&self) -> bool {
        false
    }

    fn max_result_chars(&self) -> Option<usize> {
        self.tool.max_result_chars()
    }

    fn offered_to_subagents(&self) -> bool {
        true
    }

    fn offered_to_model(&self) -> bool {
        true
    }

    /// MCP tools are deferred by their share of the window, not by name.
    fn deferred_by_default(&self) -> bool {
        false
    }

    fn prepare(&self, input: &Value) -> Result<Box<dyn PreparedCall>, crate::InputError> {
        if !input.is_object() {
            return Err(input_error(&self.tool.spec().name, &["the input must be an object".into()]));
        }
        let validator = self.validator.get_or_init(|| jsonschema::validator_for(&self.tool.spec().input_schema).ok());
        if let Some(v) = validator {
            let found = problems(v, input);
            if !found.is_empty() {
                return Err(input_error(&self.tool.spec().name, &found));
            }
        }
        Ok(Box::new(PreparedExternal { tool: self.tool.clone(), input: input.clone() }))
    }
}
