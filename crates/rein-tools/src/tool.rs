//! The [`Tool`] trait: a name, a description, an input type (its schema is what the
//! model sees), the call's declared effects and rule kind, and the handler.

use std::future::Future;

use rein_effects::{Effects, RuleKind};
use rein_protocol::{ContentBlock, ToolResultContent};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::ToolContext;

/// A capability the model can call.
pub trait Tool: Send + Sync + 'static {
    /// The input the handler receives; its JSON schema is what the model sees.
    type Input: DeserializeOwned + JsonSchema + Send + 'static;

    fn name(&self) -> &'static str;

    /// What the model reads about the tool.
    fn description(&self) -> String;

    /// Semantic checks the schema cannot express (absolute paths, value ranges…).
    fn validate(&self, _input: &Self::Input, _ctx: &ToolContext) -> Result<(), crate::InputError> {
        Ok(())
    }

    /// What this call touches: paths read and written, hosts, a shell command, other
    /// effects, and whether it is read-only and concurrency-safe. The permission engine
    /// decides on this. A tool that does not say is treated as writing everything, and
    /// every call of it is asked.
    fn effects(&self, _input: &Self::Input, _ctx: &ToolContext) -> Effects {
        Effects::undeclared()
    }

    /// How `Name(specifier)` permission rules for this tool are read. By default a
    /// specifier is `field:value`, matched against the input.
    fn rule_kind(&self) -> RuleKind {
        RuleKind::Field { default: None }
    }

    /// Input fields that name a file. A relative path (or `~/…`) in one is made absolute
    /// against the working directory before anything looks at the call (hooks, rules,
    /// the tool itself), so every reader sees the absolute path; the search tools name
    /// files relative to the working directory, and the model may pass them back as is.
    fn path_fields(&self) -> &'static [&'static str] {
        &[]
    }

    /// Input fields the model is not shown in this session (still accepted and
    /// validated; the tool ignores what it does not offer).
    fn hidden_fields(&self) -> Vec<&'static str> {
        Vec::new()
    }

    /// Whether a result that repeats, byte for byte, what the same call got earlier in
    /// the conversation may reach the model as a pointer to that earlier result instead
    /// of a second copy. Only for tools that read and change nothing (Read, Glob, Grep):
    /// the same input and the same output then mean nothing changed in between.
    fn collapses_repeats(&self) -> bool {
        false
    }

    /// Whether the model is offered the tool now (a tool with nothing to offer, such as
    /// Skill without a skill the model may call, stays registered, so that rules can
    /// name it, but is not in the tools array).
    fn offered_to_model(&self) -> bool {
        true
    }

    /// Whether the definition waits behind ToolSearch until the model loads it, as
    /// Claude Code does for its rarely used tools: the first request stays small, and a
    /// call by name still runs (the input is checked against the schema all the same).
    fn deferred_by_default(&self) -> bool {
        false
    }

    /// Whether a subagent gets this tool too. Tools that start subagents or need the
    /// person (a plan to approve, a question) stay with the session that has them.
    fn offered_to_subagents(&self) -> bool {
        true
    }

    /// The largest result, in characters, that reaches the model inline; a larger one is
    /// saved under the session directory and the model gets a preview and the path.
    /// `None` means never spilled (Read: reading a spilled file must not spill again).
    fn max_result_chars(&self) -> Option<usize> {
        Some(100_000)
    }

    fn call(&self, input: Self::Input, ctx: &ToolContext)
    -> impl Future<Output = Result<ToolOutput, ToolError>> + Send;
}

/// What a tool returns: the `tool_result` content and whether it reports a failure.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: ToolResultContent,
    pub is_error: bool,
    /// The file holding the whole result when `content` is only its preview (a result
    /// too large for the context): hooks read the whole of it from there.
    pub saved: Option<std::path::PathBuf>,
}

impl ToolOutput {
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput { content: ToolResultContent::Text(text.into()), is_error: false, saved: None }
    }

    /// A result the model should read as a failure (a command's non-zero exit, say).
    pub fn failure(text: impl Into<String>) -> Self {
        ToolOutput { content: ToolResultContent::Text(text.into()), is_error: true, saved: None }
    }

    pub fn blocks(blocks: Vec<ContentBlock>) -> Self {
        ToolOutput { content: ToolResultContent::Blocks(blocks), is_error: false, saved: None }
    }

    /// The same output, its whole text kept in `saved`.
    pub fn saved_in(self, saved: Option<std::path::PathBuf>) -> Self {
        ToolOutput { saved, ..self }
    }
}

/// A tool could not do what was asked; becomes an `is_error` result with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

impl ToolError {
    pub fn new(msg: impl Into<String>) -> Self {
        ToolError(msg.into())
    }
}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        ToolError(e.to_string())
    }
}
