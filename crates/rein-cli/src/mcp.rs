//! The session's MCP servers: their configuration from the usual places and flags,
//! connected before the first request (headless waits for them, as `claude -p` does),
//! their tools added to the session's registry and their instructions to the prompt.

use std::sync::Arc;
use std::time::Duration;

use rein_mcp::{Locations, Servers, SessionFacts};

use crate::args::Args;
use crate::session::Setup;

const DEFAULT_CONNECT_MS: u64 = 30_000;
const DEFAULT_TOOL_MS: u64 = 100_000_000;

/// Where the configuration is read from.
pub fn locations(args: &Args, setup: &Setup) -> Locations {
    let env = &setup.env;
    let claude_json = match &env.claude_config_dir {
        Some(dir) => Some(dir.join(".claude.json")),
        None => env.home.as_ref().map(|h| h.join(".claude.json")),
    };
    Locations {
        project: setup.cwd.clone(),
        claude_json,
        cli: args.mcp_config.clone(),
        strict: args.strict_mcp_config,
        disabled_project: setup.disabled_mcpjson.clone(),
    }
}

/// Connect the configured servers and give the session their tools. A configuration
/// that cannot be read at all (a `--mcp-config` without `mcpServers`) stops rein; a
/// server that fails is reported and the session goes on.
pub async fn start(args: &Args, setup: &mut Setup) -> anyhow::Result<()> {
    let loaded = rein_mcp::config::load(&locations(args, setup), &|k| std::env::var(k).ok())?;
    if loaded.servers.is_empty() && loaded.problems.is_empty() {
        return Ok(());
    }
    let configs = loaded.servers.clone();
    let facts = SessionFacts { cwd: &setup.cwd, session_id: &setup.session_id };
    let connect = Duration::from_millis(setup.env.mcp_timeout_ms.unwrap_or(DEFAULT_CONNECT_MS));
    let servers = Servers::start(loaded, &facts, connect).await;
    if args.debug {
        for s in servers.statuses.iter().filter(|s| s.error.is_some()) {
            eprintln!("rein: MCP server \"{}\" failed: {}", s.name, s.error.as_deref().unwrap_or(""));
        }
    }
    let mut registry = (*setup.registry).clone();
    let tool_timeout = Duration::from_millis(setup.env.mcp_tool_timeout_ms.unwrap_or(DEFAULT_TOOL_MS));
    for skipped in servers.register(&mut registry, &configs, tool_timeout, &setup.session_dir) {
        eprintln!("rein: {skipped}");
    }
    setup.registry = Arc::new(registry);
    if let Some(instructions) = servers.instructions() {
        setup.system = setup.system.with_session_appended(&format!("\n\n{instructions}"));
    }
    setup.mcp = Some(Arc::new(servers));
    Ok(())
}
