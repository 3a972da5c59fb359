//! The session's OS sandbox from the settings and flags, and how its network question
//! reaches the person.

use std::path::Path;
use std::sync::Arc;

use rein_policy::Policy;
use rein_sandbox::{Anchors, Sandbox, SandboxConfig};
use rein_settings::Settings;

use crate::Options;
use crate::error::Context;

/// `--sandbox` / `--no-sandbox`.
fn flag(opts: &Options) -> Option<bool> {
    if opts.no_sandbox {
        Some(false)
    } else if opts.sandbox {
        Some(true)
    } else {
        None
    }
}

/// The configuration in force.
pub fn config(opts: &Options, settings: &Settings, cwd: &Path, home: Option<&Path>) -> SandboxConfig {
    let mut config = SandboxConfig::from_settings(settings, flag(opts), &Anchors { cwd, home });
    let env = opts.env();
    // Every credential store rein or Claude Code keeps is masked from every sandboxed
    // command: the token store (MCP OAuth tokens, Claude Code's credentials) and
    // `.claude.json` (MCP servers' headers and tokens, the API key Claude Code keeps).
    let user_dir = crate::rules::locations(opts, cwd, home).user_dir;
    if let Some(dir) = &user_dir {
        config.deny_read.push(dir.join(".credentials.json").display().to_string());
    }
    for claude_json in [env.claude_config_dir.as_deref(), home].into_iter().flatten() {
        config.deny_read.push(claude_json.join(".claude.json").display().to_string());
    }
    // rein's own state — sessions, transcripts, checkpoints, saved outputs — and the
    // person's Claude Code settings are never writable from inside, wherever they lie
    // (`REIN_HOME` inside the project, a home that is the workspace).
    config.deny_write.push(env.rein_home.display().to_string());
    // Background sessions' folders: their prompts, and the sockets whose keys answer
    // their questions (a command allowed Unix sockets must not type into a session).
    config.deny_read.push(env.rein_home.join("jobs").display().to_string());
    if let Some(dir) = &user_dir {
        config.deny_write.push(dir.display().to_string());
    }
    config
}

/// The session's sandbox. Made whether or not the person turned it on: what rein allows
/// by its own judgement runs inside it either way (the host is looked at only when the
/// first such command runs, unless the sandbox is on). Fails (with the missing pieces
/// named) when `failIfUnavailable` is set and no tier works; warns once when the
/// person's commands will run unsandboxed. `None` only when rein cannot find itself to
/// run as the helper.
pub fn setup(
    config: SandboxConfig,
    policy: &Policy,
    forced: Option<char>,
    notices: &mut Vec<String>,
) -> crate::Result<Option<Arc<Sandbox>>> {
    let enabled = config.enabled;
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) if !enabled => {
            tracing::warn!(error = %e, "no sandbox helper: rein's own allowances are not confined");
            return Ok(None);
        }
        Err(e) => return Err(e).context("cannot find the rein binary for the sandbox helper"),
    };
    if enabled {
        for ignored in &config.ignored {
            notices.push(format!("sandbox: ignored {ignored}"));
        }
    }
    let sandbox = Sandbox::new(config, &policy.roots, jail_beside(&exe), forced)?;
    if enabled && sandbox.roots().iter().any(|r| exe.starts_with(r)) {
        notices.push("warning: the rein binary lies inside a writable root; a command could replace the helper".into());
    }
    if enabled && !sandbox.is_active() {
        notices.push(format!("warning: {}", sandbox.summary()));
    }
    Ok(Some(Arc::new(sandbox)))
}

/// The binary that runs the sandbox's stages: `rein-jail` beside rein (built with it),
/// which starts in a fraction of rein's time; rein itself otherwise.
pub fn jail_beside(exe: &Path) -> std::path::PathBuf {
    let jail = exe.with_file_name("rein-jail");
    match std::fs::metadata(&jail) {
        Ok(m) if m.is_file() => jail,
        _ => exe.to_path_buf(),
    }
}

/// The proxy's question about a host no rule decides, put to the person through the
/// session's approver as a network question (its answer in the audit trail; "don't ask
/// again" remembers a `WebFetch(domain:…)` rule, which the next session's sandbox reads
/// as allowed).
pub fn asker(approver: Arc<dyn rein_engine::Approver>) -> rein_sandbox::proxy::AskHost {
    Arc::new(move |host: String, port: u16| {
        let approver = approver.clone();
        Box::pin(async move { rein_engine::ask_network(Some(approver.as_ref()), &host, port).await })
    })
}
