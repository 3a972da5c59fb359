//! Twenty enabled plugins (from one directory marketplace, as `claude plugin` leaves
//! them), each with commands, subagents, skills, a hook file and an MCP server: how much
//! later the first request goes than with none, and that headless waits for every
//! plugin server (each records its start time) so its tools are in the first request.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use rein_testkit::{FakeServer, Scenario, reply, text};
use serde_json::json;

use crate::{Row, ms, percentile, rein_direct, spawn_and_measure};

const PLUGINS: usize = 20;

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(path.parent().context("a path with a parent")?)?;
    std::fs::write(path, text)?;
    Ok(())
}

/// The marketplace in `home/mkt`, its plugins installed and enabled in the user's settings;
/// each plugin's server writes the time it started to `stamps/`.
pub(crate) fn install(home: &Path) -> anyhow::Result<()> {
    let market = home.join("mkt");
    let mut entries = Vec::new();
    let mut enabled = serde_json::Map::new();
    for p in 0..PLUGINS {
        let name = format!("plug{p}");
        let root = market.join(&name);
        write(&root.join(".claude-plugin/plugin.json"), &json!({"name": name, "version": "1.0.0"}).to_string())?;
        for c in 0..5 {
            write(
                &root.join(format!("commands/cmd{c}.md")),
                "---\ndescription: A command\n---\nDo it for $ARGUMENTS\n",
            )?;
        }
        for a in 0..3 {
            write(
                &root.join(format!("agents/agent{a}.md")),
                &format!("---\nname: agent{a}\ndescription: An agent\n---\nYou help.\n"),
            )?;
        }
        for s in 0..2 {
            write(&root.join(format!("skills/skill{s}/SKILL.md")), "---\ndescription: A skill\n---\nSteps.\n")?;
        }
        let hook = json!({"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]}});
        write(&root.join("hooks/hooks.json"), &hook.to_string())?;
        let stamp = home.join(format!("stamps/{name}"));
        let server = crate::slow_mcp::slow_server("0", Some(&stamp));
        write(&root.join(".mcp.json"), &json!({"mcpServers": {"srv": server}}).to_string())?;
        entries.push(json!({"name": name, "source": format!("./{name}")}));
        enabled.insert(format!("{name}@benchmkt"), json!(true));
    }
    std::fs::create_dir_all(home.join("stamps"))?;
    write(
        &market.join(".claude-plugin/marketplace.json"),
        &json!({"name": "benchmkt", "owner": {"name": "b"}, "plugins": entries}).to_string(),
    )?;
    let known = json!({"benchmkt": {"source": {"source": "directory", "path": market}, "installLocation": market, "lastUpdated": "2026-01-01T00:00:00.000Z"}});
    write(&home.join(".claude/plugins/known_marketplaces.json"), &known.to_string())?;
    write(&home.join(".claude/settings.json"), &json!({"enabledPlugins": enabled}).to_string())?;
    Ok(())
}

/// One start in `home`: when the first request came, and whether every plugin server
/// had started before it.
fn first_request(bin: &Path, home: &Path, project: &Path) -> anyhow::Result<(std::time::Duration, bool)> {
    let _ = std::fs::remove_dir_all(home.join("stamps"));
    std::fs::create_dir_all(home.join("stamps"))?;
    let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
    let mut cmd = rein_direct(bin, project, home, &server);
    cmd.args(["-p", "hi"]);
    let t0 = Instant::now();
    if !spawn_and_measure(&mut cmd)?.ok {
        bail!("rein -p with plugins failed");
    }
    let req = server.requests().into_iter().next().context("no request")?;
    // A server stamp earlier than the request: it started before it.
    let epoch_at_request = std::time::SystemTime::now() - req.received_at.elapsed();
    let request_ns = epoch_at_request.duration_since(std::time::UNIX_EPOCH)?.as_nanos();
    let stamps: Vec<_> = std::fs::read_dir(home.join("stamps"))?.flatten().collect();
    let mut waited = stamps.len() == PLUGINS || !home.join("mkt").exists();
    for e in stamps {
        let started: u128 = std::fs::read_to_string(e.path())?.trim().parse().unwrap_or(u128::MAX);
        waited &= started < request_ns;
    }
    Ok((req.received_at.duration_since(t0), waited))
}

/// Starts with and without the plugins, taken in turn (so that the machine's drift
/// falls on both), 20 of each after 2 unmeasured; the medians' difference.
pub(crate) fn rows(bin: &Path) -> anyhow::Result<Vec<Row>> {
    let (project, bare, home) = (tempfile::tempdir()?, tempfile::tempdir()?, tempfile::tempdir()?);
    install(home.path())?;
    let (mut without, mut with, mut waited) = (Vec::new(), Vec::new(), true);
    for round in 0..22 {
        let (a, _) = first_request(bin, bare.path(), project.path())?;
        let (b, ok) = first_request(bin, home.path(), project.path())?;
        waited &= ok;
        if round >= 2 {
            without.push(a);
            with.push(b);
        }
    }
    without.sort();
    with.sort();
    let grown = percentile(&with, 0.5).saturating_sub(percentile(&without, 0.5));
    Ok(vec![
        (format!("start → first request grows with {PLUGINS} plugins (medians of 20)"), ms(grown), "≤ 5 ms".into()),
        (
            "plugin MCP servers started before the first request (headless waits for them)".into(),
            if waited { "all".into() } else { "not all".into() },
            "all".into(),
        ),
    ])
}
