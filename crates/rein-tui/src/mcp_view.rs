//! `/mcp`: each MCP server with where it is configured, its state (and why it failed)
//! and its tools; `/mcp reconnect NAME` starts a server again.

use rein_session::Session;

pub async fn run(session: &mut Session, args: &str) -> Vec<String> {
    let Some(servers) = session.mcp().cloned() else {
        return vec!["No MCP servers are configured (.mcp.json, ~/.claude.json, --mcp-config)".into()];
    };
    let args = args.trim();
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
    out.push("/mcp reconnect NAME starts a server again".into());
    out
}
