//! One plugin on disk and its components, as Claude Code finds them: the manifest
//! `.claude-plugin/plugin.json` (optional: without it the folder's name is the plugin's)
//! may name extra paths for `commands`, `agents`, `skills`, `outputStyles` (a path or a
//! list, `./` relative to the plugin), `hooks` (a file, a list of files, or the hooks
//! inline) and `mcpServers` / `lspServers` (a file or inline); the default folders
//! (`commands/`, `agents/`, `skills/`, `output-styles/`, `hooks/hooks.json`, `.mcp.json`,
//! `.lsp.json`) count as well. A marketplace entry may name components too (read as the
//! manifest's, relative to the plugin; see [`crate::marketplace`]). `${CLAUDE_PLUGIN_ROOT}`
//! in hooks and servers is the plugin's folder.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::files::read_json;
use crate::marketplace::{COMPONENT_KEYS, Entry};
use crate::{PluginError, Result};

/// An enabled plugin.
#[derive(Debug, Clone)]
pub struct Plugin {
    /// `plugin@marketplace` (`plugin@--plugin-dir` for a folder given on the command line).
    pub id: String,
    pub name: String,
    /// Its folder (`CLAUDE_PLUGIN_ROOT`).
    pub root: PathBuf,
    pub version: Option<String>,
    pub description: Option<String>,
    /// The manifest as written (`{}` without one).
    pub manifest: Value,
    /// Which settings enabled it: `user`, `project`, `local`, `managed`, `flag`.
    pub scope: String,
    /// The components its marketplace entry names, and that marketplace's file.
    pub listing: Option<(Value, PathBuf)>,
}

impl Plugin {
    /// The plugin in `root`, enabled as `id` by `scope`; its manifest must read.
    pub fn open(root: &Path, id: &str, scope: &str) -> Result<Plugin> {
        Self::open_listed(root, id, scope, None)
    }

    /// [`open`](Self::open), with the components its marketplace entry (in the file
    /// `listed`) names; an entry that says `"strict": false` must be the only one to.
    pub fn open_listed(root: &Path, id: &str, scope: &str, listed: Option<(&Entry, &Path)>) -> Result<Plugin> {
        let manifest_path = root.join(".claude-plugin/plugin.json");
        if !root.is_dir() {
            return Err(PluginError::Invalid(format!("plugin {id}: {} is not a folder", root.display())));
        }
        let manifest = read_json(&manifest_path)?.unwrap_or(Value::Object(Map::new()));
        if let Some((entry, file)) = listed
            && !entry.strict
            && let Some(key) = COMPONENT_KEYS.iter().find(|k| manifest.get(**k).is_some())
        {
            return Err(PluginError::File {
                path: file.display().to_string(),
                reason: format!(
                    "plugin {id}: its entry says \"strict\": false (the entry is the whole manifest) but {} names `{key}` too",
                    manifest_path.display()
                ),
            });
        }
        let listing = listed
            .filter(|(e, _)| !e.components.is_empty())
            .map(|(e, file)| (Value::Object(e.components.clone()), file.to_path_buf()));
        let folder = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let from_id = id.split('@').next().filter(|n| !n.is_empty()).map(str::to_string);
        let name = manifest["name"].as_str().map(str::to_string).or(from_id).unwrap_or(folder);
        Ok(Plugin {
            id: id.to_string(),
            name,
            root: root.to_path_buf(),
            version: manifest["version"].as_str().map(str::to_string),
            description: manifest["description"].as_str().map(str::to_string),
            manifest,
            scope: scope.to_string(),
            listing,
        })
    }

    /// Where components are named: the manifest, then the marketplace entry; each with its file.
    fn manifests(&self) -> Vec<(&Value, PathBuf)> {
        let mut out = vec![(&self.manifest, self.root.join(".claude-plugin/plugin.json"))];
        if let Some((listing, file)) = &self.listing {
            out.push((listing, file.clone()));
        }
        out
    }

    /// `${CLAUDE_PLUGIN_ROOT}` in `text` made the plugin's folder.
    pub fn substitute(&self, text: &str) -> String {
        text.replace("${CLAUDE_PLUGIN_ROOT}", &self.root.display().to_string())
    }

    fn substituted(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.substitute(s)),
            Value::Array(a) => Value::Array(a.iter().map(|v| self.substituted(v)).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), self.substituted(v))).collect()),
            other => other.clone(),
        }
    }

    /// A path the manifest gives, relative to the plugin (never outside it).
    fn inside(&self, path: &str) -> Option<PathBuf> {
        let p = self.root.join(path.trim_start_matches("./"));
        let escapes = Path::new(path).components().any(|c| matches!(c, std::path::Component::ParentDir));
        (!escapes && !Path::new(path).is_absolute()).then_some(p)
    }

    /// The manifest's paths for `key`, and the default folder (when there) unless they
    /// replace it: listed commands, agents and output styles do, as in Claude Code (the
    /// default folder is then not read); skills and hook files add to it.
    fn paths(&self, key: &str, default: &str) -> Vec<PathBuf> {
        let listed: Vec<&str> = self
            .manifests()
            .into_iter()
            .flat_map(|(m, _)| match &m[key] {
                Value::String(s) => vec![s.as_str()],
                Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            })
            .collect();
        let mut out = Vec::new();
        let d = self.root.join(default);
        let replaces = matches!(key, "commands" | "agents" | "outputStyles") && !listed.is_empty();
        if d.exists() && !replaces {
            out.push(d);
        }
        for p in listed.into_iter().filter_map(|p| self.inside(p)) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// Folders (or single files) of commands.
    pub fn command_paths(&self) -> Vec<PathBuf> {
        self.paths("commands", "commands")
    }

    pub fn agent_paths(&self) -> Vec<PathBuf> {
        self.paths("agents", "agents")
    }

    /// Folders holding one folder per skill (or a skill folder itself).
    pub fn skill_paths(&self) -> Vec<PathBuf> {
        self.paths("skills", "skills")
    }

    pub fn output_style_paths(&self) -> Vec<PathBuf> {
        self.paths("outputStyles", "output-styles")
    }

    /// Its hooks, each in the settings' shape (`{"hooks": {Event: [...]}}` files, or the
    /// manifest's inline object), `${CLAUDE_PLUGIN_ROOT}` filled in; with the file each
    /// came from.
    pub fn hooks(&self) -> Vec<Result<(Value, String)>> {
        let mut out = Vec::new();
        let mut files = Vec::new();
        let default = self.root.join("hooks/hooks.json");
        if default.is_file() {
            files.push(default);
        }
        for (manifest, origin) in self.manifests() {
            if let Value::Object(inline) = &manifest["hooks"] {
                let hooks = inline.get("hooks").cloned().unwrap_or(Value::Object(inline.clone()));
                out.push(Ok((self.substituted(&hooks), origin.display().to_string())));
            }
        }
        for p in self.paths("hooks", "hooks/hooks.json") {
            if p.is_file() && !files.contains(&p) {
                files.push(p);
            }
        }
        for f in files {
            out.push(read_json(&f).map(|v| {
                let v = v.unwrap_or(Value::Null);
                let hooks = v.get("hooks").cloned().unwrap_or(v);
                (self.substituted(&hooks), f.display().to_string())
            }));
        }
        out
    }

    /// Its MCP servers by their own names (`.mcp.json`, the manifest's `mcpServers` file
    /// or inline map), `${CLAUDE_PLUGIN_ROOT}` filled in.
    pub fn mcp_servers(&self) -> Result<Map<String, Value>> {
        self.server_map("mcpServers", ".mcp.json")
    }

    /// Its language servers (`.lsp.json`, the manifest's `lspServers` file or inline map),
    /// `${CLAUDE_PLUGIN_ROOT}` filled in.
    pub fn lsp_servers(&self) -> Result<Map<String, Value>> {
        self.server_map("lspServers", ".lsp.json")
    }

    fn server_map(&self, key: &str, default: &str) -> Result<Map<String, Value>> {
        let mut out = Map::new();
        let unwrap = |v: Value| match v.get(key) {
            Some(Value::Object(m)) => m.clone(),
            _ => v.as_object().cloned().unwrap_or_default(),
        };
        let read =
            |path: PathBuf| -> Result<Map<String, Value>> { Ok(read_json(&path)?.map(unwrap).unwrap_or_default()) };
        out.extend(read(self.root.join(default))?);
        for (manifest, _) in self.manifests() {
            match &manifest[key] {
                Value::String(p) => {
                    if let Some(path) = self.inside(p) {
                        out.extend(read(path)?);
                    }
                }
                Value::Object(inline) => out.extend(inline.clone()),
                _ => {}
            }
        }
        Ok(out.into_iter().map(|(k, v)| (k, self.substituted(&v))).collect())
    }
}
