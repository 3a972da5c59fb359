//! rein-mcp: the user's MCP servers, unchanged. Claude Code's configuration is read
//! ([`config`]), every server is connected in parallel on rmcp ([`client`]), and each
//! tool is offered to the model as `mcp__<server>__<tool>` ([`tool`]), passing the
//! whole chain (schema, hooks, permission rules) like a built-in. A server that fails
//! is reported, never fatal.

pub mod client;
pub mod config;
pub mod names;
pub mod result;
pub mod tool;

use std::path::PathBuf;
use std::time::Duration;

pub use client::{Connection, SessionFacts};
pub use config::{ConfigError, ConfigProblem, Loaded, Locations, ServerConfig, Source};

/// A server's state, as the init event reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    pub name: String,
    /// `connected`, `failed`, `pending`, `disabled`, `needs-auth`.
    pub status: &'static str,
    pub source: Source,
    /// Why it failed.
    pub error: Option<String>,
}

/// The session's servers.
#[derive(Default)]
pub struct Servers {
    pub statuses: Vec<ServerStatus>,
    pub connections: Vec<(String, Connection)>,
    pub problems: Vec<ConfigProblem>,
}

impl Servers {
    /// Connect every configured server at once, each within `timeout`.
    pub async fn start(loaded: Loaded, facts: &SessionFacts<'_>, timeout: Duration) -> Servers {
        let attempts = loaded.servers.iter().map(|s| client::connect(s, facts, timeout));
        let results = futures::future::join_all(attempts).await;
        let mut out = Servers { problems: loaded.problems, ..Servers::default() };
        for (server, result) in loaded.servers.into_iter().zip(results) {
            let (status, error) = match result {
                Ok(conn) => {
                    out.connections.push((server.name.clone(), conn));
                    ("connected", None)
                }
                Err(e) => ("failed", Some(e)),
            };
            out.statuses.push(ServerStatus { name: server.name, status, source: server.source, error });
        }
        out
    }

    /// Offer every connected server's tools in `registry`; `tool_timeout` bounds each
    /// call (a server's own `timeout` wins). Names already taken are skipped.
    pub fn register(
        &self,
        registry: &mut rein_tools::Registry,
        configs: &[ServerConfig],
        tool_timeout: Duration,
        session_dir: &std::path::Path,
    ) -> Vec<String> {
        let mut skipped = Vec::new();
        for (name, conn) in &self.connections {
            let timeout = configs
                .iter()
                .find(|c| &c.name == name)
                .and_then(|c| c.timeout_ms)
                .map_or(tool_timeout, Duration::from_millis);
            for t in &conn.tools {
                let tool =
                    tool::McpTool::new(name, t, conn.service.peer().clone(), timeout, PathBuf::from(session_dir));
                if let Err(e) = registry.register_external(tool) {
                    skipped.push(format!("MCP server \"{name}\": tool \"{}\" skipped: {e}", t.name));
                }
            }
        }
        skipped
    }

    /// The `# MCP Server Instructions` section of the system prompt, if any server
    /// gave instructions.
    pub fn instructions(&self) -> Option<String> {
        let parts: Vec<String> = self
            .connections
            .iter()
            .filter_map(|(name, c)| {
                c.instructions.as_ref().map(|i| format!("## {name}\n{}", tool::capped(i, tool::MAX_DESCRIPTION)))
            })
            .collect();
        (!parts.is_empty()).then(|| {
            format!(
                "# MCP Server Instructions\n\nThe following MCP servers have provided instructions for how to use \
                 their tools and resources:\n\n{}",
                parts.join("\n\n")
            )
        })
    }
}
