//! Workspace trust, as Claude Code keeps it: before an interactive session uses anything
//! a folder supplies (its hooks, status line, `apiKeyHelper`, `env`, `.mcp.json`
//! servers, allow rules, the shell lines of its commands and skills), the person says
//! whether they trust it. The answer lives where Claude Code keeps it —
//! `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`),
//! `projects["<dir>"].hasTrustDialogAccepted` — so a folder trusted in one tool is
//! trusted in the other; a trusted folder's subfolders are trusted too. Headless and
//! Agent SDK runs are not asked (as `claude -p` is not).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The trust record could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot record the trust of {dir} in {file}: {reason}")]
pub struct TrustError {
    pub dir: PathBuf,
    pub file: PathBuf,
    pub reason: String,
}

/// Whether `dir`, or a folder above it, is trusted in `claude_json`. The home folder
/// (`home`) and `/` are never trusted on behalf of the folders below them: trusting
/// `~` once must not trust every repository cloned under it.
pub fn is_trusted(claude_json: &Path, dir: &Path, home: Option<&Path>) -> bool {
    let Ok(text) = std::fs::read_to_string(claude_json) else { return false };
    let Ok(config) = serde_json::from_str::<Value>(&text) else { return false };
    let projects = &config["projects"];
    dir.ancestors()
        .filter(|d| *d == dir || (Some(*d) != home && d.parent().is_some()))
        .any(|d| projects[d.to_string_lossy().as_ref()]["hasTrustDialogAccepted"] == json!(true))
}

/// Whether trusting `dir` is written down: not for the home folder, which (as in
/// Claude Code) is trusted for the session only and asked again next time.
pub fn is_recorded(dir: &Path, home: Option<&Path>) -> bool {
    Some(dir) != home && dir.parent().is_some()
}

/// Record that `dir` is trusted, keeping everything else in the file.
pub fn record_trust(claude_json: &Path, dir: &Path) -> Result<(), TrustError> {
    let err = |reason: String| TrustError { dir: dir.to_path_buf(), file: claude_json.to_path_buf(), reason };
    let mut config = match std::fs::read_to_string(claude_json) {
        Ok(text) => serde_json::from_str::<Value>(&text).map_err(|e| err(format!("it is not JSON ({e})")))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(err(e.to_string())),
    };
    let Some(root) = config.as_object_mut() else { return Err(err("it is not a JSON object".into())) };
    let projects = root.entry("projects").or_insert_with(|| json!({}));
    let Some(projects) = projects.as_object_mut() else { return Err(err("`projects` is not an object".into())) };
    let entry = projects.entry(dir.to_string_lossy().into_owned()).or_insert_with(|| json!({}));
    let Some(entry) = entry.as_object_mut() else { return Err(err("the folder's entry is not an object".into())) };
    entry.insert("hasTrustDialogAccepted".into(), json!(true));
    let text = serde_json::to_string_pretty(&config).map_err(|e| err(e.to_string()))?;
    rein_settings::write_file(claude_json, &text).map_err(|e| err(e.to_string()))
}

/// What `dir` configures that takes effect once it is trusted, one line each
/// (`hooks: PreToolUse, SessionStart (.claude/settings.json)`), for the question.
/// The folder and those above it up to its repository's root are read.
/// The subagents, commands and skills of every folder above are read too (they are
/// loaded from there), except the home folder's own `.claude` (the user's).
pub fn what_it_configures(dir: &Path, home: Option<&Path>) -> Vec<String> {
    let root = rein_prompt::find_git_root(dir).unwrap_or_else(|| dir.to_path_buf());
    let mut out = Vec::new();
    for d in dir.ancestors() {
        if d.starts_with(&root) {
            out.extend(configured_in(d, dir));
        }
        if Some(d) != home {
            out.extend(definitions_in(d, dir));
        }
    }
    out
}

/// What the Markdown definitions under `dir/.claude` would do: shell lines, granted
/// tools, subagents' own modes and hooks.
fn definitions_in(dir: &Path, from: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let claude = dir.join(".claude");
    let (shell, grants) = scan(&[claude.join("commands"), claude.join("skills")], &["allowed-tools:"]);
    let place = pathdiff(&claude, from);
    if shell > 0 {
        out.push(format!("{shell} command(s) or skill(s) that run shell lines ({place})"));
    }
    if grants > 0 {
        out.push(format!("{grants} command(s) or skill(s) that allow tools for their turn ({place})"));
    }
    let (_, agents) = scan(&[claude.join("agents")], &["permissionMode:", "hooks:", "mcpServers:"]);
    if agents > 0 {
        out.push(format!("{agents} subagent(s) with their own permission mode, hooks or MCP servers ({place})"));
    }
    out
}

/// What `dir` itself configures; paths are shown relative to `from`.
fn configured_in(dir: &Path, from: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let shown = |name: &str| {
        let path = dir.join(name);
        pathdiff(&path, from)
    };
    for name in [".claude/settings.json", ".claude/settings.local.json"] {
        let Ok(text) = std::fs::read_to_string(dir.join(name)) else { continue };
        let name = shown(name);
        let name = name.as_str();
        let Ok(settings) = serde_json::from_str::<Value>(&text) else {
            out.push(format!("settings that do not parse ({name})"));
            continue;
        };
        if let Some(hooks) = settings["hooks"].as_object().filter(|h| !h.is_empty()) {
            let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
            out.push(format!("hooks: {} ({name})", events.join(", ")));
        }
        if let Some(cmd) = settings["statusLine"]["command"].as_str() {
            out.push(format!("a status line command: {cmd} ({name})"));
        }
        if let Some(helper) = settings["apiKeyHelper"].as_str() {
            out.push(format!("an apiKeyHelper: {helper} ({name})"));
        }
        // The schema's other keys that name a program a session runs.
        let others: Vec<&str> = rein_settings::schema::RUNS_PROGRAMS
            .iter()
            .copied()
            .filter(|k| !matches!(*k, "hooks" | "statusLine" | "apiKeyHelper") && !settings[*k].is_null())
            .collect();
        if !others.is_empty() {
            out.push(format!("programs it runs: {} ({name})", others.join(", ")));
        }
        if let Some(env) = settings["env"].as_object().filter(|e| !e.is_empty()) {
            let keys: Vec<&str> = env.keys().map(String::as_str).collect();
            out.push(format!("environment variables: {} ({name})", keys.join(", ")));
        }
        if let Some(allow) = settings["permissions"]["allow"].as_array().filter(|a| !a.is_empty()) {
            out.push(format!("{} allow rule(s) ({name})", allow.len()));
        }
        if let Some(mode) = settings["permissions"]["defaultMode"].as_str().filter(|m| *m != "default") {
            out.push(format!("the permission mode {mode} ({name})"));
        }
        if let Some(dirs) = settings["permissions"]["additionalDirectories"].as_array().filter(|d| !d.is_empty()) {
            let dirs: Vec<&str> = dirs.iter().filter_map(Value::as_str).collect();
            out.push(format!("more directories the tools may reach: {} ({name})", dirs.join(", ")));
        }
        if settings["sandbox"].is_object() {
            out.push(format!("sandbox settings ({name})"));
        }
        if let Some(plugins) = settings["enabledPlugins"].as_object().filter(|p| !p.is_empty()) {
            let names: Vec<&str> = plugins.keys().map(String::as_str).collect();
            out.push(format!("plugins: {} ({name})", names.join(", ")));
        }
    }
    if let Ok(text) = std::fs::read_to_string(dir.join(".mcp.json"))
        && let Ok(mcp) = serde_json::from_str::<Value>(&text)
        && let Some(servers) = mcp["mcpServers"].as_object().filter(|s| !s.is_empty())
    {
        let names: Vec<&str> = servers.keys().map(String::as_str).collect();
        out.push(format!("MCP servers: {} ({})", names.join(", "), shown(".mcp.json")));
    }
    out
}

/// `path` as seen from `from` (below it: relative; above it: as is).
fn pathdiff(path: &Path, from: &Path) -> String {
    path.strip_prefix(from).map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

/// Of the Markdown files below `dirs`: how many hold a `` !`cmd` `` line, and how many
/// have a line starting with one of `keys`.
fn scan(dirs: &[std::path::PathBuf], keys: &[&str]) -> (usize, usize) {
    let (mut shell, mut keyed) = (0, 0);
    let mut stack = dirs.to_vec();
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md")
                && let Ok(text) = std::fs::read_to_string(&p)
            {
                shell += usize::from(text.contains("!`") || text.contains("```!"));
                keyed += usize::from(text.lines().any(|l| keys.iter().any(|k| l.starts_with(k))));
            }
        }
    }
    (shell, keyed)
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
