//! Bringing one server up: connect it, offer its tools (and those it adds later), its
//! instructions and the resource tools, and record how it went. A server that needs
//! signing in is kept so that it can be connected once signed in.

use std::sync::Arc;
use std::time::Duration;

use crate::client::{self, SessionFacts};
use crate::{ServerConfig, SessionPaths, Timeouts, instructions_section, live, lock, names, resources, tool};

/// What every server of the session shares.
pub(crate) struct Shared {
    pub statuses: Arc<std::sync::Mutex<Vec<crate::ServerStatus>>>,
    pub connections: Arc<std::sync::Mutex<Vec<Arc<live::Live>>>>,
    pub late: Arc<rein_tools::LateTools>,
    pub session: SessionPaths,
    pub timeouts: Timeouts,
    /// Servers that need signing in, to connect once signed in.
    pub waiting: std::sync::Mutex<Vec<ServerConfig>>,
    /// Every server the session started (not those held back), to bring one up again.
    pub configs: std::sync::Mutex<Vec<ServerConfig>>,
    /// The names of those turned off during the session (`mcp_toggle`, `/mcp disable`).
    pub off: std::sync::Mutex<Vec<String>>,
    /// Each connected server's watch for the tools it adds (it holds the connection: a
    /// server turned off has its watch stopped).
    pub watches: std::sync::Mutex<Vec<(String, tokio::task::AbortHandle)>>,
}

/// Connect `server` and offer what it has; its status says how it went.
pub(crate) async fn bring_up(server: ServerConfig, shared: &Shared) {
    let (session, timeouts, late) = (&shared.session, shared.timeouts, &shared.late);
    let prefix = names::prefix(&server.name);
    let facts = SessionFacts {
        cwd: &session.cwd,
        session_id: &session.id,
        tunnel: session.tunnel.as_ref(),
        elicitor: session.elicitor.as_ref(),
    };
    let result = client::connect(&server, &facts, timeouts.connect).await;
    // Held while what the server brings is offered: a server turned off meanwhile
    // (`mcp_toggle`) is not offered, and is stopped (its connection dropped).
    let off = lock(&shared.off);
    if off.contains(&server.name) {
        drop(off);
        drop(result);
        late.settle(&prefix);
        return;
    }
    let (status, error) = match result {
        Ok(conn) => {
            let timeout = server.timeout_ms.map_or(timeouts.tool, Duration::from_millis);
            let (tools, instructions) = (conn.tools.clone(), conn.instructions.clone());
            let changed = conn.tools_changed.clone();
            let has_resources = conn.service.peer_info().is_some_and(|i| i.capabilities.resources.is_some());
            let live = Arc::new(live::Live::new(server.clone(), session.clone(), timeouts.connect, conn));
            let offer = tool::Offer {
                server: server.name.clone(),
                live: live.clone(),
                timeout,
                max_output_chars: timeouts.max_output_chars,
                session_dir: session.dir.clone(),
            };
            offer.add(late, &tools);
            if let Some(text) = &instructions {
                late.add_instructions(&server.name, instructions_section(&server.name, text));
            }
            lock(&shared.connections).push(live);
            // `list_changed`: tools the server adds join too (removed ones stay
            // offered; a call to one gets the server's error).
            let watch_late = late.clone();
            let watch = tokio::spawn(async move {
                loop {
                    changed.notified().await;
                    let Ok(peer) = offer.live.peer().await else { continue };
                    if let Ok(now) = peer.list_all_tools().await {
                        offer.add(&watch_late, &now);
                    }
                }
            });
            lock(&shared.watches).push((server.name.clone(), watch.abort_handle()));
            if has_resources {
                // Offered once, when the first server with resources answers.
                let _ = late.add(resources::ListResources::new(shared.connections.clone()));
                let _ = late.add(resources::ReadResource::new(shared.connections.clone(), session.dir.clone()));
            }
            ("connected", None)
        }
        Err(e) if e.needs_auth() => ("needs-auth", Some(crate::needs_auth_message(&server.name, &e))),
        Err(e) => ("failed", Some(e.to_string())),
    };
    match (status, &error) {
        // A call of one of its tools says how to sign in.
        ("needs-auth", Some(why)) => {
            late.settle_unavailable(&prefix, why.clone());
            lock(&shared.waiting).push(server.clone());
        }
        _ => late.settle(&prefix),
    }
    if let Some(s) = lock(&shared.statuses).iter_mut().find(|s| s.name == server.name) {
        s.status = status;
        s.error = error;
    }
    drop(off);
}
