//! The session's MCP servers: their configuration from the usual places and flags,
//! connected before the first request (headless waits for them, as `claude -p` does),
//! their tools added to the session's registry and their instructions to the prompt.

use std::sync::Arc;
use std::time::Duration;

use rein_mcp::{Locations, Servers, SessionPaths, Timeouts};

use crate::{Options, Setup};

const DEFAULT_CONNECT_MS: u64 = 30_000;
const DEFAULT_TOOL_MS: u64 = 100_000_000;

/// `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`), where `claude mcp` keeps the
/// user and local servers.
pub fn claude_json(env: &crate::env::Env) -> Option<std::path::PathBuf> {
    match &env.claude_config_dir {
        Some(dir) => Some(dir.join(".claude.json")),
        None => env.home.as_ref().map(|h| h.join(".claude.json")),
    }
}

/// Where the configuration is read from.
pub fn locations(opts: &Options, setup: &Setup) -> Locations {
    Locations {
        project: setup.cwd.clone(),
        claude_json: claude_json(&setup.env),
        cli: opts.mcp_config.clone(),
        strict: opts.strict_mcp_config,
        disabled_project: setup.disabled_mcpjson.clone(),
    }
}

/// The servers a session starts and the registry their tools join.
pub(crate) struct Started {
    pub(crate) registry: Arc<rein_tools::Registry>,
    pub(crate) servers: Arc<Servers>,
}

/// Start the configured servers in the background; their tools join the session's
/// registry as each one answers (a call to one still connecting waits for it). A
/// configuration that cannot be read at all (a `--mcp-config` without `mcpServers`)
/// stops rein; a server that fails is reported and the session goes on. In SDK mode the
/// host's in-process servers (`"type": "sdk"` entries, and the names the TypeScript SDK
/// gives in `initialize`) are reached through `tunnel`. `None`: no server is configured.
pub(crate) fn start(
    opts: &Options,
    setup: &Setup,
    tools: &rein_tools::Registry,
    policy: &rein_mcp::policy::ServerPolicy,
    tunnel: Option<rein_mcp::TunnelHandle>,
    sdk_servers: &[String],
) -> crate::Result<Option<Started>> {
    let mut loaded = rein_mcp::config::load(&locations(opts, setup), &|k| setup.var(k))?;
    // The sources the session reads (`--setting-sources`).
    let sources = opts.definition_sources_with(&setup.env);
    loaded.servers.retain(|s| match s.source {
        rein_mcp::Source::User => sources.user,
        rein_mcp::Source::Project => sources.project,
        rein_mcp::Source::Local => sources.local,
        rein_mcp::Source::Dynamic => true,
    });
    if !opts.strict_mcp_config {
        loaded.servers.extend(crate::plugins::mcp_servers(setup));
    }
    for name in sdk_servers {
        if !loaded.servers.iter().any(|s| &s.name == name) {
            loaded.servers.push(rein_mcp::ServerConfig {
                name: name.clone(),
                transport: rein_mcp::config::Transport::Sdk,
                timeout_ms: None,
                headers_helper: None,
                oauth: None,
                source: rein_mcp::Source::Dynamic,
                origin: "the Agent SDK (initialize)".into(),
            });
        }
    }
    if loaded.servers.is_empty() && loaded.problems.is_empty() {
        return Ok(None);
    }
    let timeouts = timeouts(&setup.env);
    let mut registry = tools.clone();
    let late = registry.late_tools();
    let session = session_paths(setup, tunnel);
    // The servers start at once; headless and the SDK wait for them before the first
    // request ([`ready_wait`]), the interactive session does not.
    let servers = Arc::new(Servers::start(loaded, policy, session, timeouts, late));
    Ok(Some(Started { registry: Arc::new(registry), servers }))
}

/// How long headless waits for the configured servers before the first request
/// (`MCP_TIMEOUT`), as Claude Code does: the first request then lists their tools; a
/// server still connecting after that joins later turns. `None`: no servers.
pub fn ready_wait(setup: &Setup, session: &crate::Session) -> Option<Duration> {
    session.mcp().map(|_| timeouts(&setup.env).connect)
}

/// `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT`, `MAX_MCP_OUTPUT_TOKENS`.
fn timeouts(env: &crate::env::Env) -> Timeouts {
    Timeouts {
        connect: Duration::from_millis(env.mcp_timeout_ms.unwrap_or(DEFAULT_CONNECT_MS)),
        tool: Duration::from_millis(env.mcp_tool_timeout_ms.unwrap_or(DEFAULT_TOOL_MS)),
        max_output_chars: env.max_mcp_output_tokens.unwrap_or(25_000).saturating_mul(4),
    }
}

/// What the session's servers are told about it, and who answers their questions.
fn session_paths(setup: &Setup, tunnel: Option<rein_mcp::TunnelHandle>) -> SessionPaths {
    SessionPaths {
        cwd: setup.cwd.clone(),
        id: setup.session_id.clone(),
        dir: setup.session_dir.clone(),
        tunnel,
        elicitor: Some(Arc::new(crate::elicitor::HookElicitor { hooks: setup.hooks.clone() })),
    }
}

/// Starts the servers a subagent's definition defines, for its run (see
/// [`rein_mcp::start_own`]).
pub(crate) struct SessionSubagentServers {
    policy: rein_mcp::policy::ServerPolicy,
    session: SessionPaths,
    timeouts: Timeouts,
}

impl SessionSubagentServers {
    pub(crate) fn new(setup: &Setup) -> SessionSubagentServers {
        SessionSubagentServers {
            policy: setup.mcp_policy.clone(),
            session: session_paths(setup, None),
            timeouts: timeouts(&setup.env),
        }
    }
}

impl rein_engine::SubagentServers for SessionSubagentServers {
    fn start<'a>(
        &'a self,
        agent: &'a str,
        origin: &'a str,
        entries: Vec<(String, serde_json::Value)>,
    ) -> futures::future::BoxFuture<'a, rein_engine::StartedServers> {
        Box::pin(async move {
            let own = rein_mcp::start_own(entries, origin, &self.policy, &self.session, self.timeouts).await;
            for problem in &own.problems {
                tracing::warn!(agent, %problem, "a subagent's MCP server is not running");
            }
            rein_engine::StartedServers {
                tools: own.tools,
                instructions: own.instructions,
                keep: own
                    .connections
                    .into_iter()
                    .map(|c| Box::new(c) as Box<dyn std::any::Any + Send + Sync>)
                    .collect(),
            }
        })
    }

    fn tool_prefix(&self, server: &str) -> String {
        rein_mcp::names::prefix(server)
    }
}
