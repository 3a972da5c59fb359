//! Where Claude Code keeps plugins: `<config dir>/plugins/` (`~/.claude/plugins`, or
//! `$CLAUDE_CONFIG_DIR/plugins`) with `known_marketplaces.json` (each marketplace's
//! source and where it is on disk), `installed_plugins.json` (version 2: for each
//! `plugin@marketplace`, its installations by scope) and the `cache/` and
//! `marketplaces/` folders.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::files::{read_json, write_json};
use crate::{PluginError, Result};

/// The plugins folder of one configuration directory.
#[derive(Debug, Clone)]
pub struct Store {
    /// `~/.claude` (or `$CLAUDE_CONFIG_DIR`).
    pub config_dir: PathBuf,
}

/// One installation of a plugin (an entry of `installed_plugins.json`).
#[derive(Debug, Clone, PartialEq)]
pub struct Installation {
    /// `user`, `project` or `local`.
    pub scope: String,
    pub install_path: PathBuf,
    pub version: String,
    /// For `project` and `local` installations: the project.
    pub project_path: Option<PathBuf>,
}

impl Store {
    pub fn new(config_dir: &Path) -> Store {
        Store { config_dir: config_dir.to_path_buf() }
    }

    pub fn dir(&self) -> PathBuf {
        self.config_dir.join("plugins")
    }

    fn installed_file(&self) -> PathBuf {
        self.dir().join("installed_plugins.json")
    }

    fn known_file(&self) -> PathBuf {
        self.dir().join("known_marketplaces.json")
    }

    /// Where a git marketplace is cloned.
    pub fn marketplace_clone(&self, name: &str) -> PathBuf {
        self.dir().join("marketplaces").join(name)
    }

    /// Where an installed plugin's copy lives.
    pub fn cache_path(&self, marketplace: &str, plugin: &str, version: &str) -> PathBuf {
        self.dir().join("cache").join(marketplace).join(plugin).join(version)
    }

    /// `known_marketplaces.json`: name → `{source, installLocation, lastUpdated}`.
    pub fn known(&self) -> Result<Map<String, Value>> {
        Ok(read_json(&self.known_file())?.and_then(|v| v.as_object().cloned()).unwrap_or_default())
    }

    pub fn write_known(&self, known: &Map<String, Value>) -> Result<()> {
        write_json(&self.known_file(), &Value::Object(known.clone()))
    }

    /// Where the marketplace `name` is on disk, as recorded.
    pub fn marketplace_location(&self, name: &str) -> Result<PathBuf> {
        let known = self.known()?;
        let entry = known.get(name).ok_or_else(|| {
            PluginError::Invalid(format!(
                "marketplace \"{name}\" is not known (rein plugin marketplace add <source> adds it)"
            ))
        })?;
        entry["installLocation"]
            .as_str()
            .or_else(|| entry.pointer("/source/path").and_then(Value::as_str))
            .map(PathBuf::from)
            .ok_or_else(|| PluginError::Invalid(format!("marketplace \"{name}\" has no location on disk")))
    }

    /// `installed_plugins.json` as a whole (`{"version": 2, "plugins": {}}` when absent).
    pub fn installed_raw(&self) -> Result<Value> {
        let path = self.installed_file();
        let mut v = read_json(&path)?.unwrap_or_else(|| json!({"version": 2, "plugins": {}}));
        let Some(map) = v.as_object_mut() else {
            return Err(PluginError::File { path: path.display().to_string(), reason: "not a JSON object".into() });
        };
        if !map.get("plugins").is_some_and(Value::is_object) {
            map.insert("plugins".into(), json!({}));
        }
        Ok(v)
    }

    pub fn write_installed(&self, value: &Value) -> Result<()> {
        write_json(&self.installed_file(), value)
    }

    /// The installations of `id` (`plugin@marketplace`).
    pub fn installations(&self, id: &str) -> Result<Vec<Installation>> {
        let raw = self.installed_raw()?;
        let list = raw["plugins"][id].as_array().cloned().unwrap_or_default();
        Ok(list
            .iter()
            .filter_map(|e| {
                Some(Installation {
                    scope: e["scope"].as_str().unwrap_or("user").to_string(),
                    install_path: PathBuf::from(e["installPath"].as_str()?),
                    version: e["version"].as_str().unwrap_or("unknown").to_string(),
                    project_path: e["projectPath"].as_str().map(PathBuf::from),
                })
            })
            .collect())
    }

    /// Every installed `plugin@marketplace`.
    pub fn installed_ids(&self) -> Result<Vec<String>> {
        Ok(self.installed_raw()?["plugins"].as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default())
    }
}
