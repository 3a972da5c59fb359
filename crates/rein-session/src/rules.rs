//! Settings from every scope, and the permission policy built from them and the flags,
//! reading rules as the tools declare them. Any bad file or rule stops rein here.

use std::path::Path;

use rein_policy::{PermissionMode, Policy, PolicyInputs, ToolKinds};
use rein_settings::{Locations, Scope, Settings};

use crate::Options;
use crate::error::{Context, invalid};

/// Where settings live for a session in `cwd`.
pub fn locations(opts: &Options, cwd: &Path, home: Option<&Path>) -> Locations {
    let env = opts.env();
    Locations {
        managed_dir: Some(env.managed_settings_dir.clone()),
        user_dir: env.claude_config_dir.clone().or_else(|| home.map(|h| h.join(".claude"))),
        cwd: cwd.to_path_buf(),
        local_root: rein_prompt::find_git_root(cwd).unwrap_or_else(|| cwd.to_path_buf()),
        cli: opts.settings.clone(),
    }
}

/// Load every settings file and build the policy, reading rules as `tools` declare. Any
/// bad file or rule stops rein here.
pub fn load(opts: &Options, cwd: &Path, home: Option<&Path>, tools: ToolKinds) -> crate::Result<(Settings, Policy)> {
    let mut settings = Settings::load(&locations(opts, cwd, home))?;
    if let Some(sources) = &opts.setting_sources {
        let wanted: Vec<&str> = sources.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        for w in &wanted {
            if !matches!(*w, "user" | "project" | "local") {
                invalid!("--setting-sources: unknown source {w:?} (user, project, local)");
            }
        }
        settings.files.retain(|f| match f.scope {
            Scope::Managed | Scope::Cli => true,
            Scope::User => wanted.contains(&"user"),
            Scope::Project => wanted.contains(&"project"),
            Scope::Local => wanted.contains(&"local"),
        });
    }
    let mode = if opts.dangerously_skip_permissions {
        Some(PermissionMode::BypassPermissions)
    } else {
        match &opts.permission_mode {
            Some(m) => Some(PermissionMode::parse(m).with_context(|| {
                format!("unknown --permission-mode {m:?} (default, acceptEdits, plan, dontAsk, bypassPermissions)")
            })?),
            None => None,
        }
    };
    // `--tools`: the built-in tools not named are not offered (as a bare deny rule).
    let mut disallowed = opts.disallowed_tools.clone();
    if let Some(list) = opts.tools.as_deref().filter(|t| t.trim() != "default") {
        let keep: Vec<&str> = list.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        disallowed.extend(crate::setup::builtin_tool_names()?.into_iter().filter(|t| !keep.contains(&t.as_str())));
    }
    // `--json-schema`: the answer tool touches nothing; answering is always allowed.
    let mut allowed = opts.allowed_tools.clone();
    if opts.json_schema.is_some() {
        allowed.push(rein_tools::STRUCTURED_OUTPUT.to_string());
    }
    let policy = Policy::new(&PolicyInputs {
        settings: settings.clone(),
        allowed_tools: allowed,
        disallowed_tools: disallowed,
        mode,
        cwd: cwd.to_path_buf(),
        home: home.map(Path::to_path_buf),
        add_dirs: opts.add_dir.clone(),
        tools,
    })?;
    Ok((settings, policy))
}
