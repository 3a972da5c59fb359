//! Claude Code settings, read unchanged: managed (`/etc/claude-code/managed-settings.json`
//! and `managed-settings.d/*.json`), `--settings FILE|JSON`, local
//! (`.claude/settings.local.json`), project (`.claude/settings.json`) and user
//! (`~/.claude/settings.json`). Each file is kept with its scope, path and text, so that
//! a consumer can merge by the documented precedence (scalars from the highest scope,
//! arrays concatenated) and report a bad entry with its file and line. A file that is
//! not valid JSON stops the load with its path, line, column and reason: rein never
//! silently drops settings.

mod local;
mod write;
pub use write::{Stamp, write_file, written_by_rein};
pub mod schema;

pub use local::{
    add_local_allow_rules, add_local_rule, add_rules_to_file, record_mcpjson_choices, remove_local_rule,
    set_local_value, set_value_in,
};

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where a settings file comes from, highest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    Managed,
    Cli,
    Local,
    Project,
    User,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Managed => "managed",
            Scope::Cli => "command line",
            Scope::Local => "local",
            Scope::Project => "project",
            Scope::User => "user",
        }
    }

    /// Project and local settings: files a cloned repository (or the model) can write.
    /// They may tighten a wall, never loosen it, unless [`Settings::trusts_project`].
    pub fn is_repository(self) -> bool {
        matches!(self, Scope::Project | Scope::Local)
    }
}

/// One loaded settings file.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    pub scope: Scope,
    /// `None` for JSON given inline to `--settings`.
    pub path: Option<PathBuf>,
    /// The directory `/path` rule anchors are relative to.
    pub anchor: PathBuf,
    pub text: String,
    pub value: Value,
}

impl SettingsFile {
    /// How to name this file in messages.
    pub fn origin(&self) -> String {
        match &self.path {
            Some(p) => p.display().to_string(),
            None => format!("{} settings (inline JSON)", self.scope.name()),
        }
    }

    /// The 1-based line where `needle` (a JSON string value) first appears.
    pub fn line_of(&self, needle: &str) -> Option<usize> {
        let quoted = serde_json::to_string(needle).ok()?;
        self.text.lines().position(|l| l.contains(&quoted)).map(|i| i + 1)
    }

    /// The value at a JSON pointer (`/permissions/allow`).
    pub fn get(&self, pointer: &str) -> Option<&Value> {
        self.value.pointer(pointer)
    }
}

/// Why settings could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{origin}:{line}:{column}: not valid JSON: {reason}")]
    Json { origin: String, line: usize, column: usize, reason: String },
    #[error("{origin}: the settings must be a JSON object")]
    NotObject { origin: String },
    #[error("{path}: cannot read: {reason}")]
    Io { path: String, reason: String },
}

/// Where to look.
#[derive(Debug, Clone, Default)]
pub struct Locations {
    /// `/etc/claude-code` on Linux; `None` skips managed settings.
    pub managed_dir: Option<PathBuf>,
    /// `~/.claude` or `$CLAUDE_CONFIG_DIR`; `None` skips user settings.
    pub user_dir: Option<PathBuf>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Where `.claude/settings.local.json` is read: the git root, or cwd.
    pub local_root: PathBuf,
    /// `--settings`: a file path or inline JSON.
    pub cli: Option<String>,
}

impl Locations {
    /// The settings files of every scope a session reads, whether they exist yet or not
    /// (what a watch for changes looks at): managed, local, project, user.
    pub fn files(&self) -> Vec<(Scope, PathBuf)> {
        let mut out = Vec::new();
        if let Some(dir) = &self.managed_dir {
            out.push((Scope::Managed, dir.join("managed-settings.json")));
        }
        out.push((Scope::Local, self.local_root.join(".claude/settings.local.json")));
        out.push((Scope::Project, self.cwd.join(".claude/settings.json")));
        if let Some(user) = &self.user_dir {
            out.push((Scope::User, user.join("settings.json")));
        }
        out
    }
}

/// All settings files found, highest precedence first.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    pub files: Vec<SettingsFile>,
}

impl Settings {
    pub fn load(loc: &Locations) -> Result<Settings, SettingsError> {
        let mut files = Vec::new();
        if let Some(dir) = &loc.managed_dir {
            read_into(&mut files, Scope::Managed, &dir.join("managed-settings.json"), &loc.cwd)?;
            let mut extra: Vec<PathBuf> = std::fs::read_dir(dir.join("managed-settings.d"))
                .map(|it| {
                    it.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "json")).collect()
                })
                .unwrap_or_default();
            extra.sort();
            for p in extra {
                read_into(&mut files, Scope::Managed, &p, &loc.cwd)?;
            }
        }
        if let Some(cli) = &loc.cli {
            if cli.trim_start().starts_with('{') {
                files.push(parse(Scope::Cli, None, loc.cwd.clone(), cli.clone())?);
            } else {
                let path = if Path::new(cli).is_absolute() { PathBuf::from(cli) } else { loc.cwd.join(cli) };
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| SettingsError::Io { path: path.display().to_string(), reason: e.to_string() })?;
                let anchor = path.parent().map(Path::to_path_buf).unwrap_or_else(|| loc.cwd.clone());
                files.push(parse(Scope::Cli, Some(path), anchor, text)?);
            }
        }
        read_into(&mut files, Scope::Local, &loc.local_root.join(".claude/settings.local.json"), &loc.cwd)?;
        read_into(&mut files, Scope::Project, &loc.cwd.join(".claude/settings.json"), &loc.cwd)?;
        if let Some(user) = &loc.user_dir {
            read_into(&mut files, Scope::User, &user.join("settings.json"), user)?;
        }
        Ok(Settings { files })
    }

    /// Whether the person's own settings (user, managed or command line) let the
    /// project's settings loosen the walls: `"sandbox": {"trustProjectSettings": true}`.
    pub fn trusts_project(&self) -> bool {
        self.files
            .iter()
            .any(|f| !f.scope.is_repository() && f.get("/sandbox/trustProjectSettings") == Some(&Value::Bool(true)))
    }

    /// A scalar from the highest-precedence file that sets it.
    pub fn scalar(&self, pointer: &str) -> Option<(&Value, &SettingsFile)> {
        self.files.iter().find_map(|f| f.get(pointer).filter(|v| !v.is_null()).map(|v| (v, f)))
    }

    /// The string items of an array setting, from every file, highest first.
    pub fn strings(&self, pointer: &str) -> Vec<(String, &SettingsFile)> {
        let mut out: Vec<(String, &SettingsFile)> = Vec::new();
        for f in &self.files {
            if let Some(items) = f.get(pointer).and_then(Value::as_array) {
                for item in items {
                    if let Some(s) = item.as_str() {
                        out.push((s.to_string(), f));
                    }
                }
            }
        }
        out
    }

    /// An object setting merged key by key, the highest scope winning each key
    /// (`env`). Values that are not strings are written as JSON.
    pub fn merged_map(&self, pointer: &str) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for f in &self.files {
            if let Some(map) = f.get(pointer).and_then(Value::as_object) {
                for (k, v) in map {
                    if !out.iter().any(|(seen, _)| seen == k) {
                        let v = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
                        out.push((k.clone(), v));
                    }
                }
            }
        }
        out
    }

    /// Items of an array setting that are not strings: (file, line of the key, item).
    pub fn non_strings(&self, pointer: &str) -> Vec<(String, Value)> {
        let mut out = Vec::new();
        for f in &self.files {
            if let Some(items) = f.get(pointer).and_then(Value::as_array) {
                for item in items.iter().filter(|i| !i.is_string()) {
                    out.push((f.origin(), item.clone()));
                }
            }
        }
        out
    }
}

fn read_into(files: &mut Vec<SettingsFile>, scope: Scope, path: &Path, anchor: &Path) -> Result<(), SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(SettingsError::Io { path: path.display().to_string(), reason: e.to_string() }),
    };
    files.push(parse(scope, Some(path.to_path_buf()), anchor.to_path_buf(), text)?);
    Ok(())
}

fn parse(scope: Scope, path: Option<PathBuf>, anchor: PathBuf, text: String) -> Result<SettingsFile, SettingsError> {
    let origin = path.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "--settings (inline JSON)".into());
    let value: Value = if text.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(&text).map_err(|e| SettingsError::Json {
            origin: origin.clone(),
            line: e.line(),
            column: e.column(),
            reason: e.to_string().split(" at line").next().unwrap_or_default().to_string(),
        })?
    };
    if !value.is_object() {
        return Err(SettingsError::NotObject { origin });
    }
    Ok(SettingsFile { scope, path, anchor, text, value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, s: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, s).unwrap();
    }

    #[test]
    fn loads_every_scope_in_precedence_order() {
        let d = tempfile::tempdir().unwrap();
        let (managed, user, cwd) = (d.path().join("etc"), d.path().join("home/.claude"), d.path().join("proj"));
        write(
            &managed.join("managed-settings.json"),
            r#"{"model": "managed-model", "permissions": {"deny": ["Bash(rm:*)"]}}"#,
        );
        write(&managed.join("managed-settings.d/10-extra.json"), r#"{"permissions": {"deny": ["WebFetch"]}}"#);
        write(&user.join("settings.json"), r#"{"model": "user-model", "permissions": {"allow": ["Bash(ls:*)"]}}"#);
        write(
            &cwd.join(".claude/settings.json"),
            "{\n  \"permissions\": {\n    \"allow\": [\"Bash(git status:*)\"]\n  }\n}",
        );
        write(&cwd.join(".claude/settings.local.json"), r#"{"permissions": {"ask": ["Bash(git push:*)"]}}"#);
        let s = Settings::load(&Locations {
            managed_dir: Some(managed),
            user_dir: Some(user.clone()),
            cwd: cwd.clone(),
            local_root: cwd,
            cli: Some(r#"{"permissions": {"allow": ["Read"]}}"#.into()),
        })
        .unwrap();
        let scopes: Vec<Scope> = s.files.iter().map(|f| f.scope).collect();
        assert_eq!(scopes, [Scope::Managed, Scope::Managed, Scope::Cli, Scope::Local, Scope::Project, Scope::User]);
        assert_eq!(s.scalar("/model").unwrap().0, "managed-model");
        let allow: Vec<String> = s.strings("/permissions/allow").into_iter().map(|(r, _)| r).collect();
        assert_eq!(allow, ["Read", "Bash(git status:*)", "Bash(ls:*)"]);
        let (_, project) = s.strings("/permissions/allow").into_iter().nth(1).unwrap();
        assert_eq!(project.line_of("Bash(git status:*)"), Some(3));
        assert_eq!(s.files[5].anchor, user);
    }

    #[test]
    fn invalid_json_names_file_line_and_column() {
        let d = tempfile::tempdir().unwrap();
        let cwd = d.path().to_path_buf();
        write(&cwd.join(".claude/settings.json"), "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\",]\n  }\n}");
        let err = Settings::load(&Locations { cwd: cwd.clone(), local_root: cwd, ..Default::default() }).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains(".claude/settings.json:3:"), "{msg}");
        assert!(msg.contains("not valid JSON"), "{msg}");
    }
}
