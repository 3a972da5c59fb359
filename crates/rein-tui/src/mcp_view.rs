//! `/mcp authenticate NAME`: signs in to a server that needs OAuth (the browser opens,
//! the URL is shown) and connects it once signed in. (`/mcp` and `/mcp reconnect NAME`
//! are the session owner's commands.)

use rein_session::Session;

/// `/mcp authenticate NAME`: the browser opens (or the URL is shown); once signed in,
/// the server connects and `later` gets the line that says so.
pub(crate) async fn sign_in(session: &Session, name: &str, later: Box<dyn FnOnce(String) + Send>) -> Vec<String> {
    let Some(servers) = session.mcp().cloned() else {
        return vec!["No MCP servers are configured (.mcp.json, ~/.claude.json, --mcp-config)".into()];
    };
    if name.is_empty() {
        return vec!["Usage: /mcp authenticate NAME".into()];
    }
    let sign_in = match servers.begin_sign_in(name).await {
        Ok(s) => s,
        Err(e) => return vec![e.to_string()],
    };
    let url = sign_in.url.clone();
    let opened = sign_in.open_browser();
    tokio::spawn(async move { later(sign_in.finish().await.unwrap_or_else(|e| e.to_string())) });
    let how = if opened { "in the browser that opened" } else { "by opening this URL (no browser could be opened)" };
    vec![format!("Sign in to {name} {how}:"), format!("  {url}"), "rein connects it once you are signed in.".into()]
}
