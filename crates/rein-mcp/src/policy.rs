//! Which configured servers may start. Managed `deniedMcpServers` always wins;
//! `allowedMcpServers` (when set; `[]` allows none) must name a server — by
//! `serverName`, or by `serverCommand` (exact command and arguments) / `serverUrl` (`*`
//! wildcards) once any entry of that kind exists. Servers from the project's `.mcp.json`
//! start in an interactive session only when approved (`enabledMcpjsonServers`,
//! `enableAllProjectMcpServers`) by settings the repository does not control; headless
//! runs start them, as `claude -p` does. `disabledMcpjsonServers` always wins.

use serde_json::Value;

use crate::config::{ServerConfig, Source, Transport};

/// The lists, gathered from the settings.
#[derive(Debug, Clone, Default)]
pub struct ServerPolicy {
    pub allowed: Option<Vec<Value>>,
    pub denied: Vec<Value>,
    /// `enabledMcpjsonServers` from settings the user controls.
    pub approved: Vec<String>,
    pub approve_all: bool,
    /// An interactive session: project servers need approval.
    pub interactive: bool,
}

impl ServerPolicy {
    /// Which servers may start: managed `allowedMcpServers`/`deniedMcpServers` (merged from
    /// every scope; `allowManagedMcpServersOnly` keeps only the managed allow list), and the
    /// project approvals from settings the repository does not control (not
    /// `.claude/settings.json`).
    pub fn from_settings(settings: &rein_settings::Settings, interactive: bool) -> ServerPolicy {
        use rein_settings::Scope;
        let managed_only = settings.files.iter().any(|f| {
            f.scope == Scope::Managed && f.get("/allowManagedMcpServersOnly") == Some(&serde_json::Value::Bool(true))
        });
        let mut allowed: Option<Vec<serde_json::Value>> = None;
        let mut denied = Vec::new();
        let mut approved = Vec::new();
        let mut approve_all = false;
        for f in &settings.files {
            if let Some(list) = f.get("/allowedMcpServers").and_then(|v| v.as_array())
                && (!managed_only || f.scope == Scope::Managed)
            {
                allowed.get_or_insert_with(Vec::new).extend(list.iter().cloned());
            }
            if let Some(list) = f.get("/deniedMcpServers").and_then(|v| v.as_array()) {
                denied.extend(list.iter().cloned());
            }
            if f.scope != Scope::Project {
                if let Some(list) = f.get("/enabledMcpjsonServers").and_then(|v| v.as_array()) {
                    approved.extend(list.iter().filter_map(|v| v.as_str().map(str::to_string)));
                }
                approve_all |= f.get("/enableAllProjectMcpServers") == Some(&serde_json::Value::Bool(true));
            }
        }
        ServerPolicy { allowed, denied, approved, approve_all, interactive }
    }
}

/// Why a server does not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// Managed policy forbids it.
    Blocked,
    /// A project server nobody approved yet.
    NeedsApproval,
}

/// Whether `entry` (one of the policy's objects) names `server`, given which kinds of
/// entries the list has.
fn names(entry: &Value, server: &ServerConfig, commands: bool, urls: bool) -> bool {
    match &server.transport {
        Transport::Stdio { command, args, .. } if commands => entry["serverCommand"].as_array().is_some_and(|want| {
            let have: Vec<&str> = std::iter::once(command.as_str()).chain(args.iter().map(String::as_str)).collect();
            want.iter().map(|v| v.as_str().unwrap_or("")).eq(have.iter().copied())
        }),
        Transport::Http { url, .. } | Transport::Sse { url, .. } if urls => {
            entry["serverUrl"].as_str().is_some_and(|p| {
                rein_effects::wildcard_match(p, url)
                    || rein_effects::wildcard_match(&format!("{p}*"), url) && !p.contains('/')
            })
        }
        _ => entry["serverName"].as_str() == Some(server.name.as_str()),
    }
}

fn listed(list: &[Value], server: &ServerConfig) -> bool {
    let commands = list.iter().any(|e| e.get("serverCommand").is_some());
    let urls = list.iter().any(|e| e.get("serverUrl").is_some());
    list.iter().any(|e| names(e, server, commands, urls) || e["serverName"].as_str() == Some(server.name.as_str()))
}

impl ServerPolicy {
    /// `None` when `server` may start.
    pub fn hold(&self, server: &ServerConfig) -> Option<Held> {
        if listed(&self.denied, server) {
            return Some(Held::Blocked);
        }
        if let Some(allowed) = &self.allowed
            && !listed(allowed, server)
        {
            return Some(Held::Blocked);
        }
        if self.interactive
            && server.source == Source::Project
            && !self.approve_all
            && !self.approved.contains(&server.name)
        {
            return Some(Held::NeedsApproval);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stdio(name: &str, source: Source) -> ServerConfig {
        ServerConfig {
            name: name.into(),
            transport: Transport::Stdio {
                command: "npx".into(),
                args: vec!["-y".into(), "pkg".into()],
                env: Default::default(),
            },
            timeout_ms: None,
            headers_helper: None,
            oauth: None,
            source,
            origin: String::new(),
        }
    }

    #[test]
    fn deny_wins_allow_lists_restrict_and_project_servers_wait_for_approval() {
        let s = stdio("a", Source::User);
        let p = ServerPolicy { denied: vec![json!({"serverName": "a"})], ..Default::default() };
        assert_eq!(p.hold(&s), Some(Held::Blocked));
        let p = ServerPolicy { allowed: Some(vec![]), ..Default::default() };
        assert_eq!(p.hold(&s), Some(Held::Blocked), "[] allows none");
        let p =
            ServerPolicy { allowed: Some(vec![json!({"serverCommand": ["npx", "-y", "pkg"]})]), ..Default::default() };
        assert_eq!(p.hold(&s), None);
        let p = ServerPolicy { allowed: Some(vec![json!({"serverCommand": ["npx", "other"]})]), ..Default::default() };
        assert_eq!(p.hold(&s), Some(Held::Blocked));
        let web = ServerConfig {
            transport: Transport::Http { url: "https://mcp.example.com/x".into(), headers: Default::default() },
            ..stdio("w", Source::User)
        };
        let p =
            ServerPolicy { allowed: Some(vec![json!({"serverUrl": "https://*.example.com/*"})]), ..Default::default() };
        assert_eq!(p.hold(&web), None);
        let project = stdio("p", Source::Project);
        let interactive = ServerPolicy { interactive: true, ..Default::default() };
        assert_eq!(interactive.hold(&project), Some(Held::NeedsApproval));
        assert_eq!(ServerPolicy { approved: vec!["p".into()], ..interactive.clone() }.hold(&project), None);
        assert_eq!(ServerPolicy { approve_all: true, ..interactive }.hold(&project), None);
        assert_eq!(ServerPolicy::default().hold(&project), None, "headless starts them");
    }
}
