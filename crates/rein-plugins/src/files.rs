//! JSON files as Claude Code writes them (two-space indent, written whole through a
//! temporary file), and copying a plugin's folder.

use std::path::Path;

use serde_json::Value;

use crate::{PluginError, Result};

/// The file's JSON; `None` when it does not exist. A file that does not parse is an
/// error naming its line and column.
pub(crate) fn read_json(path: &Path) -> Result<Option<Value>> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| PluginError::File {
            path: format!("{}:{}:{}", path.display(), e.line(), e.column()),
            reason: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(PluginError::File { path: path.display().to_string(), reason: e.to_string() }),
    }
}

pub(crate) fn write_json(path: &Path, value: &Value) -> Result<()> {
    let fail = |e: std::io::Error| PluginError::File { path: path.display().to_string(), reason: e.to_string() };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let text = serde_json::to_string_pretty(value).map_err(|e| PluginError::Invalid(e.to_string()))?;
    rein_settings::write_file(path, &(text + "\n")).map_err(fail)
}

/// `from` copied to `to` (made anew), without `.git`; symbolic links are kept as links.
pub(crate) fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    let fail = |p: &Path, e: std::io::Error| PluginError::File { path: p.display().to_string(), reason: e.to_string() };
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| fail(to, e))?;
    }
    std::fs::create_dir_all(to).map_err(|e| fail(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| fail(from, e))? {
        let entry = entry.map_err(|e| fail(from, e))?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_name() == ".git" {
            continue;
        }
        let kind = entry.file_type().map_err(|e| fail(&src, e))?;
        if kind.is_symlink() {
            let target = std::fs::read_link(&src).map_err(|e| fail(&src, e))?;
            std::os::unix::fs::symlink(target, &dst).map_err(|e| fail(&dst, e))?;
        } else if kind.is_dir() {
            copy_dir(&src, &dst)?;
        } else {
            std::fs::copy(&src, &dst).map_err(|e| fail(&src, e))?;
        }
    }
    Ok(())
}

/// The object at `key` in `value`, made when missing (or when not an object).
pub(crate) fn object_at<'a>(value: &'a mut Value, key: &str) -> &'a mut serde_json::Map<String, Value> {
    if !value.is_object() {
        *value = Value::Object(Default::default());
    }
    let Value::Object(map) = value else { unreachable!("made an object above") };
    let entry = map.entry(key.to_string()).or_insert_with(|| Value::Object(Default::default()));
    if !entry.is_object() {
        *entry = Value::Object(Default::default());
    }
    match entry {
        Value::Object(m) => m,
        _ => unreachable!("made an object above"),
    }
}
