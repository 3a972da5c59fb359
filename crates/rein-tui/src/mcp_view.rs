//! `/mcp`: each MCP server with where it is configured, its state (and why it failed)
//! and its tools; `/mcp reconnect NAME` starts a server again; `/mcp authenticate NAME`
//! signs in to a server that needs OAuth (the browser opens, the URL is shown) and
//! connects it once signed in.

use rein_session::Session;
use tokio::sync::mpsc::UnboundedSender;

use crate::worker::FromEngine;

pub async fn run(session: &mut Session, args: &str, ui: &UnboundedSender<FromEngine>) -> Vec<String> {
    let Some(servers) = session.mcp().cloned() else {
        return vec!["No MCP servers are configured (.mcp.json, ~/.claude.json, --mcp-config)".into()];
    };
    let args = args.trim();
    if let Some(name) = args.strip_prefix("authenticate").or_else(|| args.strip_prefix("login")).map(str::trim) {
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
        let how =
            if opened { "in the browser that opened" } else { "by opening this URL (no browser could be opened)" };
        return vec![
            format!("Sign in to {name} {how}:"),
            format!("  {url}"),
            "rein connects it once you are signed in.".into(),
        ];
    }
    if let Some(name) = args.strip_prefix("reconnect").map(str::trim) {
        if name.is_empty() {
            return vec!["Usage: /mcp reconnect NAME".into()];
        }
        return vec![match servers.reconnect(name).await {
            Ok(()) => format!("Reconnected {name}"),
            Err(e) => e,
        }];
    }
    let statuses = servers.statuses();
    if statuses.is_empty() {
        return vec!["No MCP servers are configured (.mcp.json, ~/.claude.json, --mcp-config)".into()];
    }
    let tools = session.engine().available_tool_names();
    let mut out = Vec::new();
    for s in statuses {
        let prefix = format!("mcp__{}__", s.name);
        let mine: Vec<&str> = tools.iter().filter_map(|t| t.strip_prefix(&prefix)).collect();
        let mark = match s.status {
            "connected" => "✔",
            "pending" => "…",
            "disabled" => "○",
            "needs-auth" => "⚠",
            _ => "✘",
        };
        out.push(format!("{mark} {} · {} · {} · {} tools", s.name, s.status, s.source.name(), mine.len()));
        if let Some(error) = &s.error {
            out.push(format!("    {error}"));
        }
        if !mine.is_empty() {
            out.push(format!("    {}", mine.join(", ")));
        }
    }
    out.push("/mcp reconnect NAME starts a server again · /mcp authenticate NAME signs in to one that needs it".into());
    out
}
