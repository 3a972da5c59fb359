//! The faces a tool shows the registry and the chain: a call whose input passed the
//! schema ([`PreparedCall`]), a registered tool as an object ([`DynTool`]), and the
//! input problems a schema finds, worded for the model.

use futures::future::BoxFuture;
use rein_effects::{Effects, RuleKind};
use rein_protocol::ToolSpec;
use serde_json::Value;

use crate::{InputError, ToolContext, ToolError, ToolOutput};

/// A tool call whose input passed the schema and was deserialised into the tool's type.
pub trait PreparedCall: Send {
    fn tool_name(&self) -> &str;
    /// What the call touches, in `ctx` as it is now (the session shell's directory may
    /// have changed since the call arrived).
    fn effects(&self, ctx: &ToolContext) -> Effects;
    /// The tool's own semantic validation.
    fn validate(&self, ctx: &ToolContext) -> Result<(), InputError>;
    fn call(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>>;
}

/// The object-safe face of a registered tool.
pub(crate) trait DynTool: Send + Sync {
    fn spec(&self) -> &ToolSpec;
    fn rule_kind(&self) -> RuleKind;
    fn path_fields(&self) -> &'static [&'static str];
    fn collapses_repeats(&self) -> bool;
    fn max_result_chars(&self) -> Option<usize>;
    fn offered_to_subagents(&self) -> bool;
    fn offered_to_model(&self) -> bool;
    fn deferred_by_default(&self) -> bool;
    fn prepare(&self, input: &Value) -> Result<Box<dyn PreparedCall>, InputError>;
}

/// What is wrong with `input`, one line per problem.
pub(crate) fn problems(validator: &jsonschema::Validator, input: &Value) -> Vec<String> {
    validator.iter_errors(input).map(|e| describe(&e)).collect()
}

fn describe(e: &jsonschema::ValidationError<'_>) -> String {
    let path = e.instance_path().to_string();
    let field = path.trim_start_matches('/').replace('/', ".");
    if field.is_empty() { e.to_string() } else { format!("`{field}`: {e}") }
}

pub(crate) fn input_error(tool: &str, problems: &[String]) -> InputError {
    InputError::Invalid { tool: tool.to_string(), problems: problems.to_vec() }
}
