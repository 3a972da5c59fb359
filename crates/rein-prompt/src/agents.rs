//! Subagent definitions (spec §C4): Markdown files with YAML front matter in
//! `.claude/agents/` (walked up from the working directory; nearest wins) and
//! `~/.claude/agents/`, subagents given as JSON (`--agents`, the Agent SDK), and the
//! built-in types Claude Code offers (`general-purpose`, `Explore`, `Plan`). The body is
//! the subagent's system prompt. A file that is no definition (a README, no `name` or
//! `description`, front matter that does not read) is skipped with its reason, as
//! Claude Code skips it; it never stops the session.

use std::path::{Path, PathBuf};

use crate::frontmatter::{self, FrontMatter, Skipped};

pub use crate::agent_def::{AgentDef, AgentSource};

/// What was found in the agents folders: the definitions and the files skipped.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedAgents {
    pub agents: Vec<AgentDef>,
    pub skipped: Vec<Skipped>,
}

/// The `.md` files below `dir`, sorted (none when it does not exist).
pub(crate) fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            // The entry's own type (no extra stat); a symlink is followed.
            let dir = match e.file_type() {
                Ok(t) if t.is_symlink() => p.is_dir(),
                Ok(t) => t.is_dir(),
                Err(_) => false,
            };
            if dir {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// All definitions: project ones (nearest directory first), then the user's, then the
/// built-in types not redefined; a name defined twice keeps its first definition.
pub fn load_agents(cwd: &Path, home: Option<&Path>) -> LoadedAgents {
    let mut dirs: Vec<(PathBuf, AgentSource)> =
        cwd.ancestors().map(|d| (d.join(".claude/agents"), AgentSource::Project)).collect();
    if let Some(h) = home {
        dirs.push((h.join(".claude/agents"), AgentSource::User));
    }
    let mut out = LoadedAgents::default();
    let mut names = std::collections::HashSet::new();
    for (dir, source) in dirs {
        for f in markdown_files(&dir) {
            match read(&f, source) {
                Ok(def) if names.insert(def.name.clone()) => out.agents.push(def),
                Ok(_) => {}
                Err(skipped) => out.skipped.push(skipped),
            }
        }
    }
    for def in crate::builtin_agents::builtin_agents() {
        if names.insert(def.name.clone()) {
            out.agents.push(def);
        }
    }
    out
}

/// A plugin's subagents (`paths`: its agents folders or files), named `plugin:name` as
/// Claude Code names them.
pub fn load_plugin_agents(paths: &[PathBuf], plugin: &str) -> LoadedAgents {
    let mut out = LoadedAgents::default();
    for path in paths {
        let files = if path.is_file() { vec![path.clone()] } else { markdown_files(path) };
        for f in files {
            match read(&f, AgentSource::Plugin) {
                Ok(mut def) => {
                    def.name = format!("{plugin}:{}", def.name);
                    out.agents.push(def);
                }
                Err(skipped) => out.skipped.push(skipped),
            }
        }
    }
    out
}

fn read(path: &Path, source: AgentSource) -> Result<AgentDef, Skipped> {
    let skip = |line: usize, reason: String| Skipped { path: path.to_path_buf(), line, reason };
    let text = crate::frontmatter::read_definition(path).map_err(|e| skip(1, format!("cannot read it: {e}")))?;
    let fm = frontmatter::parse_head(&text).map_err(|e| skip(e.line, e.reason))?;
    if !fm.present {
        return Err(skip(1, "no front matter (a subagent starts with `---`, `name:` and `description:`)".into()));
    }
    let name = fm.text("name").ok_or_else(|| skip(2, "the front matter has no `name`".into()))?;
    if fm.text("description").is_none() {
        return Err(skip(2, format!("subagent `{name}` has no `description`")));
    }
    let prompt = crate::body::Body::of_file(path, true);
    Ok(AgentDef::from_front_matter(name, &fm, prompt, path.to_path_buf(), source))
}

impl AgentDef {
    /// A definition from its fields (front matter, or the JSON of `--agents`).
    pub fn from_front_matter(
        name: String,
        fm: &FrontMatter,
        prompt: crate::body::Body,
        path: PathBuf,
        source: AgentSource,
    ) -> Self {
        let tools = fm.list("tools").filter(|t| !t.iter().any(|x| x == "*"));
        let json = |key: &str| fm.value(key).and_then(|v| serde_json::to_value(v).ok()).filter(|v| !v.is_null());
        AgentDef {
            description: fm.text("description").unwrap_or_default(),
            tools,
            disallowed_tools: fm.list("disallowedTools").unwrap_or_default(),
            model: fm.text("model").filter(|m| m != "inherit"),
            permission_mode: fm.text("permissionMode"),
            max_turns: fm.number("maxTurns").and_then(|n| u32::try_from(n).ok()).filter(|n| *n > 0),
            skills: fm.list("skills").unwrap_or_default(),
            effort: fm.text("effort"),
            color: fm.text("color"),
            background: fm.flag("background").unwrap_or(false),
            hooks: json("hooks"),
            mcp_servers: json("mcpServers"),
            name,
            prompt,
            path,
            source,
        }
    }

    /// A subagent given as JSON: `{"description", "prompt", "tools", "disallowedTools",
    /// "model", "permissionMode", "maxTurns", "skills", "mcpServers", …}`.
    pub fn from_json(name: &str, value: &serde_json::Value) -> Self {
        let fields = value
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), serde_yaml_ng::to_value(v).ok()?)))
            .collect();
        let fm = FrontMatter { fields, present: true, body: String::new() };
        let prompt = fm.text("prompt").unwrap_or_default();
        AgentDef::from_front_matter(
            name.to_string(),
            &fm,
            prompt.into(),
            "--agents / the Agent SDK".into(),
            AgentSource::Flag,
        )
    }

    /// Whether the subagent is offered `tool` (before the session's own limits). An
    /// entry names a tool (`Read`, `Agent(worker)`), every tool of an MCP server
    /// (`mcp__github`), or for `Edit` every tool that edits files in place (`MultiEdit`
    /// too, as Claude Code's Edit rules cover it).
    pub fn offers(&self, tool: &str) -> bool {
        self.tools.as_deref().is_none_or(|list| names(list, tool)) && !self.disallows(tool)
    }

    /// Whether `disallowedTools` takes `tool` away.
    pub fn disallows(&self, tool: &str) -> bool {
        names(&self.disallowed_tools, tool)
    }

    /// The `mcpServers` entries that name a server of the session (`- github`).
    pub fn mcp_server_names(&self) -> Vec<String> {
        let list = self.mcp_servers.as_ref().and_then(|v| v.as_array());
        list.into_iter().flatten().filter_map(|v| v.as_str().map(str::to_string)).collect()
    }

    /// The `mcpServers` entries that define a server of the subagent's own (`- name:
    /// {command, …}` in the list, or a map of name to definition): `(name, definition)`.
    pub fn inline_mcp_servers(&self) -> Vec<(String, serde_json::Value)> {
        let entries: Vec<&serde_json::Map<String, serde_json::Value>> = match &self.mcp_servers {
            Some(serde_json::Value::Array(list)) => list.iter().filter_map(|v| v.as_object()).collect(),
            Some(serde_json::Value::Object(map)) => vec![map],
            _ => Vec::new(),
        };
        entries.into_iter().flatten().map(|(k, v)| (k.clone(), v.clone())).collect()
    }
}

/// Whether an entry of `list` names `tool`: the tool (`Read`, `Agent(worker)`), every
/// tool of an MCP server (`mcp__github`), or for `Edit` also `MultiEdit`.
fn names(list: &[String], tool: &str) -> bool {
    list.iter().any(|entry| {
        let name = entry.split('(').next().unwrap_or(entry).trim();
        name == tool
            || (name.starts_with("mcp__") && !name[5..].contains("__") && tool.starts_with(&format!("{name}__")))
            || (name == "Edit" && tool == "MultiEdit")
    })
}

#[cfg(test)]
#[path = "agents_tests.rs"]
mod tests;
