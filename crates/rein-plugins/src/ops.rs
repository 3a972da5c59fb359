//! `rein plugin …`: the marketplace and plugin commands, writing what `claude plugin`
//! writes — `known_marketplaces.json` and the user settings' `extraKnownMarketplaces`
//! when a marketplace is added, a copy in the cache, an `installed_plugins.json` entry
//! and `enabledPlugins` in the scope's settings file when a plugin is installed. Git
//! marketplaces are cloned with the user's own `git`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::files::{object_at, read_json, write_json};
use crate::{Plugin, PluginError, Result, Store, marketplace};

/// Where the commands act.
#[derive(Debug, Clone)]
pub struct Context {
    pub store: Store,
    /// The project (`--scope project|local` write its settings).
    pub cwd: PathBuf,
}

/// The settings file a scope writes.
pub fn settings_file(ctx: &Context, scope: &str) -> Result<PathBuf> {
    match scope {
        "user" => Ok(ctx.store.config_dir.join("settings.json")),
        "project" | "local" => {
            // A repository's `.claude` that is a link elsewhere is not written through.
            let dir = ctx.cwd.join(".claude");
            if std::fs::symlink_metadata(&dir).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(PluginError::Invalid(format!("{} is a symbolic link: not written through", dir.display())));
            }
            let file = if scope == "project" { "settings.json" } else { "settings.local.json" };
            Ok(dir.join(file))
        }
        other => Err(PluginError::Invalid(format!("unknown scope \"{other}\" (user, project or local)"))),
    }
}

fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn git(args: &[&str], dir: Option<&Path>) -> Result<String> {
    let mut cmd = Command::new("git");
    rein_process::env::for_child(&mut cmd);
    if let Some(d) = dir {
        cmd.arg("-C").arg(d);
    }
    let out = cmd
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| PluginError::Git { args: args.join(" "), reason: format!("cannot run git: {e}") })?;
    if !out.status.success() {
        let reason = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(PluginError::Git { args: args.join(" "), reason });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A marketplace source as typed: a local folder, `owner/repo`, or a git URL.
pub fn parse_source(text: &str, cwd: &Path) -> Result<Value> {
    let t = text.trim();
    let path = if let Some(rest) = t.strip_prefix("~/") {
        rein_process::env::os(rein_process::env::Var::Home).map(|h| PathBuf::from(h).join(rest))
    } else if t.starts_with('/') || t.starts_with("./") || t.starts_with("../") || t == "." || t == ".." {
        Some(cwd.join(t))
    } else {
        None
    };
    if let Some(p) = path {
        let abs = p.canonicalize().map_err(|e| PluginError::Invalid(format!("{t}: {e}")))?;
        return Ok(json!({"source": "directory", "path": abs.display().to_string()}));
    }
    let (url, reference) = match t.split_once('#') {
        Some((u, r)) => (u, Some(r)),
        None => (t, None),
    };
    let mut source = if url.contains("://") || url.contains('@') {
        json!({"source": "git", "url": url})
    } else if url.split('/').count() == 2 && !url.contains(char::is_whitespace) {
        json!({"source": "github", "repo": url})
    } else {
        return Err(PluginError::Invalid(
            "Invalid marketplace source format. Try: owner/repo, https://..., or ./path".into(),
        ));
    };
    if let Some(r) = reference {
        source["ref"] = json!(r);
    }
    Ok(source)
}

fn clone_url(source: &Value) -> Option<String> {
    match source["source"].as_str()? {
        "github" => Some(format!("https://github.com/{}.git", source["repo"].as_str()?)),
        "git" | "url" => source["url"].as_str().map(str::to_string),
        _ => None,
    }
}

/// Add the marketplace at `text`; its name.
pub fn marketplace_add(ctx: &Context, text: &str) -> Result<String> {
    let source = parse_source(text, &ctx.cwd)?;
    let location = match clone_url(&source) {
        None => PathBuf::from(source["path"].as_str().unwrap_or_default()),
        Some(url) => {
            let staging = ctx.store.dir().join("marketplaces").join(format!(".adding-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&staging);
            std::fs::create_dir_all(ctx.store.dir().join("marketplaces")).map_err(|e| PluginError::File {
                path: ctx.store.dir().display().to_string(),
                reason: e.to_string(),
            })?;
            let staged = staging.display().to_string();
            let mut args = vec!["clone", "--depth", "1"];
            if let Some(r) = source["ref"].as_str() {
                args.extend(["--branch", r]);
            }
            // `--`: a URL is never read as an option of git's (`--upload-pack=…`).
            args.extend(["--", url.as_str(), staged.as_str()]);
            git(&args, None)?;
            let name = marketplace::read(&staging).map(|m| m.name);
            let name = match name {
                Ok(n) => n,
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&staging);
                    return Err(e);
                }
            };
            if let Err(e) = name_is_free(ctx, &name, &source) {
                let _ = std::fs::remove_dir_all(&staging);
                return Err(e);
            }
            let dest = ctx.store.marketplace_clone(&name);
            let _ = std::fs::remove_dir_all(&dest);
            std::fs::rename(&staging, &dest)
                .map_err(|e| PluginError::File { path: dest.display().to_string(), reason: e.to_string() })?;
            dest
        }
    };
    let name = marketplace::read(&location)?.name;
    let mut known = ctx.store.known()?;
    name_is_free(ctx, &name, &source)?;
    known.insert(
        name.clone(),
        json!({"source": source, "installLocation": location.display().to_string(), "lastUpdated": now()}),
    );
    ctx.store.write_known(&known)?;
    edit_settings(&settings_file(ctx, "user")?, |s| {
        object_at(s, "extraKnownMarketplaces").insert(name.clone(), json!({"source": source}));
    })?;
    Ok(name)
}

/// A marketplace never takes the place of another of its name (added from elsewhere).
fn name_is_free(ctx: &Context, name: &str, source: &Value) -> Result<()> {
    match ctx.store.known()?.get(name) {
        Some(old) if &old["source"] != source => Err(PluginError::Invalid(format!(
            "a marketplace named \"{name}\" is already added (from {}); remove it first (rein plugin marketplace remove {name})",
            old["source"]
        ))),
        _ => Ok(()),
    }
}

/// Every known marketplace: name, source (as a line) and location.
pub fn marketplace_list(ctx: &Context) -> Result<Vec<(String, String, PathBuf)>> {
    let known = ctx.store.known()?;
    Ok(known
        .iter()
        .map(|(name, e)| {
            let s = &e["source"];
            let text = s["path"].as_str().or(s["repo"].as_str()).or(s["url"].as_str()).unwrap_or("?");
            let kind = s["source"].as_str().unwrap_or("?");
            let at = PathBuf::from(e["installLocation"].as_str().unwrap_or(""));
            (name.clone(), format!("{kind}: {text}"), at)
        })
        .collect())
}

/// Fetch the newest state of git marketplaces (all, or `name`); the names updated.
pub fn marketplace_update(ctx: &Context, name: Option<&str>) -> Result<Vec<String>> {
    let mut known = ctx.store.known()?;
    let mut updated = Vec::new();
    for (n, entry) in known.iter_mut() {
        if name.is_some_and(|w| w != n) {
            continue;
        }
        if clone_url(&entry["source"]).is_some() {
            let at = PathBuf::from(entry["installLocation"].as_str().unwrap_or_default());
            git(&["pull", "--ff-only"], Some(&at))?;
        }
        if let Some(e) = entry.as_object_mut() {
            e.insert("lastUpdated".into(), json!(now()));
        }
        updated.push(n.clone());
    }
    if let Some(w) = name
        && updated.is_empty()
    {
        return Err(PluginError::Invalid(format!("marketplace \"{w}\" is not known")));
    }
    ctx.store.write_known(&known)?;
    Ok(updated)
}

/// Forget a marketplace (its clone goes; a local directory stays).
pub fn marketplace_remove(ctx: &Context, name: &str) -> Result<()> {
    let mut known = ctx.store.known()?;
    let entry =
        known.remove(name).ok_or_else(|| PluginError::Invalid(format!("marketplace \"{name}\" is not known")))?;
    if clone_url(&entry["source"]).is_some() {
        let _ = std::fs::remove_dir_all(ctx.store.marketplace_clone(name));
    }
    ctx.store.write_known(&known)?;
    edit_settings(&settings_file(ctx, "user")?, |s| {
        if let Some(m) = s.get_mut("extraKnownMarketplaces").and_then(Value::as_object_mut) {
            m.remove(name);
        }
    })
}

/// Change the settings file `path` with `f` (kept as it is otherwise).
pub fn edit_settings(path: &Path, f: impl FnOnce(&mut Value)) -> Result<()> {
    let mut v = read_json(path)?.unwrap_or_else(|| json!({}));
    if !v.is_object() {
        return Err(PluginError::File { path: path.display().to_string(), reason: "not a JSON object".into() });
    }
    f(&mut v);
    write_json(path, &v)
}

#[path = "ops_install.rs"]
mod install;
pub use install::{Listed, install, list, set_enabled, uninstall, validate};

/// `plugin@marketplace` split; the marketplace must be known.
fn split_spec(spec: &str) -> Result<(&str, &str)> {
    spec.rsplit_once('@')
        .filter(|(p, m)| !p.is_empty() && !m.is_empty())
        .ok_or_else(|| PluginError::Invalid(format!("\"{spec}\": name it as plugin@marketplace")))
}

fn open_for_check(dir: &Path) -> Result<Plugin> {
    Plugin::open(dir, "", "check")
}
