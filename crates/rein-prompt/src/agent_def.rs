//! What a subagent definition says, wherever it comes from (a Markdown file, a flag,
//! a plugin, the built-in types).

use std::path::PathBuf;

/// Where a definition comes from: a project's definitions may not widen what the
/// session allows (their `permissionMode` only narrows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentSource {
    BuiltIn,
    Project,
    User,
    /// `--agents` or the Agent SDK's `initialize.agents`.
    Flag,
    /// A plugin's: like a project's, it may only narrow what the session allows.
    Plugin,
}

/// One subagent definition.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDef {
    pub name: String,
    pub description: String,
    /// Tools it may use; `None` (no `tools`, or `"*"`) inherits every tool.
    pub tools: Option<Vec<String>>,
    /// Tools taken away from what it would have (`disallowedTools`).
    pub disallowed_tools: Vec<String>,
    /// `sonnet`, `opus`, `haiku`, a full id; `None` (or `inherit`) is the session's.
    pub model: Option<String>,
    /// `permissionMode` as written (`default`, `acceptEdits`, `plan`, …).
    pub permission_mode: Option<String>,
    /// `maxTurns`: the most model turns the subagent takes.
    pub max_turns: Option<u32>,
    /// Skills whose instructions are given to it when it starts.
    pub skills: Vec<String>,
    /// `effort`: low, medium, high, xhigh, max.
    pub effort: Option<String>,
    /// `color` in the interface.
    pub color: Option<String>,
    /// `background`: the Agent tool runs it in the background unless the call says
    /// otherwise (`run_in_background: false`).
    pub background: bool,
    /// `hooks`, in the settings' shape (they hold while the subagent runs).
    pub hooks: Option<serde_json::Value>,
    /// `mcpServers`: server names or inline definitions.
    pub mcp_servers: Option<serde_json::Value>,
    /// Its system prompt (the file's body, read when the subagent first runs).
    pub prompt: crate::body::Body,
    pub path: PathBuf,
    pub source: AgentSource,
}
