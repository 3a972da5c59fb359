//! Which plugins a session uses: every `plugin@marketplace` the settings' `enabledPlugins`
//! turn on (a more specific scope overriding a broader one: user < project < local <
//! flag < managed), found where it was installed — for a marketplace that is a local
//! directory, in that directory, as Claude Code reads it there — and every folder given
//! with `--plugin-dir`. A plugin that cannot be found or read is reported, never fatal.

use std::path::{Path, PathBuf};

use crate::{Plugin, PluginError, Store, marketplace};

/// One `enabledPlugins` entry, from the settings of `scope`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enabled {
    pub id: String,
    pub on: bool,
    pub scope: String,
}

/// The session's plugins and what could not be loaded.
#[derive(Debug, Default)]
pub struct Loaded {
    pub plugins: Vec<Plugin>,
    pub problems: Vec<String>,
}

/// The plugins `enabled` (broadest scope first) turns on for a session in `cwd`, then
/// those of `plugin_dirs`.
pub fn load(store: &Store, enabled: &[Enabled], plugin_dirs: &[PathBuf], cwd: &Path) -> Loaded {
    let mut out = Loaded::default();
    // The last word for each id wins.
    let mut state: Vec<(String, bool, String)> = Vec::new();
    for e in enabled {
        state.retain(|(id, _, _)| id != &e.id);
        state.push((e.id.clone(), e.on, e.scope.clone()));
    }
    let mut markets = Markets { known: store.known().unwrap_or_default(), read: Vec::new() };
    for (id, _, scope) in state.iter().filter(|(_, on, _)| *on) {
        let opened = locate_in(store, &mut markets, id, cwd).and_then(|root| {
            let listed = id.rsplit_once('@').and_then(|(name, market)| {
                let m = markets.get(market)?;
                Some((m.entry(name).ok()?, marketplace::manifest_path(&m.root)))
            });
            Plugin::open_listed(&root, id, scope, listed.as_ref().map(|(e, file)| (*e, file.as_path())))
        });
        match opened {
            Ok(p) => out.plugins.push(p),
            Err(e) => out.problems.push(format!("plugin {id} (enabled in {scope} settings) is not loaded: {e}")),
        }
    }
    for dir in plugin_dirs {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match Plugin::open(dir, &format!("{name}@--plugin-dir"), "flag") {
            Ok(mut p) => {
                p.id = format!("{}@--plugin-dir", p.name);
                out.plugins.retain(|q| q.name != p.name);
                out.plugins.push(p);
            }
            Err(e) => out.problems.push(format!("--plugin-dir {}: {e}", dir.display())),
        }
    }
    out
}

/// The known marketplaces, and those read so far (each read once per load).
struct Markets {
    known: serde_json::Map<String, serde_json::Value>,
    read: Vec<(String, Option<marketplace::Marketplace>)>,
}

impl Markets {
    /// The marketplace `name` (a directory, or the clone of a repository), read.
    fn get(&mut self, name: &str) -> Option<&marketplace::Marketplace> {
        if !self.read.iter().any(|(n, _)| n == name) {
            let entry = self.known.get(name);
            let location = entry.and_then(|e| e["installLocation"].as_str().or(e.pointer("/source/path")?.as_str()));
            let m = location.and_then(|l| marketplace::read(Path::new(l)).ok());
            self.read.push((name.to_string(), m));
        }
        self.read.iter().find(|(n, _)| n == name).and_then(|(_, m)| m.as_ref())
    }

    /// The directory marketplace `name`, read.
    fn directory(&mut self, name: &str) -> Option<&marketplace::Marketplace> {
        let is_dir = self.known.get(name).and_then(|e| e.pointer("/source/source")).and_then(|s| s.as_str())
            == Some("directory");
        if is_dir { self.get(name) } else { None }
    }
}

/// Where the plugin `id` (`plugin@marketplace`) is read from.
fn locate_in(store: &Store, markets: &mut Markets, id: &str, cwd: &Path) -> crate::Result<PathBuf> {
    let (name, market) =
        id.rsplit_once('@').ok_or_else(|| PluginError::Invalid(format!("\"{id}\" is not plugin@marketplace")))?;
    // A directory marketplace: the plugin is read in place.
    if let Some(m) = markets.directory(market)
        && let Ok(e) = m.entry(name)
        && let Ok(Some(dir)) = e.local_dir(&m.root)
    {
        return Ok(dir);
    }
    // Else its installation: this project's first, then the user's.
    let installs = store.installations(id)?;
    let here = |p: &Option<PathBuf>| p.as_deref().is_some_and(|p| cwd.starts_with(p));
    let chosen = installs
        .iter()
        .find(|i| i.scope != "user" && here(&i.project_path))
        .or_else(|| installs.iter().find(|i| i.scope == "user"));
    match chosen {
        Some(i) if i.install_path.is_dir() => Ok(i.install_path.clone()),
        Some(i) => Err(PluginError::Invalid(format!("its folder {} is gone", i.install_path.display()))),
        None => Err(PluginError::Invalid("it is not installed (rein plugin install installs it)".into())),
    }
}
