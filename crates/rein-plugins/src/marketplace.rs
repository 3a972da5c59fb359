//! A marketplace: a folder (a git clone or a local directory) with
//! `.claude-plugin/marketplace.json` — its `name`, `owner` and `plugins`, each with a
//! `name` and a `source` (a path inside the marketplace, or a git repository). An entry
//! may also name the plugin's components (`commands`, `agents`, `skills`, `hooks`,
//! `mcpServers`, …) as a manifest does: with `strict` (the default) they are added to
//! the plugin's own `plugin.json`, with `"strict": false` they are the whole manifest.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::files::read_json;
use crate::{PluginError, Result};

/// A marketplace read from disk.
#[derive(Debug, Clone)]
pub struct Marketplace {
    pub name: String,
    pub root: PathBuf,
    pub plugins: Vec<Entry>,
}

/// One plugin a marketplace offers.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: String,
    /// As written: `"./plugins/x"`, or `{"source": "github" | "url" | "git-subdir", …}`.
    pub source: Value,
    pub description: Option<String>,
    pub version: Option<String>,
    /// The components the entry names (the manifest's keys in [`COMPONENT_KEYS`]).
    pub components: Map<String, Value>,
    /// `strict` (default true): `plugin.json` is the manifest and the entry adds to it;
    /// else the entry is the whole manifest.
    pub strict: bool,
}

/// The keys of a manifest (or of a marketplace entry) that name a plugin's components.
pub const COMPONENT_KEYS: [&str; 7] =
    ["commands", "agents", "skills", "outputStyles", "hooks", "mcpServers", "lspServers"];

/// The marketplace file of the folder `root`.
pub fn manifest_path(root: &Path) -> PathBuf {
    root.join(".claude-plugin/marketplace.json")
}

/// Read the marketplace at `root`.
pub fn read(root: &Path) -> Result<Marketplace> {
    let path = manifest_path(root);
    let value = read_json(&path)?
        .ok_or_else(|| PluginError::Invalid(format!("Marketplace file not found at {}", path.display())))?;
    let name = value["name"].as_str().filter(|n| !n.trim().is_empty()).ok_or_else(|| PluginError::File {
        path: path.display().to_string(),
        reason: "the marketplace has no \"name\"".into(),
    })?;
    let name = crate::safe_name(name, "marketplace name")
        .map_err(|e| PluginError::File { path: path.display().to_string(), reason: e.to_string() })?;
    let mut plugins = Vec::new();
    for p in value["plugins"].as_array().into_iter().flatten() {
        // A name that is no plain name (`../x`) would become a path: such entries are left out.
        let Some(plugin) = p["name"].as_str().filter(|n| crate::safe_name(n, "plugin name").is_ok()) else { continue };
        plugins.push(Entry {
            name: plugin.to_string(),
            source: p["source"].clone(),
            description: p["description"].as_str().map(str::to_string),
            version: p["version"].as_str().map(str::to_string),
            components: COMPONENT_KEYS.iter().filter_map(|k| Some((k.to_string(), p.get(*k)?.clone()))).collect(),
            strict: p["strict"].as_bool().unwrap_or(true),
        });
    }
    Ok(Marketplace { name: name.to_string(), root: root.to_path_buf(), plugins })
}

impl Marketplace {
    pub fn entry(&self, plugin: &str) -> Result<&Entry> {
        self.plugins.iter().find(|e| e.name == plugin).ok_or_else(|| {
            PluginError::Invalid(format!("Plugin \"{plugin}\" not found in marketplace \"{}\"", self.name))
        })
    }
}

impl Entry {
    /// The plugin's folder inside the marketplace, when its source is a path there
    /// (`None` for a plugin kept in a repository of its own).
    pub fn local_dir(&self, marketplace_root: &Path) -> Result<Option<PathBuf>> {
        let path = match &self.source {
            Value::String(p) => p.as_str(),
            Value::Null => ".",
            v if matches!(v["source"].as_str(), Some("local" | "directory")) => v["path"].as_str().unwrap_or("."),
            _ => return Ok(None),
        };
        let dir = marketplace_root.join(path);
        // A source names a folder inside the marketplace, never one outside it.
        let (Ok(real), Ok(root)) = (dir.canonicalize(), marketplace_root.canonicalize()) else {
            return Err(PluginError::Invalid(format!("plugin \"{}\": its source {path} is not there", self.name)));
        };
        if !real.starts_with(&root) {
            return Err(PluginError::Invalid(format!(
                "plugin \"{}\": its source {path} is outside the marketplace",
                self.name
            )));
        }
        Ok(Some(real))
    }

    /// The git URL of a plugin kept in a repository of its own.
    pub fn git_url(&self) -> Option<String> {
        match self.source["source"].as_str()? {
            "github" => Some(format!("https://github.com/{}.git", self.source["repo"].as_str()?)),
            "url" | "git" => self.source["url"].as_str().map(str::to_string),
            _ => None,
        }
    }
}
