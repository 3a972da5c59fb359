//! `rein doctor`: what rein makes of this folder's and this user's configuration, with
//! nothing left out — the trust of the folder, the settings files and every key rein does
//! not act on, hooks of events rein never raises or of handler types it does not run,
//! the subagents, commands and skills loaded and every file skipped, each MCP server's
//! state, the sandbox tier. Each finding names its file and line. Reading it runs
//! nothing of the folder's (no hook, no helper, no server).

use std::path::Path;

use rein_hooks::{HandlerKind, HookConfig, HookEvent};
use rein_mcp::policy::{Held, ServerPolicy};
use rein_settings::Settings;

use crate::Options;
use crate::definitions::Definitions;

/// One part of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub title: &'static str,
    pub lines: Vec<String>,
}

/// The report, section by section.
pub fn report(opts: &Options) -> crate::Result<Vec<Section>> {
    let env = opts.env();
    let cwd = match &opts.cwd {
        Some(dir) => dir.clone(),
        None => {
            std::env::current_dir().map_err(|e| crate::SetupError::Invalid(format!("no working directory: {e}")))?
        }
    };
    let home = env.home.clone();
    let kinds = crate::builtin_kinds()?;
    let (settings, policy) = crate::rules::load(opts, &cwd, home.as_deref(), kinds)?;
    let mut out = vec![folder(&env, &cwd), settings_files(&settings)];
    out.push(Section {
        title: "Persistent memory",
        lines: vec![match crate::auto_memory::memory_dir(&settings, &env, &cwd) {
            Some(dir) => format!(
                "{}/ ({} memories; autoMemoryEnabled, autoMemoryDirectory, CLAUDE_CODE_DISABLE_AUTO_MEMORY)",
                dir.display(),
                rein_prompt::auto_memory::list(&dir).len()
            ),
            None => "off (autoMemoryEnabled: false or CLAUDE_CODE_DISABLE_AUTO_MEMORY=1)".into(),
        }],
    });
    let noted: Vec<String> = rein_settings::schema::noted(&settings).iter().map(ToString::to_string).collect();
    out.push(Section { title: "Settings keys rein does not act on", lines: or_none(noted) });
    out.push(hooks(&settings)?);
    let mut defs = Definitions::load(&cwd, home.as_deref());
    defs.skipped.extend(rein_prompt::output_styles::load_output_styles_with_skipped(&cwd, home.as_deref()).1);
    out.extend(definitions(&defs));
    out.push(Section {
        title: "Plugins",
        lines: or_none(crate::plugins::doctor_lines(&settings, &env, &cwd, &opts.plugin_dirs)),
    });
    out.push(mcp(opts, &settings, &cwd, &env)?);
    let probe = rein_sandbox::detect::probe(None, &policy.roots, env.sandbox_tier);
    let enabled = crate::sandbox::config(opts, &settings, &cwd, home.as_deref()).enabled;
    out.push(Section {
        title: "Sandbox",
        lines: vec![format!(
            "tier {} available; {} (rein sandbox check shows the details)",
            probe.tier.letter(),
            if enabled { "enabled for Bash" } else { "not enabled (sandbox.enabled or --sandbox)" }
        )],
    });
    Ok(out)
}

/// One line naming the settings keys rein ignores (not supported yet, or unknown), with
/// where each is set; `rein doctor` lists them all.
pub(crate) fn ignored_keys(settings: &rein_settings::Settings) -> Option<String> {
    use rein_settings::schema::Class;
    let named: Vec<String> = rein_settings::schema::noted(settings)
        .into_iter()
        .filter_map(|n| match n.class {
            Class::NotSupported => Some(format!("{} ({})", n.key, n.at)),
            Class::Unknown => Some(format!("{} (unknown; {})", n.key, n.at)),
            Class::NotApplicable(_) => None,
        })
        .collect();
    (!named.is_empty()).then(|| format!("note: settings rein ignores: {} (`rein doctor` says more)", named.join(", ")))
}

fn or_none(lines: Vec<String>) -> Vec<String> {
    if lines.is_empty() { vec!["none".into()] } else { lines }
}

fn folder(env: &crate::env::Env, cwd: &Path) -> Section {
    let trust = match crate::mcp::claude_json(env) {
        Some(file) if crate::trust::is_trusted(&file, cwd, env.home.as_deref()) => {
            format!("trusted (in {})", file.display())
        }
        Some(file) => {
            format!("not trusted yet (an interactive session asks first; the answer goes to {})", file.display())
        }
        None => "no home directory: trust cannot be recorded".into(),
    };
    Section { title: "Folder", lines: vec![cwd.display().to_string(), trust] }
}

fn settings_files(settings: &Settings) -> Section {
    let lines = settings.files.iter().map(|f| format!("{} ({})", f.origin(), f.scope.name())).collect();
    Section { title: "Settings files", lines: or_none(lines) }
}

/// Events rein never raises and handlers it does not run, where they are written.
fn hooks(settings: &Settings) -> crate::Result<Section> {
    let config = HookConfig::from_settings(settings)?;
    let mut lines = Vec::new();
    for (event, groups) in &config.events {
        let handlers: usize = groups.iter().map(|g| g.handlers.len()).sum();
        lines.push(format!("{event}: {handlers} handler(s)"));
    }
    // Events rein does not know (a newer Claude Code's): named, their hooks skipped.
    lines.extend(config.warnings.iter().cloned());
    for file in &settings.files {
        let Some(map) = file.get("/hooks").and_then(|v| v.as_object()) else { continue };
        for name in map.keys() {
            let at = file.line_of(name).map(|l| format!("{}:{l}", file.origin())).unwrap_or_else(|| file.origin());
            if HookEvent::parse(name).is_some_and(|e| !e.fired_by_rein()) {
                lines.push(format!("{at}: {name} hooks are accepted, but rein never raises {name}"));
            }
        }
    }
    for groups in config.events.values() {
        for h in groups.iter().flat_map(|g| &g.handlers) {
            if let HandlerKind::Unsupported(kind) = &h.kind {
                lines.push(format!("{}: `{kind}` is not a hook type; the handler never runs", h.origin));
            }
        }
    }
    Ok(Section { title: "Hooks", lines: or_none(lines) })
}

fn definitions(defs: &Definitions) -> Vec<Section> {
    let agents = defs.agents.iter().map(|a| format!("{} ({})", a.name, a.path.display())).collect();
    let commands = defs.commands.iter().map(|c| format!("/{} ({})", c.name, c.label)).collect();
    let skills = defs.skills.iter().map(|s| format!("{} ({})", s.name, s.dir.display())).collect();
    let skipped = defs.skipped.iter().map(ToString::to_string).collect();
    vec![
        Section { title: "Subagents", lines: or_none(agents) },
        Section { title: "Commands", lines: or_none(commands) },
        Section { title: "Skills", lines: or_none(skills) },
        Section { title: "Definitions skipped", lines: or_none(skipped) },
    ]
}

fn mcp(opts: &Options, settings: &Settings, cwd: &Path, env: &crate::env::Env) -> crate::Result<Section> {
    let disabled: Vec<String> = settings.strings("/disabledMcpjsonServers").into_iter().map(|(s, _)| s).collect();
    let loc = rein_mcp::Locations {
        project: cwd.to_path_buf(),
        claude_json: crate::mcp::claude_json(env),
        cli: opts.mcp_config.clone(),
        strict: opts.strict_mcp_config,
        disabled_project: disabled,
    };
    let mut loaded = rein_mcp::config::load(&loc, &|k| crate::env::Env::raw(k))?;
    if !opts.strict_mcp_config {
        loaded.servers.extend(crate::plugins::enabled_servers(settings, env, cwd));
    }
    let policy = ServerPolicy::from_settings(settings, true);
    let mut lines: Vec<String> = loaded
        .servers
        .iter()
        .map(|s| {
            let state = match policy.hold(s) {
                None => "starts with the session",
                Some(Held::NeedsApproval) => "waits for approval (asked in an interactive session)",
                Some(Held::Blocked) => "blocked by the managed MCP server policy",
            };
            format!("{} ({}): {state}", s.name, s.source.name())
        })
        .collect();
    lines.extend(loaded.problems.iter().map(|p| format!("{}: {}: skipped: {}", p.file, p.name, p.message)));
    if !lines.is_empty() {
        lines.push("(rein mcp list connects to each and checks it)".into());
    }
    Ok(Section { title: "MCP servers", lines: or_none(lines) })
}
