//! The session's language servers ([`rein_lsp`]): those of its plugins
//! (`plugin:<plugin>:<server>`, with `CLAUDE_PLUGIN_ROOT` in their environment) and those
//! of the settings' `lspServers` (same form as a plugin's `.lsp.json`). None is started
//! here: each starts the first time a file of its language is used. `${VAR}` in an entry
//! never passes rein's own credentials. An entry rein cannot use is a notice and a
//! `rein doctor` line.

use std::sync::Arc;

use rein_lsp::{LanguageServers, ServerSpec};
use rein_plugins::Plugin;
use serde_json::Value;

use crate::Setup;

/// Every usable entry of `plugins` and `settings`, and why the others are not used.
pub(crate) fn specs(plugins: &[Plugin], settings: &rein_settings::Settings) -> (Vec<ServerSpec>, Vec<String>) {
    let vars = rein_mcp::config::without_credentials(&crate::env::Env::raw);
    let expand = |s: &str| rein_mcp::config::expand(s, &vars);
    let (mut specs, mut problems) = (Vec::new(), Vec::new());
    for file in settings.files.iter() {
        for (name, entry) in file.get("/lspServers").and_then(Value::as_object).into_iter().flatten() {
            match ServerSpec::parse(name, entry, &file.origin(), &expand) {
                Ok(spec) => specs.push(spec),
                Err(e) => problems.push(e.to_string()),
            }
        }
    }
    for plugin in plugins {
        let servers = match plugin.lsp_servers() {
            Ok(servers) => servers,
            Err(e) => {
                problems.push(format!("plugin {}: its language servers are not used: {e}", plugin.id));
                continue;
            }
        };
        let origin = format!("plugin {} ({})", plugin.id, plugin.root.display());
        for (server, entry) in servers {
            let name = format!("plugin:{}:{server}", plugin.name);
            match ServerSpec::parse(&name, &entry, &origin, &expand) {
                Ok(mut spec) => {
                    spec.env.insert("CLAUDE_PLUGIN_ROOT".into(), plugin.root.display().to_string());
                    specs.push(spec);
                }
                Err(e) => problems.push(e.to_string()),
            }
        }
    }
    (specs, problems)
}

/// Give `setup` its language servers (none started yet). Where a folder's programs wait
/// for its trust (`rein mcp serve`) and it is not trusted, there are none: a language
/// server runs the project's own code (TypeScript's server from its `node_modules`,
/// rust-analyzer its build scripts), whoever configured the server.
pub(crate) fn add(
    setup: &mut Setup,
    settings: &rein_settings::Settings,
    opts: &crate::Options,
    notices: &mut Vec<String>,
) {
    let (specs, problems) = specs(&setup.plugins, settings);
    notices.extend(problems.iter().map(|p| format!("warning: {p}")));
    setup.plugin_problems.extend(problems);
    if specs.is_empty() {
        return;
    }
    if opts.hooks_wait_for_trust && crate::rules::folder_untrusted(opts, &setup.cwd, setup.env.home.as_deref()) {
        notices.push("this folder is not trusted yet, so no language server runs in it".into());
        return;
    }
    let guard: Arc<dyn rein_tools::ReadGuard> = setup.policy.clone();
    setup.language_servers = Some(Arc::new(LanguageServers::new(specs, &setup.cwd).with_read_rules(guard)));
}
