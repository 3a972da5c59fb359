//! Writing server entries where `claude mcp add` writes them: `local` →
//! `~/.claude.json` `projects["<dir>"].mcpServers`, `user` → `~/.claude.json`
//! `mcpServers`, `project` → `<dir>/.mcp.json`. Everything else in those files is kept
//! as it was (key order included); files are replaced atomically.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Where an entry is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Local,
    Project,
    User,
}

impl Scope {
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "local" => Some(Scope::Local),
            "project" => Some(Scope::Project),
            "user" => Some(Scope::User),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("Invalid name {0}. Names can only contain letters, numbers, hyphens, and underscores.")]
    BadName(String),
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("MCP server {name} already exists in {scope} config")]
    Exists { name: String, scope: &'static str },
    #[error("No MCP server found with name: {0}")]
    Missing(String),
}

/// The files of one project.
#[derive(Debug, Clone)]
pub struct Store {
    pub project: PathBuf,
    pub claude_json: PathBuf,
}

fn file_err(path: &Path, reason: impl ToString) -> StoreError {
    StoreError::File { path: path.display().to_string(), reason: reason.to_string() }
}

fn read(path: &Path) -> Result<Value, StoreError> {
    match std::fs::read_to_string(path) {
        Ok(t) if t.trim().is_empty() => Ok(Value::Object(Map::new())),
        Ok(t) => serde_json::from_str(&t).map_err(|e| file_err(path, format!("not valid JSON: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Object(Map::new())),
        Err(e) => Err(file_err(path, e)),
    }
}

fn write(path: &Path, value: &Value) -> Result<(), StoreError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| file_err(path, e))? + "\n";
    rein_settings::write_file(path, &text).map_err(|e| file_err(path, e))
}

/// The `mcpServers` object inside `root` for `scope`, created when missing.
fn servers_mut<'a>(root: &'a mut Value, scope: Scope, project: &Path) -> Option<&'a mut Map<String, Value>> {
    let obj = root.as_object_mut()?;
    let holder = match scope {
        Scope::Local => {
            let projects = obj.entry("projects").or_insert_with(|| Value::Object(Map::new())).as_object_mut()?;
            projects
                .entry(project.display().to_string())
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()?
        }
        Scope::Project | Scope::User => obj,
    };
    holder.entry("mcpServers").or_insert_with(|| Value::Object(Map::new())).as_object_mut()
}

impl Store {
    fn file(&self, scope: Scope) -> PathBuf {
        match scope {
            Scope::Project => self.project.join(".mcp.json"),
            Scope::Local | Scope::User => self.claude_json.clone(),
        }
    }

    /// Add `entry` as `name` in `scope`; returns the file written.
    pub fn add(&self, name: &str, entry: Value, scope: Scope) -> Result<PathBuf, StoreError> {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(StoreError::BadName(name.to_string()));
        }
        let path = self.file(scope);
        let mut root = read(&path)?;
        let servers =
            servers_mut(&mut root, scope, &self.project).ok_or_else(|| file_err(&path, "not a JSON object"))?;
        if servers.contains_key(name) {
            return Err(StoreError::Exists { name: name.to_string(), scope: scope.name() });
        }
        servers.insert(name.to_string(), entry);
        write(&path, &root)?;
        Ok(path)
    }

    /// Remove `name` from `scope`, or from the first scope that has it (local, project,
    /// user); returns the scope and file.
    pub fn remove(&self, name: &str, scope: Option<Scope>) -> Result<(Scope, PathBuf), StoreError> {
        let scopes = scope.map_or_else(|| vec![Scope::Local, Scope::Project, Scope::User], |s| vec![s]);
        for s in scopes {
            let path = self.file(s);
            let mut root = read(&path)?;
            let removed = servers_mut(&mut root, s, &self.project).and_then(|m| m.shift_remove(name)).is_some();
            if removed {
                write(&path, &root)?;
                return Ok((s, path));
            }
        }
        Err(StoreError::Missing(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_go_where_claude_code_puts_them_and_the_rest_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let store = Store { project: d.path().join("proj"), claude_json: d.path().join(".claude.json") };
        std::fs::create_dir_all(&store.project).unwrap();
        std::fs::write(&store.claude_json, r#"{"numStartups": 3, "projects": {}}"#).unwrap();
        store.add("loc", json!({"type": "stdio", "command": "npx"}), Scope::Local).unwrap();
        store.add("usr", json!({"type": "http", "url": "https://x/mcp"}), Scope::User).unwrap();
        store.add("prj", json!({"command": "p"}), Scope::Project).unwrap();
        let root: Value = serde_json::from_str(&std::fs::read_to_string(&store.claude_json).unwrap()).unwrap();
        assert_eq!(root["numStartups"], 3);
        assert_eq!(root["projects"][store.project.display().to_string()]["mcpServers"]["loc"]["command"], "npx");
        assert_eq!(root["mcpServers"]["usr"]["url"], "https://x/mcp");
        let mcp: Value =
            serde_json::from_str(&std::fs::read_to_string(store.project.join(".mcp.json")).unwrap()).unwrap();
        assert_eq!(mcp["mcpServers"]["prj"]["command"], "p");
        assert!(matches!(store.add("loc", json!({}), Scope::Local), Err(StoreError::Exists { .. })));
        assert!(
            store
                .add("bad name", json!({}), Scope::Local)
                .unwrap_err()
                .to_string()
                .starts_with("Invalid name bad name.")
        );
        assert_eq!(store.remove("prj", None).unwrap().0, Scope::Project);
        assert!(matches!(store.remove("prj", None), Err(StoreError::Missing(_))));
    }
}
