//! Claude Code's MCP configuration, read unchanged: `.mcp.json` (project),
//! `~/.claude.json` top-level `mcpServers` (user) and `projects["<abs path>"].mcpServers`
//! (local), `--mcp-config FILE|JSON` (the `{"mcpServers": …}` wrapper required),
//! `--strict-mcp-config`. The same name in several places: the whole entry from local >
//! project > user wins (command-line entries above all). `${VAR}` and `${VAR:-default}`
//! expand in command, args, env, url and headers. A bad entry is reported with its file
//! and name and skipped; it never stops the session.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where an entry comes from (`source` in the init event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Dynamic,
    Local,
    Project,
    User,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Dynamic => "dynamic",
            Source::Local => "local",
            Source::Project => "project",
            Source::User => "user",
        }
    }
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
    Sse {
        url: String,
        headers: BTreeMap<String, String>,
    },
    /// A server inside the Agent SDK host that runs rein, reached through it.
    Sdk,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    /// Per-server tool-call timeout, ms.
    pub timeout_ms: Option<u64>,
    /// `headersHelper`: a command whose output (a JSON object) adds headers.
    pub headers_helper: Option<String>,
    /// `oauth`: a pre-registered client, its callback port, where the authorization
    /// server's metadata is, the scopes to ask for.
    pub oauth: Option<OAuthConfig>,
    pub source: Source,
    /// The file (or flag) it came from.
    pub origin: String,
}

/// An HTTP server entry's `oauth` object, as Claude Code reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthConfig {
    pub client_id: Option<String>,
    pub callback_port: Option<u16>,
    pub auth_server_metadata_url: Option<String>,
    /// Space-separated.
    pub scopes: Option<String>,
}

impl OAuthConfig {
    fn of(entry: &Value) -> Option<OAuthConfig> {
        let o = entry.get("oauth")?.as_object()?;
        let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
        Some(OAuthConfig {
            client_id: text("clientId"),
            callback_port: o.get("callbackPort").and_then(Value::as_u64).and_then(|p| u16::try_from(p).ok()),
            auth_server_metadata_url: text("authServerMetadataUrl"),
            scopes: text("scopes"),
        })
    }
}

/// An entry that was skipped, as the init event's `mcp_server_errors` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigProblem {
    pub name: String,
    /// The file (or flag) the entry is in.
    pub file: String,
    /// `url_missing_type`, `unknown_type`, `invalid_config`.
    pub kind: &'static str,
    pub message: String,
}

/// Why the configuration as a whole cannot be used (this stops rein, as Claude Code
/// exits on it).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("Invalid MCP configuration in {origin}: {reason}")]
    Invalid { origin: String, reason: String },
    #[error("{path}: cannot read: {reason}")]
    Io { path: String, reason: String },
}

/// Where to look, and the flags.
#[derive(Debug, Clone, Default)]
pub struct Locations {
    /// The project root (`.mcp.json` is read there) and the key of `projects` in
    /// `~/.claude.json`.
    pub project: PathBuf,
    /// `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`).
    pub claude_json: Option<PathBuf>,
    /// `--mcp-config` values: file paths or JSON text.
    pub cli: Vec<String>,
    pub strict: bool,
    /// Names `.mcp.json` servers may not use (`disabledMcpjsonServers`).
    pub disabled_project: Vec<String>,
}

/// Every server to start, and the entries skipped.
#[derive(Debug, Default)]
pub struct Loaded {
    pub servers: Vec<ServerConfig>,
    pub problems: Vec<ConfigProblem>,
}

/// Read every source. `env` looks variables up (the process environment).
pub fn load(loc: &Locations, env: &dyn Fn(&str) -> Option<String>) -> Result<Loaded, ConfigError> {
    let mut by_name: BTreeMap<String, ServerConfig> = BTreeMap::new();
    let mut problems = Vec::new();
    let mut add =
        |map: &serde_json::Map<String, Value>, source: Source, origin: &str, problems: &mut Vec<ConfigProblem>| {
            for (name, entry) in map {
                // A project's entries may not name rein's own credentials in `${VAR}`.
                let vars = without_credentials(env);
                let env: &dyn Fn(&str) -> Option<String> = if source == Source::Project { &vars } else { env };
                match server_entry(name, entry, source, origin, env) {
                    Ok(server) => {
                        if by_name.get(name).is_none_or(|old| source < old.source) {
                            by_name.insert(name.clone(), server);
                        }
                    }
                    Err(p) => problems.push(p),
                }
            }
        };
    for value in &loc.cli {
        let (origin, json) = if value.trim_start().starts_with('{') {
            ("--mcp-config".to_string(), value.clone())
        } else {
            let text = std::fs::read_to_string(value)
                .map_err(|e| ConfigError::Io { path: value.clone(), reason: e.to_string() })?;
            (value.clone(), text)
        };
        let parsed: Value = serde_json::from_str(&json)
            .map_err(|e| ConfigError::Invalid { origin: origin.clone(), reason: e.to_string() })?;
        let Some(map) = parsed.get("mcpServers").and_then(Value::as_object) else {
            return Err(ConfigError::Invalid {
                origin,
                reason: "mcpServers: Invalid input: expected record, received undefined".into(),
            });
        };
        add(map, Source::Dynamic, &origin, &mut problems);
    }
    if !loc.strict {
        let mcp_json = loc.project.join(".mcp.json");
        if let Some(v) = read_json(&mcp_json)?
            && let Some(map) = v.get("mcpServers").and_then(Value::as_object)
        {
            let allowed: serde_json::Map<String, Value> = map
                .iter()
                .filter(|(k, _)| !loc.disabled_project.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            add(&allowed, Source::Project, &mcp_json.display().to_string(), &mut problems);
        }
        if let Some(path) = &loc.claude_json
            && let Some(v) = read_json(path)?
        {
            let origin = path.display().to_string();
            let key = loc.project.display().to_string();
            if let Some(map) =
                v.pointer(&format!("/projects/{}/mcpServers", pointer_escape(&key))).and_then(Value::as_object)
            {
                add(map, Source::Local, &origin, &mut problems);
            }
            if let Some(map) = v.get("mcpServers").and_then(Value::as_object) {
                add(map, Source::User, &origin, &mut problems);
            }
        }
    }
    Ok(Loaded { servers: by_name.into_values().collect(), problems })
}

/// `env` without rein's own credentials (`ANTHROPIC_API_KEY`, …): for entries a project,
/// a plugin or a subagent definition supplies, whose `${VAR}` must not pass them to a
/// server (they stay as written).
pub fn without_credentials<'a>(env: &'a dyn Fn(&str) -> Option<String>) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| if rein_process::CREDENTIAL_VARS.contains(&name) { None } else { env(name) }
}

/// One entry (`name: {command, args, env}` / `{type, url, headers}`) as a server of
/// `source` defined in `origin`; `${VAR}` expanded through `env`.
pub fn server_entry(
    name: &str,
    entry: &Value,
    source: Source,
    origin: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerConfig, ConfigProblem> {
    let transport = entry_of(name, entry, env).map_err(|p| ConfigProblem { file: origin.to_string(), ..p })?;
    Ok(ServerConfig {
        name: name.to_string(),
        transport,
        timeout_ms: entry.get("timeout").and_then(Value::as_u64).filter(|t| *t >= 1000),
        headers_helper: entry.get("headersHelper").and_then(Value::as_str).map(|h| expand(h, env)),
        oauth: OAuthConfig::of(entry),
        source,
        origin: origin.to_string(),
    })
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn read_json(path: &Path) -> Result<Option<Value>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| ConfigError::Invalid {
            origin: format!("{}:{}:{}", path.display(), e.line(), e.column()),
            reason: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ConfigError::Io { path: path.display().to_string(), reason: e.to_string() }),
    }
}

fn entry_of(name: &str, entry: &Value, env: &dyn Fn(&str) -> Option<String>) -> Result<Transport, ConfigProblem> {
    let problem = |kind: &'static str, message: String| ConfigProblem {
        name: name.to_string(),
        file: String::new(),
        kind,
        message,
    };
    let Some(obj) = entry.as_object() else {
        return Err(problem("invalid_config", format!("Skipped — MCP server \"{name}\" is not an object")));
    };
    let text = |k: &str| obj.get(k).and_then(Value::as_str).map(|s| expand(s, env));
    let map = |k: &str| -> BTreeMap<String, String> {
        obj.get(k)
            .and_then(Value::as_object)
            .map(|m| m.iter().filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), expand(v, env)))).collect())
            .unwrap_or_default()
    };
    let kind = obj.get("type").and_then(Value::as_str);
    match kind {
        None if obj.contains_key("url") && !obj.contains_key("command") => Err(problem(
            "url_missing_type",
            format!(
                "Skipped — MCP server \"{name}\" has a \"url\" but no \"type\"; add \"type\": \"http\" (or \"sse\" / \"ws\") to this entry"
            ),
        )),
        None | Some("stdio") => {
            let command = text("command").filter(|c| !c.trim().is_empty()).ok_or_else(|| {
                problem("invalid_config", format!("Skipped — MCP server \"{name}\" has no \"command\""))
            })?;
            let args = obj
                .get("args")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(|s| expand(s, env)).collect())
                .unwrap_or_default();
            Ok(Transport::Stdio { command, args, env: map("env") })
        }
        Some("http" | "streamable-http" | "sse") => {
            let url = text("url")
                .filter(|u| !u.trim().is_empty())
                .ok_or_else(|| problem("invalid_config", format!("Skipped — MCP server \"{name}\" has no \"url\"")))?;
            let headers = map("headers");
            Ok(if kind == Some("sse") { Transport::Sse { url, headers } } else { Transport::Http { url, headers } })
        }
        Some("sdk") => Ok(Transport::Sdk),
        Some(other) => {
            Err(problem("unknown_type", format!("Skipped — unknown MCP server type \"{other}\" for server \"{name}\"")))
        }
    }
}

/// `${VAR}` and `${VAR:-default}`; an unset `${VAR}` stays as written; `$VAR` is left.
pub fn expand(text: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        let valid = !var.is_empty() && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        match (valid, env(var).filter(|v| !v.is_empty()), default) {
            (true, Some(v), _) => out.push_str(&v),
            (true, None, Some(d)) => out.push_str(d),
            _ => out.push_str(&rest[start..start + 3 + end]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(k: &str) -> Option<String> {
        match k {
            "TOKEN" => Some("tok123".into()),
            "HOME" => Some("/home/u".into()),
            _ => None,
        }
    }

    #[test]
    fn variables_expand_in_both_forms_and_unknown_ones_stay() {
        assert_eq!(expand("Bearer ${TOKEN}", &env), "Bearer tok123");
        assert_eq!(expand("${NOPE:-dflt}/x", &env), "dflt/x");
        assert_eq!(expand("${NOPE}", &env), "${NOPE}");
        assert_eq!(expand("$HOME and ${HOME}", &env), "$HOME and /home/u");
        assert_eq!(expand("${unclosed", &env), "${unclosed");
    }

    #[test]
    fn a_projects_entries_never_expand_reins_credentials() {
        let d = tempfile::tempdir().unwrap();
        let entry = r#"{"command": "srv", "args": ["${ANTHROPIC_API_KEY}"], "env": {"K": "${ANTHROPIC_API_KEY}"}}"#;
        std::fs::write(d.path().join(".mcp.json"), format!(r#"{{"mcpServers": {{"p": {entry}}}}}"#)).unwrap();
        let with_key = |k: &str| (k == "ANTHROPIC_API_KEY").then(|| "sk-secret".to_string());
        let loc = Locations { project: d.path().into(), ..Locations::default() };
        let loaded = load(&loc, &with_key).unwrap();
        let Transport::Stdio { args, env, .. } = &loaded.servers[0].transport else { panic!("stdio") };
        assert_eq!((args[0].as_str(), env["K"].as_str()), ("${ANTHROPIC_API_KEY}", "${ANTHROPIC_API_KEY}"));
        let cli = Locations { cli: vec![format!(r#"{{"mcpServers": {{"mine": {entry}}}}}"#)], ..Locations::default() };
        let Transport::Stdio { args, .. } = &load(&cli, &with_key).unwrap().servers[0].transport else { panic!() };
        assert_eq!(args[0], "sk-secret", "the person's own --mcp-config may name them");
    }

    #[test]
    fn precedence_and_problems() {
        let d = tempfile::tempdir().unwrap();
        let project = d.path().join("proj");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            project.join(".mcp.json"),
            r#"{"mcpServers": {"shared": {"command": "from-project"}, "off": {"command": "x"},
                "badurl": {"url": "http://x"}, "pigeon": {"type": "carrier-pigeon"}}}"#,
        )
        .unwrap();
        let claude = d.path().join(".claude.json");
        let local = format!(
            r#"{{"mcpServers": {{"shared": {{"command": "from-user"}}, "u": {{"type": "http", "url": "${{NOPE:-http://h}}/mcp", "headers": {{"Authorization": "Bearer ${{TOKEN}}"}}}}}},
                "projects": {{"{}": {{"mcpServers": {{"loc": {{"command": "from-local", "args": ["${{TOKEN}}"]}}}}}}}}}}"#,
            project.display()
        );
        std::fs::write(&claude, local).unwrap();
        let loc = Locations {
            project,
            claude_json: Some(claude),
            cli: vec![r#"{"mcpServers": {"cli": {"command": "c"}}}"#.into()],
            strict: false,
            disabled_project: vec!["off".into()],
        };
        let got = load(&loc, &env).unwrap();
        let names: Vec<&str> = got.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["cli", "loc", "shared", "u"]);
        let shared = got.servers.iter().find(|s| s.name == "shared").unwrap();
        assert!(matches!(&shared.transport, Transport::Stdio { command, .. } if command == "from-project"));
        let u = got.servers.iter().find(|s| s.name == "u").unwrap();
        assert_eq!(
            u.transport,
            Transport::Http {
                url: "http://h/mcp".into(),
                headers: [("Authorization".into(), "Bearer tok123".into())].into()
            }
        );
        let kinds: Vec<&str> = got.problems.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, ["url_missing_type", "unknown_type"]);
        let strict = load(&Locations { strict: true, ..loc.clone() }, &env).unwrap();
        assert_eq!(strict.servers.len(), 1);
        let bare = Locations { cli: vec![r#"{"x": {"command": "c"}}"#.into()], ..loc };
        assert!(load(&bare, &env).unwrap_err().to_string().contains("expected record"));
    }
}
