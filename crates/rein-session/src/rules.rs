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
        user_dir: env.claude_config_dir.or_else(|| home.map(|h| h.join(".claude"))),
        cwd: cwd.to_path_buf(),
        local_root: rein_prompt::find_git_root(cwd).unwrap_or_else(|| cwd.to_path_buf()),
        cli: opts.settings.clone(),
    }
}

/// What a folder nobody trusted may not do through its own settings (project and local):
/// allow calls, reach more directories, set the environment (and, where the options say
/// so, run its hooks). As in Claude Code, those
/// wait for the folder's trust (the interactive question); deny and ask rules apply at
/// once. Headless, the person is told what was set aside.
fn untrusted_folder(opts: &Options, cwd: &Path, home: Option<&Path>, settings: &mut Settings) {
    const WAITING: [(&str, &str); 3] =
        [("/permissions", "allow"), ("/permissions", "additionalDirectories"), ("", "env")];
    if !folder_untrusted(opts, cwd, home) {
        return;
    }
    let mut set_aside = Vec::new();
    // Language servers are programs the folder would run, as its hooks are.
    let programs = if opts.hooks_wait_for_trust { vec![("", "hooks"), ("", "lspServers")] } else { Vec::new() };
    for file in settings.files.iter_mut().filter(|f| f.scope.is_repository()) {
        for (parent, key) in WAITING.into_iter().chain(programs.iter().copied()) {
            let removed = match file.value.pointer_mut(parent).and_then(|v| v.as_object_mut()) {
                Some(map) => map.remove(key).is_some(),
                None => false,
            };
            if removed {
                set_aside.push(format!("{} ({})", key, file.origin()));
            }
        }
    }
    if !set_aside.is_empty() {
        crate::note_message!(
            "this folder is not trusted yet, so its settings' {} are not applied; run rein here interactively once \
             to trust it",
            set_aside.join(", ")
        );
    }
}

/// Whether the folder is not trusted yet (and not trusted for this session only).
pub(crate) fn folder_untrusted(opts: &Options, cwd: &Path, home: Option<&Path>) -> bool {
    if opts.trusted_for_session {
        return false;
    }
    let env = opts.env();
    let Some(claude_json) = crate::mcp::claude_json(&env) else { return false };
    !crate::trust::is_trusted(&claude_json, cwd, home)
}

/// The built-in tools `--restricted` leaves out unless `--tools` names them: those that
/// run programs (the shell) and WebFetch.
pub const RESTRICTED_OFF: &[&str] = &["Bash", "WebFetch"];

/// Load every settings file and build the policy, reading rules as `tools` declare. A
/// file that does not parse stops rein here.
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
    let restricted = opts.is_restricted();
    if restricted {
        // Only the organisation's settings and what this command line gives — but of the
        // person's and the project's, what tightens still holds (a restricted session is
        // never looser than a plain one).
        for file in settings.files.iter_mut().filter(|f| !matches!(f.scope, Scope::Managed | Scope::Cli)) {
            file.value = crate::safe_mode::tightening_only(&file.value);
        }
    }
    untrusted_folder(opts, cwd, home, &mut settings);
    let bypass_asked = opts.dangerously_skip_permissions
        || opts.permission_mode.as_deref().and_then(PermissionMode::parse) == Some(PermissionMode::BypassPermissions);
    if restricted && bypass_asked {
        invalid!("--restricted refuses bypassPermissions (--dangerously-skip-permissions, --permission-mode)");
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
        disallowed.extend(crate::builtin::builtin_tool_names()?.into_iter().filter(|t| !keep.contains(&t.as_str())));
    } else if restricted {
        // No tool that runs programs or fetches pages, unless `--tools` names it.
        disallowed.extend(RESTRICTED_OFF.iter().map(|t| t.to_string()));
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
    let mut policy = policy;
    if restricted && policy.mode == PermissionMode::BypassPermissions {
        invalid!("--restricted refuses bypassPermissions (here from {})", policy.mode_source);
    }
    if restricted {
        policy.block_outside_reads = true;
        policy.bypass_disabled = true;
        policy.skill_shell_disabled = true;
    }
    Ok((settings, policy))
}
