//! rein-mcp: the user's MCP servers, unchanged. Claude Code's configuration is read
//! ([`config`]), every server is connected in parallel in the background on rmcp
//! ([`client`]), and each tool is offered to the model as `mcp__<server>__<tool>`
//! ([`tool`]) from the first request after its server answered, passing the whole chain
//! (schema, hooks, permission rules) like a built-in. A call to a tool of a server still
//! connecting waits for it. A server that fails is reported, never fatal.

mod bring_up;
pub mod client;
pub mod config;
pub mod elicit;
pub mod error;
mod live;
pub mod names;
pub mod oauth;
pub mod oauth_store;
mod own;
pub mod policy;
pub mod prompts;
mod resources;
pub mod result;
mod sign_in;
mod sse;
pub mod store;
mod toggle;
pub mod tool;
mod tunnel;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use client::{Connection, SessionFacts};
pub use config::{ConfigError, ConfigProblem, Loaded, Locations, ServerConfig, Source};
pub use elicit::{ElicitAnswer, Elicitation, Elicitor};
pub use error::{HelperError, ServerError};
pub use own::{OwnServers, start_own};
use rein_tools::LateTools;
pub use sign_in::SignIn;
pub use tunnel::{Tunnel, TunnelError, TunnelHandle};

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

/// The session the servers serve.
#[derive(Debug, Clone)]
pub struct SessionPaths {
    pub cwd: PathBuf,
    pub id: String,
    /// Where binary results are saved.
    pub dir: PathBuf,
    /// The Agent SDK host's tunnel to its in-process servers (SDK mode).
    pub tunnel: Option<tunnel::TunnelHandle>,
    /// Who answers the servers' requests for input.
    pub elicitor: elicit::SharedElicitor,
}

/// How long things may take, and how much a result may hold.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: Duration,
    pub tool: Duration,
    /// `MAX_MCP_OUTPUT_TOKENS`, as characters (4 a token): larger results are saved to
    /// a file and the model gets a preview.
    pub max_output_chars: usize,
}

/// The session's servers.
#[derive(Default)]
pub struct Servers {
    statuses: Arc<Mutex<Vec<ServerStatus>>>,
    /// Kept for the session: dropping a connection stops its server.
    connections: Arc<Mutex<Vec<Arc<live::Live>>>>,
    pub problems: Vec<ConfigProblem>,
    late: Option<Arc<LateTools>>,
    /// What bringing a server up needs (for one signed in after the start).
    shared: Option<Arc<bring_up::Shared>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Servers {
    /// Start connecting every configured server in the background (needs a tokio
    /// runtime); their tools and instructions join `late` as each one answers.
    pub fn start(
        mut loaded: Loaded,
        policy: &policy::ServerPolicy,
        session: SessionPaths,
        timeouts: Timeouts,
        late: Arc<LateTools>,
    ) -> Servers {
        let mut servers =
            Servers { problems: std::mem::take(&mut loaded.problems), late: Some(late.clone()), ..Servers::default() };
        let shared = Arc::new(bring_up::Shared {
            statuses: servers.statuses.clone(),
            connections: servers.connections.clone(),
            late: late.clone(),
            session,
            timeouts,
            waiting: Default::default(),
            configs: Default::default(),
            off: Default::default(),
            watches: Default::default(),
        });
        servers.shared = Some(shared.clone());
        // Held servers are listed, not started.
        loaded.servers.retain(|server| match policy.hold(server) {
            None => true,
            Some(held) => {
                let status = if held == policy::Held::NeedsApproval { "pending" } else { "disabled" };
                let error = Some(match held {
                    policy::Held::Blocked => "blocked by the managed MCP server policy".to_string(),
                    policy::Held::NeedsApproval => {
                        "project server not approved yet (enabledMcpjsonServers in .claude/settings.local.json)"
                            .to_string()
                    }
                });
                lock(&servers.statuses).push(ServerStatus {
                    name: server.name.clone(),
                    status,
                    source: server.source,
                    error,
                });
                false
            }
        });
        *lock(&shared.configs) = loaded.servers.clone();
        // The resource tools may come with any server: calls to them wait for all.
        let remaining = Arc::new(std::sync::atomic::AtomicUsize::new(loaded.servers.len()));
        for name in RESOURCE_TOOLS {
            late.expect(name);
        }
        if loaded.servers.is_empty() {
            RESOURCE_TOOLS.iter().for_each(|n| late.settle(n));
        }
        for server in loaded.servers {
            let remaining = remaining.clone();
            let prefix = names::prefix(&server.name);
            late.expect(&prefix);
            lock(&servers.statuses).push(ServerStatus {
                name: server.name.clone(),
                status: "pending",
                source: server.source,
                error: None,
            });
            let (shared, late) = (shared.clone(), late.clone());
            tokio::spawn(async move {
                bring_up::bring_up(server, &shared).await;
                if remaining.fetch_sub(1, std::sync::atomic::Ordering::AcqRel) == 1 {
                    RESOURCE_TOOLS.iter().for_each(|n| late.settle(n));
                }
            });
        }
        servers
    }

    /// Expand `/mcp__<server>__<prompt> args` (waiting for the server to connect); `None`
    /// when `line` is not such a command.
    pub async fn expand_prompt(&self, line: &str) -> Option<Result<String, ServerError>> {
        let (command, args) = prompts::parse(line)?;
        let late = self.late.as_ref()?;
        late.wait_for(&format!("mcp__{command}")).await;
        let live = lock(&self.connections)
            .iter()
            .find(|l| format!("mcp__{command}").starts_with(&names::prefix(l.name())))
            .cloned();
        Some(match live {
            Some(live) => prompts::expand(&live, command, args).await,
            None => Err(ServerError::Prompt(format!("No connected MCP server for /mcp__{command}"))),
        })
    }

    /// Each server's state now.
    pub fn statuses(&self) -> Vec<ServerStatus> {
        lock(&self.statuses).clone()
    }

    /// Start the connected server `name` again (`/mcp reconnect NAME`).
    pub async fn reconnect(&self, name: &str) -> Result<(), ServerError> {
        let live = lock(&self.connections).iter().find(|l| l.name() == name).cloned();
        match live {
            Some(live) => live.reconnect().await,
            None => Err(ServerError::NotConnected(name.to_string())),
        }
    }
}

/// A connection refused for want of credentials (HTTP 401/403, an auth challenge).
pub fn needs_auth(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    e.contains("401")
        || e.contains("unauthorized")
        || e.contains("www-authenticate")
        || e.contains("auth required")
        || e.contains("authorization required")
}

/// What to do about a server that needs authentication.
pub fn needs_auth_message(name: &str, error: &dyn std::fmt::Display) -> String {
    format!(
        "MCP server \"{name}\" needs authentication ({error}): run `rein mcp login {name}`, or /mcp authenticate \
         {name} in a session"
    )
}

pub(crate) const RESOURCE_TOOLS: [&str; 2] = ["ListMcpResourcesTool", "ReadMcpResourceTool"];

/// A server's instructions as a system-prompt section (capped).
pub(crate) fn instructions_section(server: &str, text: &str) -> String {
    format!(
        "# MCP Server Instructions\n\nThe following MCP server has provided instructions for how to use its tools \
         and resources:\n\n## {server}\n{}",
        tool::capped(text, tool::MAX_DESCRIPTION)
    )
}
