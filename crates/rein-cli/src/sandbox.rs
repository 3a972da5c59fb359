//! The session's OS sandbox from the settings and flags, and `rein sandbox check`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rein_policy::Policy;
use rein_sandbox::{Anchors, Sandbox, SandboxConfig, Tier};
use rein_settings::Settings;

use crate::args::Args;

/// `--sandbox` / `--no-sandbox`.
fn flag(args: &Args) -> Option<bool> {
    if args.no_sandbox {
        Some(false)
    } else if args.sandbox {
        Some(true)
    } else {
        None
    }
}

/// The configuration in force.
pub fn config(args: &Args, settings: &Settings, cwd: &Path, home: Option<&Path>) -> SandboxConfig {
    SandboxConfig::from_settings(settings, flag(args), &Anchors { cwd, home })
}

/// The session's sandbox, when one is configured. Fails (with the missing pieces named)
/// when `failIfUnavailable` is set and no tier works; warns once when commands will run
/// unsandboxed.
pub fn setup(config: SandboxConfig, policy: &Policy) -> anyhow::Result<Option<Arc<Sandbox>>> {
    if !config.enabled {
        return Ok(None);
    }
    let exe = std::env::current_exe().context("cannot find the rein binary for the sandbox helper")?;
    let forced = crate::env::Env::read().sandbox_tier;
    for ignored in &config.ignored {
        crate::messages::message!("sandbox: ignored {ignored}");
    }
    let sandbox = Sandbox::new(config, &policy.roots, exe.clone(), forced)?;
    if sandbox.roots().iter().any(|r| exe.starts_with(r)) {
        crate::messages::warn_message!(
            "the rein binary lies inside a writable root; a command could replace the helper"
        );
    }
    if !sandbox.is_active() {
        crate::messages::warn_message!("{}", sandbox.summary());
    }
    Ok(Some(Arc::new(sandbox)))
}

/// The proxy's question about a host no rule decides, put to the person through the
/// session's approver as a request to that host (so "don't ask again" remembers a
/// `WebFetch(domain:…)` rule, which the next session's sandbox reads as allowed).
pub fn asker(approver: Arc<dyn rein_engine::Approver>) -> rein_sandbox::proxy::AskHost {
    Arc::new(move |host: String, port: u16| {
        let approver = approver.clone();
        Box::pin(async move {
            let call = rein_protocol::ToolUse {
                id: format!("sandbox-network-{host}-{port}"),
                name: "WebFetch".into(),
                input: serde_json::json!({
                    "url": format!("https://{host}:{port}/"),
                    "prompt": "a network connection from a sandboxed command",
                }),
            };
            let decision = rein_policy::Decision::new(
                rein_policy::Behavior::Ask,
                format!("A sandboxed command wants to connect to {host}:{port}, which no sandbox rule allows."),
                "sandbox network",
            );
            let effects = rein_policy::Effects::contacting(Some(host.clone()));
            approver.approve(&call, &decision, &effects).await.allow
        })
    })
}

/// `rein sandbox check`: the tier, each mechanism found, and the effective policy.
pub fn check(args: &Args) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let home = crate::env::Env::read().home;
    let (_, kinds) = crate::session::builtin_tools()?;
    let (settings, policy) = crate::permissions::load(args, &cwd, home.as_deref(), kinds)?;
    let mut config = config(args, &settings, &cwd, home.as_deref());
    let enabled = config.enabled;
    config.enabled = true;
    config.fail_if_unavailable = false;
    let exe = std::env::current_exe().context("cannot find the rein binary")?;
    let forced = crate::env::Env::read().sandbox_tier;
    let sandbox = Sandbox::new(config, &policy.roots, exe, forced)?;
    let p = &sandbox.probe;
    println!("enabled: {}", if enabled { "yes" } else { "no (sandbox.enabled or --sandbox turns it on)" });
    println!("tier: {}", sandbox.probe.tier.letter());
    match &p.bwrap {
        Ok((path, v)) => println!("bubblewrap: {v} at {}", path.display()),
        Err(e) => println!("bubblewrap: unavailable ({e})"),
    }
    match p.landlock_abi {
        0 => println!("landlock: unavailable"),
        abi => println!("landlock: ABI {abi}"),
    }
    println!("seccomp: {}", if p.seccomp { "available" } else { "unavailable" });
    if let Tier::C { missing } = &p.tier {
        println!("missing: {}", missing.join("; "));
    }
    println!("{}", sandbox.summary());
    let plan = sandbox.plan(&[]);
    let c = &sandbox.config;
    let list = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
    println!("write roots: {:?}", list(&plan.write_roots));
    println!("protected (read-only): {:?}", list(&plan.protected));
    println!("read masks: {:?}", list(&plan.masked));
    if !plan.unmasked.is_empty() {
        println!("re-allowed reads: {:?}", list(&plan.unmasked));
    }
    println!(
        "network: none inside the sandbox (allowed domains {:?}, denied {:?})",
        c.allowed_domains, c.denied_domains
    );
    println!("unix sockets: {}", if c.allow_all_unix_sockets { "allowed" } else { "blocked" });
    println!(
        "unsandboxed commands (dangerouslyDisableSandbox): {}",
        if c.allow_unsandboxed_commands { "allowed, always asked" } else { "not allowed" }
    );
    println!("excluded commands: {:?}", c.excluded_commands);
    println!("auto-allow sandboxed Bash: {}", c.auto_allow_bash);
    for ignored in &c.ignored {
        println!("ignored: {ignored}");
    }
    println!("not sandboxed: hooks and MCP servers (as in Claude Code)");
    Ok(())
}
