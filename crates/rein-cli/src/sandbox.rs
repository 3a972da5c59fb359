//! The session's OS sandbox from the settings and flags, and `rein sandbox check`.

use std::path::PathBuf;

use anyhow::Context;
use rein_sandbox::{Sandbox, Tier};

use crate::args::Args;
use rein_session::sandbox::config;

/// `rein sandbox check`: the tier, each mechanism found, and the effective policy.
pub(crate) fn check(args: &Args) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let home = crate::env::Env::read().home;
    let (_, kinds) = crate::session::builtin_tools()?;
    let (settings, policy) = rein_session::rules::load(&args.options(), &cwd, home.as_deref(), kinds)?;
    let mut config = config(&args.options(), &settings, &cwd, home.as_deref());
    let enabled = config.enabled;
    config.enabled = true;
    config.fail_if_unavailable = false;
    let exe = std::env::current_exe().context("cannot find the rein binary")?;
    let forced = crate::env::Env::read().sandbox_tier;
    let sandbox = Sandbox::new(config, &policy.roots, exe, forced)?;
    let p = sandbox.probe();
    println!("enabled: {}", if enabled { "yes" } else { "no (sandbox.enabled or --sandbox turns it on)" });
    println!("tier: {}", sandbox.probe().tier.letter());
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
    let plan = sandbox.plan();
    let c = &sandbox.config;
    let list = |v: &[PathBuf]| v.iter().map(|p| p.display().to_string()).collect::<Vec<_>>();
    println!("write roots: {:?}", list(&plan.write_roots));
    println!("protected (read-only): {:?}", list(&plan.protected));
    if !plan.reopened.is_empty() {
        println!("writable inside them (agents' worktrees): {:?}", list(&plan.reopened));
    }
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
