//! `/mcp authenticate NAME`: signs in to a server that needs OAuth (the browser opens,
//! the URL is shown) and connects it once signed in. (`/mcp` and `/mcp reconnect NAME`
//! are the session owner's commands.)

use rein_session::Session;
use tokio::sync::mpsc::UnboundedSender;

use crate::worker::FromEngine;

/// `/mcp authenticate NAME`: the browser opens (or the URL is shown); once signed in,
/// the server connects and a line says so.
pub async fn sign_in(session: &Session, name: &str, ui: &UnboundedSender<FromEngine>) -> Vec<String> {
    let Some(servers) = session.mcp().cloned() else {
        return vec!["No MCP servers are configured (.mcp.json, ~/.claude.json, --mcp-config)".into()];
    };
    if name.is_empty() {
        return vec!["Usage: /mcp authenticate NAME".into()];
    }
    let sign_in = match servers.begin_sign_in(name).await {
        Ok(s) => s,
        Err(e) => return vec![e],
    };
    let url = sign_in.url.clone();
    let opened = sign_in.open_browser();
    let ui = ui.clone();
    tokio::spawn(async move {
        let line = sign_in.finish().await.unwrap_or_else(|e| e);
        let _ = ui.send(FromEngine::Info(vec![line]));
    });
    let how = if opened { "in the browser that opened" } else { "by opening this URL (no browser could be opened)" };
    vec![format!("Sign in to {name} {how}:"), format!("  {url}"), "rein connects it once you are signed in.".into()]
}
