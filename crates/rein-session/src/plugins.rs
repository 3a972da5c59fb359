//! The session's plugins ([`rein_plugins`]): those the settings' `enabledPlugins` turn on
//! and those of `--plugin-dir`, their commands, subagents and skills named as Claude
//! Code names them (`plugin:name`; a command also by its bare name when no other has
//! it), their hooks (with `CLAUDE_PLUGIN_ROOT` in the hook's environment and
//! `${CLAUDE_PLUGIN_ROOT}` filled in), their MCP servers (`plugin:<plugin>:<server>`, so
//! tools are `mcp__plugin_<plugin>_<server>__<tool>`) and their output styles. A plugin
//! enabled by a project's settings is used only once the folder is trusted (the
//! interactive session asks first, naming the plugins). A plugin or component that
//! cannot be read is a notice and a `rein doctor` line, never a reason not to start.

use std::path::PathBuf;

use rein_hooks::HookConfig;
use rein_plugins::{Enabled, Plugin, Store};
use serde_json::Value;

use crate::Setup;

/// Where Claude Code keeps plugins for this user: `$CLAUDE_CONFIG_DIR` or `~/.claude`.
pub fn store(env: &crate::env::Env) -> Option<Store> {
    match &env.claude_config_dir {
        Some(dir) => Some(Store::new(dir)),
        None => env.home.as_ref().map(|h| Store::new(&h.join(".claude"))),
    }
}

/// Every `enabledPlugins` entry, broadest scope first.
fn enabled(settings: &rein_settings::Settings) -> Vec<Enabled> {
    let mut out = Vec::new();
    for file in settings.files.iter().rev() {
        for (id, on) in file.get("/enabledPlugins").and_then(Value::as_object).into_iter().flatten() {
            out.push(Enabled {
                id: id.clone(),
                on: on.as_bool().unwrap_or(false),
                scope: file.scope.name().to_string(),
            });
        }
    }
    out
}

/// Read the session's plugins and add their components to `setup` and `hooks`.
pub(crate) fn add(
    setup: &mut Setup,
    settings: &rein_settings::Settings,
    hooks: &mut HookConfig,
    plugin_dirs: &[PathBuf],
    notices: &mut Vec<String>,
) {
    let wanted = enabled(settings);
    let Some(store) = store(&setup.env) else { return };
    notices.extend(undeclared_marketplaces(settings, &store));
    if wanted.is_empty() && plugin_dirs.is_empty() {
        return;
    }
    let loaded = rein_plugins::load(&store, &wanted, plugin_dirs, &setup.cwd);
    setup.plugin_problems = loaded.problems.clone();
    notices.extend(loaded.problems);
    for plugin in &loaded.plugins {
        let name = plugin.name.as_str();
        let agents = rein_prompt::agents::load_plugin_agents(&plugin.agent_paths(), name);
        let (commands, skipped_commands) = rein_prompt::commands::load_plugin_commands(&plugin.command_paths(), name);
        let (skills, skipped_skills) = rein_prompt::skills::load_plugin_skills(&plugin.skill_paths(), name);
        let (workflows, skipped_workflows) = rein_prompt::workflows::load_plugin_workflows(&plugin.root, name);
        setup.workflows.extend(workflows);
        for s in agents.skipped.iter().chain(&skipped_commands).chain(&skipped_skills).chain(&skipped_workflows) {
            setup.plugin_problems.push(format!("plugin {}: {s}", plugin.id));
        }
        setup.agents.extend(agents.agents);
        // A skill and a command of one name are the skill, as in the project's folders.
        let invocable: Vec<&rein_prompt::skills::SkillDef> = skills.iter().filter(|s| s.user_invocable).collect();
        setup.commands.extend(commands.into_iter().filter(|c| !invocable.iter().any(|s| s.name == c.name)));
        setup.commands.extend(invocable.into_iter().map(crate::definitions::skill_command));
        setup.skills.extend(skills);
        for found in plugin.hooks() {
            let added = found.map_err(|e| e.to_string()).and_then(|(value, origin)| {
                let value = with_plugin_root(&value, plugin);
                hooks.add_definition(&value, &origin, false).map_err(|e| e.to_string())
            });
            match added {
                Ok(true) => {}
                Ok(false) => {
                    notices.push(format!("plugin {}: its hooks are off (the settings allow no such hooks)", plugin.id));
                }
                Err(e) => setup.plugin_problems.push(format!("plugin {}: hooks not used: {e}", plugin.id)),
            }
        }
    }
    setup.plugins = loaded.plugins;
}

/// A notice for each marketplace the settings declare (`extraKnownMarketplaces`) that is
/// not added yet: as in Claude Code, adding it is the person's step.
fn undeclared_marketplaces(settings: &rein_settings::Settings, store: &Store) -> Vec<String> {
    let declared: Vec<(&rein_settings::SettingsFile, &serde_json::Map<String, Value>)> = settings
        .files
        .iter()
        .filter_map(|f| f.get("/extraKnownMarketplaces").and_then(Value::as_object).map(|m| (f, m)))
        .collect();
    // The record is read only when some settings declare a marketplace.
    if declared.is_empty() {
        return Vec::new();
    }
    let known = store.known().unwrap_or_default();
    let mut out = Vec::new();
    for (file, map) in declared {
        for (name, entry) in map {
            if !known.contains_key(name) {
                let s = &entry["source"];
                let source = s["repo"].as_str().or(s["url"].as_str()).or(s["path"].as_str()).unwrap_or("?");
                out.push(format!(
                    "{} declares the plugin marketplace {name}; add it with: rein plugin marketplace add {source}",
                    file.origin()
                ));
            }
        }
    }
    out
}

/// The plugins' output styles (`plugin:name`).
pub(crate) fn output_styles(plugins: &[Plugin]) -> Vec<rein_prompt::output_styles::OutputStyle> {
    let dirs = plugins.iter().flat_map(|p| p.output_style_paths().into_iter().map(move |d| (d, p.name.clone())));
    dirs.flat_map(|(dir, name)| rein_prompt::output_styles::load_plugin_styles(&dir, &name)).collect()
}

/// Each shell-form command of `hooks` run with `CLAUDE_PLUGIN_ROOT` in its environment.
fn with_plugin_root(hooks: &Value, plugin: &Plugin) -> Value {
    let root = plugin.root.display().to_string().replace('\'', "'\\''");
    let mut hooks = hooks.clone();
    for groups in hooks.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
        for group in groups.as_array_mut().into_iter().flatten() {
            // Malformed entries are left as they are: the hook configuration reports them.
            let handlers = group.get_mut("hooks").and_then(Value::as_array_mut);
            for handler in handlers.into_iter().flatten().filter_map(Value::as_object_mut) {
                let shell_form = !handler.contains_key("args");
                if let (true, Some(cmd)) = (shell_form, handler.get("command").and_then(Value::as_str)) {
                    let wrapped = format!("export CLAUDE_PLUGIN_ROOT='{root}'; {cmd}");
                    handler.insert("command".into(), Value::String(wrapped));
                }
            }
        }
    }
    hooks
}

/// The plugins' MCP servers, as `plugin:<plugin>:<server>` entries.
pub(crate) fn mcp_servers(setup: &Setup) -> Vec<rein_mcp::ServerConfig> {
    servers_of(&setup.plugins)
}

/// The MCP servers of `plugins`.
fn servers_of(plugins: &[Plugin]) -> Vec<rein_mcp::ServerConfig> {
    let mut out = Vec::new();
    for plugin in plugins {
        let servers = match plugin.mcp_servers() {
            Ok(servers) => servers,
            Err(e) => {
                tracing::warn!(plugin = %plugin.id, error = %e, "the plugin's MCP servers are not used");
                continue;
            }
        };
        let origin = format!("plugin {} ({})", plugin.id, plugin.root.display());
        for (server, mut entry) in servers {
            if let Some(env) = entry
                .as_object_mut()
                .map(|e| e.entry("env").or_insert_with(|| Value::Object(Default::default())))
                .and_then(Value::as_object_mut)
            {
                env.insert("CLAUDE_PLUGIN_ROOT".into(), Value::String(plugin.root.display().to_string()));
            }
            let name = format!("plugin:{}:{server}", plugin.name);
            // A plugin's `${VAR}` never passes rein's own credentials to its server.
            let vars = rein_mcp::config::without_credentials(&crate::env::Env::raw);
            match rein_mcp::config::server_entry(&name, &entry, rein_mcp::Source::Dynamic, &origin, &vars) {
                Ok(s) => out.push(s),
                Err(p) => {
                    tracing::warn!(plugin = %plugin.id, problem = %p.message, "a plugin's MCP server is not used");
                }
            }
        }
    }
    out
}

/// The MCP servers of the plugins the settings enable, as `rein doctor` lists them.
pub(crate) fn enabled_servers(
    settings: &rein_settings::Settings,
    env: &crate::env::Env,
    cwd: &std::path::Path,
) -> Vec<rein_mcp::ServerConfig> {
    let Some(store) = store(env) else { return Vec::new() };
    servers_of(&rein_plugins::load(&store, &enabled(settings), &[], cwd).plugins)
}

/// `rein doctor`'s lines: each plugin with where it is read from and its components
/// (language servers started when first used), then what could not be loaded.
pub(crate) fn doctor_lines(
    settings: &rein_settings::Settings,
    env: &crate::env::Env,
    cwd: &std::path::Path,
    plugin_dirs: &[PathBuf],
) -> Vec<String> {
    let Some(store) = store(env) else { return Vec::new() };
    let loaded = rein_plugins::load(&store, &enabled(settings), plugin_dirs, cwd);
    let mut lines = Vec::new();
    for p in &loaded.plugins {
        let count = |paths: Vec<PathBuf>, what: &str| format!("{} {what}", paths.len());
        let servers =
            p.mcp_servers().map(|m| m.keys().cloned().collect::<Vec<_>>().join(", ")).unwrap_or_else(|e| e.to_string());
        let lsp = p.lsp_servers().map(|m| m.len()).unwrap_or(0);
        lines.push(format!(
            "{} (enabled in {} settings) from {}: {}, {}, {}, {} hook file(s), MCP servers [{servers}], {lsp} language server(s)",
            p.id,
            p.scope,
            p.root.display(),
            count(p.command_paths(), "command folder(s)"),
            count(p.agent_paths(), "agent folder(s)"),
            count(p.skill_paths(), "skill folder(s)"),
            p.hooks().len(),
        ));
    }
    lines.extend(loaded.problems);
    lines
}
