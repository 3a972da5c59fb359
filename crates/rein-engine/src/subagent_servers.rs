//! The seam through which a subagent gets the MCP servers its definition defines
//! (`mcpServers` entries with a definition): the session starts them when the subagent
//! starts, under the session's server policy, and they stop when the returned set is
//! dropped at the subagent's end. The engine knows nothing of MCP itself.

use std::sync::Arc;

use futures::future::BoxFuture;
use rein_tools::ExternalTool;

/// Servers started for one subagent run.
#[derive(Default)]
pub struct StartedServers {
    /// Their tools, offered to that subagent only.
    pub tools: Vec<Arc<dyn ExternalTool>>,
    /// Their instructions, as system-prompt sections.
    pub instructions: Vec<String>,
    /// What keeps them running (dropped: they stop).
    pub keep: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

/// Who starts a subagent's own servers.
pub trait SubagentServers: Send + Sync {
    /// Start `entries` (`(name, definition)` as the definition wrote them) for the
    /// subagent `agent`, whose definition is in `origin`; an entry that is malformed, held
    /// by the policy or fails is left out with a warning.
    fn start<'a>(
        &'a self,
        agent: &'a str,
        origin: &'a str,
        entries: Vec<(String, serde_json::Value)>,
    ) -> BoxFuture<'a, StartedServers>;

    /// What every tool name of the session's server `server` starts with.
    fn tool_prefix(&self, server: &str) -> String;
}

/// A shared [`SubagentServers`], as the engine's configuration holds it.
#[derive(Clone)]
pub struct SharedSubagentServers(pub Arc<dyn SubagentServers>);

impl std::fmt::Debug for SharedSubagentServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedSubagentServers")
    }
}
