//! `rein mcp list | get | add | add-json | remove`: the same commands and files as
//! `claude mcp`.

use std::io::Read as _;
use std::time::Duration;

use anyhow::{Context, bail};
use rein_mcp::store::{Scope, Store};
use rein_mcp::{SessionFacts, config::Transport};
use serde_json::{Map, Value, json};

use crate::args::{Args, McpAction};

fn store(args: &Args) -> anyhow::Result<(Store, rein_mcp::Locations)> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let env = crate::env::Env::read();
    let claude_json = crate::mcp::claude_json(&env).context("HOME is not set")?;
    let loc = rein_mcp::Locations {
        project: cwd.clone(),
        claude_json: Some(claude_json.clone()),
        cli: args.mcp_config.clone(),
        strict: args.strict_mcp_config,
        disabled_project: Vec::new(),
    };
    Ok((Store { project: cwd, claude_json }, loc))
}

/// Why a server is not started to check it: a project's server in a folder nobody
/// trusted, or one nobody approved, or one the managed policy forbids.
fn held_back(
    args: &Args,
    cwd: &std::path::Path,
    claude_json: &std::path::Path,
) -> anyhow::Result<impl Fn(&rein_mcp::ServerConfig) -> Option<String>> {
    let home = crate::env::Env::read().home;
    let (_, kinds) = crate::session::builtin_tools()?;
    let (settings, _) = rein_session::rules::load(&args.options(), cwd, home.as_deref(), kinds)?;
    let policy = rein_mcp::policy::ServerPolicy::from_settings(&settings, true);
    let trusted = rein_session::trust::is_trusted(claude_json, cwd, home.as_deref());
    Ok(move |s: &rein_mcp::ServerConfig| {
        let project = s.source == rein_mcp::config::Source::Project;
        if project && !trusted {
            return Some("not started: this folder is not trusted yet (run rein here to answer)".to_string());
        }
        match policy.hold(s) {
            Some(rein_mcp::policy::Held::NeedsApproval) => {
                Some("not started: nobody approved this project server yet (run rein here to answer)".into())
            }
            Some(rein_mcp::policy::Held::Blocked) => Some("not started: the managed MCP policy forbids it".into()),
            None => None,
        }
    })
}

fn scope(s: &str) -> anyhow::Result<Scope> {
    Scope::parse(s).with_context(|| format!("Invalid scope: {s}. Must be one of: local, user, project"))
}

fn describe(t: &Transport) -> String {
    match t {
        Transport::Stdio { command, args, .. } => {
            std::iter::once(command.as_str()).chain(args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
        }
        Transport::Http { url, .. } => format!("{url} (HTTP)"),
        Transport::Sse { url, .. } => format!("{url} (SSE)"),
        Transport::Sdk => "in the Agent SDK host (sdk)".to_string(),
    }
}

/// The configured server `name`.
fn configured(loc: &rein_mcp::Locations, name: &str) -> anyhow::Result<rein_mcp::ServerConfig> {
    let loaded = rein_mcp::config::load(loc, &rein_session::env::Env::raw)?;
    loaded
        .servers
        .into_iter()
        .find(|s| s.name == name)
        .with_context(|| format!("No MCP server found with name: {name}"))
}

pub(crate) fn run(args: &Args, action: &McpAction) -> anyhow::Result<()> {
    let (store, loc) = store(args)?;
    match action {
        McpAction::Add { name, scope: s, transport, env, header, target } => {
            let Some((first, rest)) = target.split_first() else {
                bail!("missing the command or URL of server {name}")
            };
            let entry = match transport.as_str() {
                "stdio" => {
                    let mut vars = Map::new();
                    for e in env {
                        let (k, v) = e.split_once('=').with_context(|| format!("-e {e}: use KEY=value"))?;
                        vars.insert(k.to_string(), Value::from(v));
                    }
                    json!({"type": "stdio", "command": first, "args": rest, "env": vars})
                }
                "http" | "sse" => {
                    let mut headers = Map::new();
                    for h in header {
                        let (k, v) = h.split_once(':').with_context(|| format!("-H {h}: use 'Name: value'"))?;
                        headers.insert(k.trim().to_string(), Value::from(v.trim()));
                    }
                    let mut e = json!({"type": transport, "url": first});
                    if !headers.is_empty() {
                        e["headers"] = Value::Object(headers);
                    }
                    e
                }
                other => bail!("Invalid transport type: {other}. Must be one of: stdio, sse, http"),
            };
            let scope = scope(s)?;
            let path = store.add(name, entry, scope)?;
            let what = if transport == "stdio" {
                format!("stdio MCP server {name} with command: {}", target.join(" "))
            } else {
                format!("{} MCP server {name} with URL: {first}", transport.to_uppercase())
            };
            println!("Added {what} to {} config", scope.name());
            println!("File modified: {}", path.display());
        }
        McpAction::AddJson { name, json, scope: s } => {
            let text = if json == "-" {
                let mut t = String::new();
                std::io::stdin().read_to_string(&mut t)?;
                t
            } else {
                json.clone()
            };
            let entry: Value = serde_json::from_str(&text).context("the server entry is not valid JSON")?;
            let scope = scope(s)?;
            let path = store.add(name, entry, scope)?;
            println!("Added MCP server {name} to {} config", scope.name());
            println!("File modified: {}", path.display());
        }
        McpAction::Remove { name, scope: s } => {
            let (scope, path) = store.remove(name, s.as_deref().map(scope).transpose()?)?;
            println!("Removed MCP server {name} from {} config", scope.name());
            println!("File modified: {}", path.display());
        }
        McpAction::Login { name, no_browser } => {
            let server = configured(&loc, name)?;
            // Only a server a session would start is signed in to (an unapproved project
            // entry could send the sign-in elsewhere).
            if let Some(why) = held_back(args, &store.project, &store.claude_json)?(&server) {
                bail!("{name} is {why}");
            }
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            rt.block_on(async {
                let pending = rein_mcp::oauth::begin_login(&server).await?;
                println!("To sign in to {name}, open this URL in a browser:\n\n  {}\n", pending.url);
                if !no_browser && !rein_mcp::oauth::open_browser(&pending.url) {
                    println!("(No browser could be opened: set $BROWSER, or open the URL yourself.)");
                }
                println!("Waiting for the sign-in to finish…");
                pending.finish().await
            })?;
            let file = rein_mcp::oauth_store::credentials_file().map(|f| f.display().to_string()).unwrap_or_default();
            println!("Signed in to {name}. Its tokens are kept in {file}.");
        }
        McpAction::Logout { name } => {
            let server = configured(&loc, name)?;
            if rein_mcp::oauth::logout(&server)? {
                println!("Signed out of {name}: its tokens are forgotten.");
            } else {
                println!("{name} had no stored tokens.");
            }
        }
        McpAction::Serve => bail!("`rein mcp serve` runs from main"),
        McpAction::List | McpAction::Get { .. } => {
            let loaded = rein_mcp::config::load(&loc, &rein_session::env::Env::raw)?;
            let wanted = match action {
                McpAction::Get { name } => Some(name.as_str()),
                _ => None,
            };
            let servers: Vec<_> = loaded.servers.into_iter().filter(|s| wanted.is_none_or(|w| s.name == w)).collect();
            if let Some(w) = wanted
                && servers.is_empty()
            {
                bail!("No MCP server found with name: {w}");
            }
            if servers.is_empty() {
                println!("No MCP servers configured. Use `rein mcp add` to add a server.");
                return Ok(());
            }
            println!("Checking MCP server health…\n");
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            let cwd = store.project.clone();
            let facts = SessionFacts { cwd: &cwd, session_id: "mcp-list", tunnel: None, elicitor: None };
            let held = held_back(args, &cwd, &store.claude_json)?;
            let health: Vec<Result<(), Unchecked>> = rt.block_on(async {
                let mut out = Vec::new();
                for s in &servers {
                    // A server is started to check it only where a session would start it.
                    match held(s) {
                        Some(why) => out.push(Err(Unchecked::Held(why))),
                        None => {
                            let connected = rein_mcp::client::connect(s, &facts, Duration::from_secs(10)).await;
                            out.push(connected.map(|_| ()).map_err(Unchecked::Failed));
                        }
                    }
                }
                out
            });
            for (s, h) in servers.iter().zip(health) {
                let status = match h {
                    Ok(()) => "✔ Connected".to_string(),
                    Err(Unchecked::Failed(e)) if e.needs_auth() => {
                        format!("⚠ Needs authentication — run `rein mcp login {}`", s.name)
                    }
                    Err(Unchecked::Held(why)) => format!("⏸ {why}"),
                    Err(Unchecked::Failed(e)) => format!("✘ Failed to connect — {e}"),
                };
                if wanted.is_some() {
                    println!(
                        "{}:\n  Scope: {}\n  Status: {status}\n  Target: {}\n",
                        s.name,
                        s.source.name(),
                        describe(&s.transport)
                    );
                    println!("To remove this server, run: rein mcp remove {} -s {}", s.name, s.source.name());
                } else {
                    println!("{}: {} - {status}", s.name, describe(&s.transport));
                }
            }
        }
    }
    Ok(())
}

/// A server `rein mcp list` did not find connected: held back before starting (why), or
/// failed to connect.
enum Unchecked {
    Held(String),
    Failed(rein_mcp::ServerError),
}
