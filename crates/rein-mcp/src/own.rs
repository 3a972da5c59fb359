//! Servers a subagent defines for itself (its `mcpServers` entries with a definition):
//! connected when it starts, under the session's server policy, their tools made for it
//! alone; they stop when the returned [`OwnServers`] is dropped (the connections go,
//! and with them the servers' processes).

use std::sync::Arc;

use rein_tools::ExternalTool;

use crate::client::{SessionFacts, connect};
use crate::config::{Source, server_entry};
use crate::policy::ServerPolicy;
use crate::tool::{McpTool, Offer};
use crate::{SessionPaths, Timeouts, instructions_section, live::Live};

/// The servers started for one subagent run.
#[derive(Default)]
pub struct OwnServers {
    pub tools: Vec<Arc<dyn ExternalTool>>,
    pub instructions: Vec<String>,
    /// Why an entry is not running (malformed, held by the policy, failed).
    pub problems: Vec<String>,
    /// The connections: dropped, the servers stop.
    pub connections: Vec<Arc<Live>>,
}

/// Connect `entries` (`(name, definition)`, from the definition in `origin`) in parallel.
/// They are dynamic servers: the managed allow and deny lists apply, a project's
/// approval list does not (the definition is the folder's, which the person trusted).
pub async fn start_own(
    entries: Vec<(String, serde_json::Value)>,
    origin: &str,
    policy: &ServerPolicy,
    session: &SessionPaths,
    timeouts: Timeouts,
) -> OwnServers {
    let mut out = OwnServers::default();
    let mut configs = Vec::new();
    for (name, entry) in &entries {
        let process = |v: &str| rein_process::env::named(v);
        match server_entry(name, entry, Source::Dynamic, origin, &crate::config::without_credentials(&process)) {
            Ok(server) if policy.hold(&server).is_some() => {
                out.problems.push(format!("MCP server \"{name}\" is blocked by the managed MCP server policy"));
            }
            Ok(server) => configs.push(server),
            Err(p) => out.problems.push(format!("{}: {}", p.file, p.message)),
        }
    }
    let facts = SessionFacts {
        cwd: &session.cwd,
        session_id: &session.id,
        tunnel: session.tunnel.as_ref(),
        elicitor: session.elicitor.as_ref(),
    };
    let connected =
        futures::future::join_all(configs.iter().map(|server| connect(server, &facts, timeouts.connect))).await;
    for (server, result) in configs.into_iter().zip(connected) {
        let conn = match result {
            Ok(conn) => conn,
            Err(e) => {
                out.problems.push(format!("MCP server \"{}\" failed: {e}", server.name));
                continue;
            }
        };
        let (tools, instructions) = (conn.tools.clone(), conn.instructions.clone());
        let timeout = server.timeout_ms.map_or(timeouts.tool, std::time::Duration::from_millis);
        let live = Arc::new(Live::new(server.clone(), session.clone(), timeouts.connect, conn));
        let offer = Offer {
            server: server.name.clone(),
            live: live.clone(),
            timeout,
            max_output_chars: timeouts.max_output_chars,
            session_dir: session.dir.clone(),
        };
        out.tools.extend(tools.iter().map(|t| McpTool::new(t, &offer) as Arc<dyn ExternalTool>));
        if let Some(text) = &instructions {
            out.instructions.push(instructions_section(&server.name, text));
        }
        out.connections.push(live);
    }
    out
}
