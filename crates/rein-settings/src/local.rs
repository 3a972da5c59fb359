//! Remembering an approval: allow rules added to `.claude/settings.local.json` at the
//! project root, keeping everything else in the file, written atomically (a temporary
//! file renamed over the old one), as Claude Code's "don't ask again" does.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::SettingsError;

/// Add `rules` to `permissions.allow` of `<root>/.claude/settings.local.json` (each
/// once); returns the file's path.
pub fn add_local_allow_rules(root: &Path, rules: &[String]) -> Result<PathBuf, SettingsError> {
    edit_local_rules(root, "allow", |list| {
        for rule in rules {
            if !list.iter().any(|r| r.as_str() == Some(rule)) {
                list.push(Value::String(rule.clone()));
            }
        }
    })
}

/// Add `rule` to the `list` (`allow`, `ask`, `deny`) of the local settings.
pub fn add_local_rule(root: &Path, list: &str, rule: &str) -> Result<PathBuf, SettingsError> {
    edit_local_rules(root, list, |l| {
        if !l.iter().any(|r| r.as_str() == Some(rule)) {
            l.push(Value::String(rule.to_string()));
        }
    })
}

/// Add `rules` to the `list` (`allow`, `ask`, `deny`) of `permissions` in the settings
/// file at `path` (user, project or local settings), keeping the rest of the file.
pub fn add_rules_to_file(path: &Path, list: &str, rules: &[String]) -> Result<PathBuf, SettingsError> {
    let origin = path.display().to_string();
    edit_file(path, |top| {
        let entry = rule_list(top, list, &origin)?;
        for rule in rules {
            if !entry.iter().any(|r| r.as_str() == Some(rule)) {
                entry.push(Value::String(rule.clone()));
            }
        }
        Ok(())
    })
}

/// Remove `rule` from every list of the local settings.
pub fn remove_local_rule(root: &Path, rule: &str) -> Result<PathBuf, SettingsError> {
    let mut path = PathBuf::new();
    for list in ["allow", "ask", "deny"] {
        path = edit_local_rules(root, list, |l| l.retain(|r| r.as_str() != Some(rule)))?;
    }
    Ok(path)
}

/// Record the person's choice about the project's MCP servers, as Claude Code does:
/// `enabledMcpjsonServers` and `disabledMcpjsonServers` of the local settings (a name
/// moves from one list to the other).
pub fn record_mcpjson_choices(root: &Path, enabled: &[String], disabled: &[String]) -> Result<PathBuf, SettingsError> {
    edit_local(root, |top| {
        for (key, names, other) in
            [("enabledMcpjsonServers", enabled, disabled), ("disabledMcpjsonServers", disabled, enabled)]
        {
            let list = top.entry(key).or_insert_with(|| Value::Array(Vec::new()));
            if let Some(list) = list.as_array_mut() {
                list.retain(|v| !v.as_str().is_some_and(|n| other.iter().any(|o| o == n)));
                for n in names {
                    if !list.iter().any(|v| v.as_str() == Some(n)) {
                        list.push(Value::String(n.clone()));
                    }
                }
            }
        }
        Ok(())
    })
}

/// Set the top-level `key` of `<root>/.claude/settings.local.json` to `value` (the
/// rest of the file kept).
pub fn set_local_value(root: &Path, key: &str, value: Value) -> Result<PathBuf, SettingsError> {
    edit_local(root, |top| {
        top.insert(key.to_string(), value);
        Ok(())
    })
}

/// Set the top-level `key` of the settings file at `path` to `value` (the rest of the
/// file kept; the file made when missing).
pub fn set_value_in(path: &Path, key: &str, value: Value) -> Result<PathBuf, SettingsError> {
    edit_file(path, |top| {
        top.insert(key.to_string(), value);
        Ok(())
    })
}

/// Change one list of `permissions` in `<root>/.claude/settings.local.json`, keeping the
/// rest of the file, written atomically.
fn edit_local_rules(root: &Path, list: &str, change: impl FnOnce(&mut Vec<Value>)) -> Result<PathBuf, SettingsError> {
    let origin = root.join(".claude/settings.local.json").display().to_string();
    edit_local(root, |top| {
        change(rule_list(top, list, &origin)?);
        Ok(())
    })
}

/// `permissions.<list>` of a settings object, made when missing.
fn rule_list<'a>(
    top: &'a mut Map<String, Value>,
    list: &str,
    origin: &str,
) -> Result<&'a mut Vec<Value>, SettingsError> {
    let permissions = top.entry("permissions").or_insert_with(|| Value::Object(Map::new()));
    let Some(permissions) = permissions.as_object_mut() else {
        return Err(SettingsError::NotObject { origin: format!("{origin} (permissions)") });
    };
    let entry = permissions.entry(list).or_insert_with(|| Value::Array(Vec::new()));
    entry.as_array_mut().ok_or_else(|| SettingsError::NotObject { origin: format!("{origin} (permissions.{list})") })
}

/// Change `<root>/.claude/settings.local.json` (its top-level object), keeping the rest
/// of the file, written atomically.
fn edit_local(
    root: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<(), SettingsError>,
) -> Result<PathBuf, SettingsError> {
    edit_file(&root.join(".claude").join("settings.local.json"), change)
}

/// Change the settings file at `path` (its top-level object), keeping the rest of the
/// file, written atomically.
fn edit_file(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<(), SettingsError>,
) -> Result<PathBuf, SettingsError> {
    let path = path.to_path_buf();
    let io = |e: std::io::Error| SettingsError::Io { path: path.display().to_string(), reason: e.to_string() };
    let mut value: Value = match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => serde_json::from_str(&text).map_err(|e| SettingsError::Json {
            origin: path.display().to_string(),
            line: e.line(),
            column: e.column(),
            reason: e.to_string(),
        })?,
        Ok(_) => Value::Object(Map::new()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(e) => return Err(io(e)),
    };
    let Some(top) = value.as_object_mut() else {
        return Err(SettingsError::NotObject { origin: path.display().to_string() });
    };
    change(top)?;
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    crate::write_file(&path, &text).map_err(io)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_are_added_once_and_the_rest_is_kept() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join(".claude")).unwrap();
        std::fs::write(
            d.path().join(".claude/settings.local.json"),
            r#"{"model": "opus", "permissions": {"allow": ["Read"], "deny": ["Bash(rm:*)"]}}"#,
        )
        .unwrap();
        add_local_allow_rules(d.path(), &["Bash(npm test *)".into(), "Read".into()]).unwrap();
        let path = add_local_allow_rules(d.path(), &["Bash(npm test *)".into()]).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert_eq!(v["model"], "opus");
        assert_eq!(v["permissions"]["deny"][0], "Bash(rm:*)");
        assert_eq!(v["permissions"]["allow"], serde_json::json!(["Read", "Bash(npm test *)"]));
    }
}
