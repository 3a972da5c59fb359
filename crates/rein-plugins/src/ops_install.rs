//! Installing, removing, enabling and listing plugins, and checking one.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Context, edit_settings, git, now, open_for_check, settings_file, split_spec};
use crate::files::{copy_dir, object_at, read_json};
use crate::{PluginError, Result, marketplace};

/// Install `spec` (`plugin@marketplace`) for `scope`: copied into the cache, recorded in
/// `installed_plugins.json`, enabled in the scope's settings. Its install path.
pub fn install(ctx: &Context, spec: &str, scope: &str) -> Result<PathBuf> {
    let (name, market) = split_spec(spec)?;
    let settings = settings_file(ctx, scope)?;
    let root = ctx.store.marketplace_location(market)?;
    let m = marketplace::read(&root)?;
    let entry = m.entry(name)?;
    let sha = git(&["rev-parse", "HEAD"], Some(&root)).ok();
    let (source_dir, _clone) = match entry.local_dir(&root)? {
        Some(dir) => (dir, None),
        None => {
            let url = entry.git_url().ok_or_else(|| {
                PluginError::Invalid(format!("plugin \"{name}\": its source {} is not supported", entry.source))
            })?;
            let tmp = ctx.store.dir().join(format!(".fetch-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&tmp);
            git(&["clone", "--depth", "1", "--", &url, &tmp.display().to_string()], None)?;
            (tmp.clone(), Some(Removed(tmp)))
        }
    };
    let plugin = open_for_check(&source_dir)?;
    let version = plugin
        .version
        .or(entry.version.clone())
        .or(sha.as_ref().map(|s| s.chars().take(12).collect()))
        .unwrap_or_else(|| "unknown".into());
    crate::safe_name(market, "marketplace name")?;
    crate::safe_name(name, "plugin name")?;
    crate::safe_name(&version, "plugin version")?;
    let path = ctx.store.cache_path(market, name, &version);
    copy_dir(&source_dir, &path)?;
    let mut raw = ctx.store.installed_raw()?;
    let list = raw["plugins"].as_object_mut().map(|p| p.entry(spec.to_string()).or_insert_with(|| json!([])));
    let Some(Value::Array(list)) = list else {
        return Err(PluginError::Invalid("installed_plugins.json is not as expected".into()));
    };
    let project = (scope != "user").then(|| ctx.cwd.display().to_string());
    list.retain(|e| !(e["scope"] == scope && e["projectPath"].as_str() == project.as_deref()));
    let mut record = json!({
        "scope": scope,
        "installPath": path.display().to_string(),
        "version": version,
        "installedAt": now(),
        "lastUpdated": now(),
    });
    if let Some(s) = &sha {
        record["gitCommitSha"] = json!(s);
    }
    if let Some(p) = &project {
        record["projectPath"] = json!(p);
    }
    list.push(record);
    ctx.store.write_installed(&raw)?;
    edit_settings(&settings, |s| {
        object_at(s, "enabledPlugins").insert(spec.to_string(), json!(true));
    })?;
    Ok(path)
}

/// A folder removed when dropped.
struct Removed(PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Remove `spec`'s installation for `scope` (and its copy when no other installation
/// uses it); it is no longer enabled there.
pub fn uninstall(ctx: &Context, spec: &str, scope: &str) -> Result<()> {
    split_spec(spec)?;
    let settings = settings_file(ctx, scope)?;
    let mut raw = ctx.store.installed_raw()?;
    let project = (scope != "user").then(|| ctx.cwd.display().to_string());
    let Some(Value::Array(list)) = raw["plugins"].get_mut(spec) else {
        return Err(PluginError::Invalid(format!("plugin \"{spec}\" is not installed")));
    };
    let before = list.len();
    let gone: Vec<Value> = list
        .iter()
        .filter(|e| e["scope"] == scope && e["projectPath"].as_str() == project.as_deref())
        .cloned()
        .collect();
    list.retain(|e| !gone.contains(e));
    if list.len() == before {
        return Err(PluginError::Invalid(format!("plugin \"{spec}\" is not installed in the {scope} scope")));
    }
    let still: Vec<String> = list.iter().filter_map(|e| e["installPath"].as_str().map(str::to_string)).collect();
    if list.is_empty()
        && let Some(p) = raw["plugins"].as_object_mut()
    {
        p.remove(spec);
    }
    ctx.store.write_installed(&raw)?;
    // Only copies in the cache are removed (the record names a folder; a hand-edited or
    // foreign record must not make rein delete another one).
    let cache = ctx.store.dir().join("cache").canonicalize().ok();
    for e in gone {
        if let Some(path) = e["installPath"].as_str().filter(|p| !still.iter().any(|s| s == p))
            && let (Some(cache), Ok(real)) = (&cache, Path::new(path).canonicalize())
            && real.starts_with(cache)
            && real != *cache
        {
            let _ = std::fs::remove_dir_all(path);
        }
    }
    edit_settings(&settings, |s| {
        if let Some(m) = s.get_mut("enabledPlugins").and_then(Value::as_object_mut) {
            m.remove(spec);
        }
    })
}

/// Turn `spec` on or off in `scope`'s settings.
pub fn set_enabled(ctx: &Context, spec: &str, scope: &str, on: bool) -> Result<()> {
    split_spec(spec)?;
    edit_settings(&settings_file(ctx, scope)?, |s| {
        object_at(s, "enabledPlugins").insert(spec.to_string(), json!(on));
    })
}

/// One installation, as `rein plugin list` shows it.
#[derive(Debug, Clone)]
pub struct Listed {
    pub id: String,
    pub version: String,
    pub scope: String,
    pub path: PathBuf,
    /// Whether the scope's settings enable it.
    pub enabled: bool,
}

/// Every installation that concerns this project (user ones, and this project's).
pub fn list(ctx: &Context) -> Result<Vec<Listed>> {
    let mut out = Vec::new();
    for id in ctx.store.installed_ids()? {
        for i in ctx.store.installations(&id)? {
            if i.scope != "user" && i.project_path.as_deref() != Some(ctx.cwd.as_path()) {
                continue;
            }
            let settings = read_json(&settings_file(ctx, &i.scope)?)?.unwrap_or(Value::Null);
            let enabled = settings["enabledPlugins"][&id].as_bool().unwrap_or(false);
            out.push(Listed { id: id.clone(), version: i.version, scope: i.scope, path: i.install_path, enabled });
        }
    }
    Ok(out)
}

/// Check the plugin or marketplace in `dir`: every manifest and component file that
/// must read; the problems found (empty: it is valid).
pub fn validate(dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    if marketplace::manifest_path(dir).is_file() {
        match marketplace::read(dir) {
            Ok(m) => {
                for e in &m.plugins {
                    match e.local_dir(dir) {
                        Ok(Some(p)) => problems.extend(validate(&p).into_iter().map(|q| format!("{}: {q}", e.name))),
                        Ok(None) => {}
                        Err(err) => problems.push(err.to_string()),
                    }
                }
            }
            Err(e) => problems.push(e.to_string()),
        }
        return problems;
    }
    let plugin = match open_for_check(dir) {
        Ok(p) => p,
        Err(e) => return vec![e.to_string()],
    };
    if !dir.join(".claude-plugin/plugin.json").is_file() {
        problems.push(format!("{}: no .claude-plugin/plugin.json (the folder's name is used)", dir.display()));
    }
    for h in plugin.hooks() {
        if let Err(e) = h {
            problems.push(e.to_string());
        }
    }
    if let Err(e) = plugin.mcp_servers() {
        problems.push(e.to_string());
    }
    for (key, paths) in
        [("commands", plugin.command_paths()), ("agents", plugin.agent_paths()), ("skills", plugin.skill_paths())]
    {
        if let Some(listed) = plugin.manifest.get(key) {
            let missing: Vec<String> = paths.iter().filter(|p| !p.exists()).map(|p| p.display().to_string()).collect();
            if !missing.is_empty() {
                problems.push(format!("\"{key}\": {listed} names what is not there: {}", missing.join(", ")));
            }
        }
    }
    problems
}
