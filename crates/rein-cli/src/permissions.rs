//! Settings and the permission policy for a session, and `rein permissions check|list`.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rein_policy::{Call, PermissionMode, Policy, PolicyInputs};
use rein_settings::{Locations, Settings};
use serde_json::{Value, json};

use crate::args::{Args, PermissionsAction};

/// Where settings live for a session in `cwd`.
pub fn locations(args: &Args, cwd: &Path, home: Option<&Path>) -> Locations {
    let managed_dir = std::env::var_os("REIN_MANAGED_SETTINGS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/etc/claude-code"));
    let user_dir = std::env::var_os("CLAUDE_CONFIG_DIR").map(PathBuf::from).or_else(|| home.map(|h| h.join(".claude")));
    Locations {
        managed_dir: Some(managed_dir),
        user_dir,
        cwd: cwd.to_path_buf(),
        local_root: rein_prompt::find_git_root(cwd).unwrap_or_else(|| cwd.to_path_buf()),
        cli: args.settings.clone(),
    }
}

/// Load every settings file and build the policy. Any bad file or rule stops rein here.
pub fn load(args: &Args, cwd: &Path, home: Option<&Path>) -> anyhow::Result<(Settings, Policy)> {
    let settings = Settings::load(&locations(args, cwd, home))?;
    let mode = if args.dangerously_skip_permissions {
        Some(PermissionMode::BypassPermissions)
    } else {
        match &args.permission_mode {
            Some(m) => Some(PermissionMode::parse(m).with_context(|| {
                format!("unknown --permission-mode {m:?} (default, acceptEdits, plan, dontAsk, bypassPermissions)")
            })?),
            None => None,
        }
    };
    let policy = Policy::new(&PolicyInputs {
        settings: settings.clone(),
        allowed_tools: args.allowed_tools.clone(),
        disallowed_tools: args.disallowed_tools.clone(),
        mode,
        cwd: cwd.to_path_buf(),
        home: home.map(Path::to_path_buf),
        add_dirs: args.add_dir.clone(),
    })?;
    Ok((settings, policy))
}

/// `rein permissions …`.
pub fn run(args: &Args, action: &PermissionsAction) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let (_, policy) = load(args, &cwd, home.as_deref())?;
    match action {
        PermissionsAction::List => {
            println!("mode: {} (from {})", policy.mode.name(), policy.mode_source);
            let roots: Vec<String> = policy.roots.iter().map(|r| r.display().to_string()).collect();
            println!("workspace: {}", roots.join(", "));
            for rule in policy.rules() {
                println!("{:5}  {:40}  {}", rule.kind.name(), rule.text, rule.origin);
            }
            Ok(())
        }
        PermissionsAction::Check { call } => {
            let (tool, input) = parse_call(call, &cwd)?;
            let read_only = match tool.as_str() {
                "Read" | "Glob" | "Grep" | "WebFetch" => true,
                "Bash" => rein_bash::analyze(input["command"].as_str().unwrap_or_default()).is_read_only(),
                _ => false,
            };
            let d = policy.decide(&Call { tool: &tool, input: &input, read_only });
            println!("{}: {tool} {input}", d.behavior.name().to_uppercase());
            println!("  why: {}", d.reason);
            println!("  decided by: {}", d.source);
            println!("  mode: {} (from {})", policy.mode.name(), policy.mode_source);
            Ok(())
        }
    }
}

/// `Tool(argument)` → the tool name and an input for it.
fn parse_call(text: &str, cwd: &Path) -> anyhow::Result<(String, Value)> {
    let t = text.trim();
    let (tool, arg) = match t.find('(') {
        Some(open) => match t[open + 1..].strip_suffix(')') {
            Some(arg) => (&t[..open], arg),
            None => bail!("write the call as Tool(argument), e.g. 'Bash(git push)'"),
        },
        None => (t, ""),
    };
    let path = |p: &str| if Path::new(p).is_absolute() { p.to_string() } else { cwd.join(p).display().to_string() };
    let input = match tool {
        "Bash" => json!({"command": arg}),
        "Read" | "Edit" | "Write" | "MultiEdit" => json!({"file_path": path(arg)}),
        "NotebookEdit" => json!({"notebook_path": path(arg)}),
        "Glob" | "Grep" => json!({"path": path(if arg.is_empty() { "." } else { arg }), "pattern": "*"}),
        "WebFetch" => json!({"url": arg, "prompt": ""}),
        _ => json!({}),
    };
    Ok((tool.to_string(), input))
}
