//! A switching user's whole setup (issue 51): start → first request with 100 settings
//! keys across the user's, the project's and the local settings, 50 rules files and 20
//! enabled plugins; and a headless run with two stdio MCP servers that take 150 and
//! 300 ms to start, which waits for them (so their tools are in the first request) but
//! no longer than the slower one.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rein_testkit::{FakeServer, Scenario, reply, text};
use serde_json::{Value, json};

use crate::{Row, ms, percentile, rein_direct, spawn_and_measure};

/// Settings keys shaped like real setups: rules, env, hooks and the plain keys people set.
fn settings(scope: usize) -> Value {
    let mut map = serde_json::Map::new();
    let plain = [
        ("model", json!("sonnet")),
        ("cleanupPeriodDays", json!(30)),
        ("includeCoAuthoredBy", json!(false)),
        ("alwaysThinkingEnabled", json!(true)),
        ("outputStyle", json!("default")),
        ("language", json!("english")),
        ("respectGitignore", json!(true)),
        ("autoMemoryEnabled", json!(true)),
    ];
    for (k, v) in plain {
        map.insert(k.into(), v);
    }
    let env: serde_json::Map<String, Value> = (0..8).map(|i| (format!("BENCH_VAR_{scope}_{i}"), json!("1"))).collect();
    map.insert("env".into(), Value::Object(env));
    let allow: Vec<Value> = (0..6).map(|i| json!(format!("Bash(tool{scope}{i}:*)"))).collect();
    let deny: Vec<Value> = (0..3).map(|i| json!(format!("Read(./secret{scope}{i}/**)"))).collect();
    map.insert("permissions".into(), json!({"allow": allow, "deny": deny, "ask": ["Bash(git push:*)"]}));
    map.insert(
        "hooks".into(),
        json!({"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "true"}]}]}),
    );
    // Keys rein names at start and keys it has no use for: a real file has both.
    for (i, k) in ["spinnerTipsEnabled", "theme", "autoUpdatesChannel", "feedbackSurveyRate"].iter().enumerate() {
        map.insert((*k).into(), json!(i));
    }
    Value::Object(map)
}

/// The project and the user's folders: three settings files (≈ 100 keys in all, the
/// nested ones counted), 50 rules files, and the 20 plugins of the plugin rows (their
/// commands, subagents, skills and hooks).
pub(crate) fn install(project: &Path, home: &Path) -> anyhow::Result<()> {
    let files = [
        home.join(".claude/settings.json"),
        project.join(".claude/settings.json"),
        project.join(".claude/settings.local.json"),
    ];
    crate::plugins::install(home)?;
    // Their MCP servers are measured on their own (the row below, and the plugin rows):
    // twenty server programs starting would measure the servers, not rein.
    for p in std::fs::read_dir(home.join("mkt"))?.flatten() {
        let _ = std::fs::remove_file(p.path().join(".mcp.json"));
    }
    for (scope, path) in files.iter().enumerate() {
        std::fs::create_dir_all(path.parent().context("a settings file has a folder")?)?;
        let mut value = settings(scope);
        // The plugins' `enabledPlugins` stays in the user's settings.
        if scope == 0
            && let Some(enabled) = serde_json::from_str::<Value>(&std::fs::read_to_string(path)?)?.get("enabledPlugins")
        {
            value["enabledPlugins"] = enabled.clone();
        }
        std::fs::write(path, serde_json::to_string_pretty(&value)?)?;
    }
    for i in 0..50 {
        let root = if i % 2 == 0 { project } else { home };
        let dir = root.join(format!(".claude/rules/area{}", i % 5));
        std::fs::create_dir_all(&dir)?;
        let front = if i % 3 == 0 { format!("---\npaths: src/area{i}/**\n---\n") } else { String::new() };
        std::fs::write(dir.join(format!("rule{i}.md")), format!("{front}# Rule {i}\n\n- Keep area {i} tidy.\n"))?;
    }
    // Trusted, as the person who set the folder up would have it.
    let trusted = json!({"projects": {project.display().to_string(): {"hasTrustDialogAccepted": true}}});
    std::fs::write(home.join(".claude.json"), trusted.to_string())?;
    Ok(())
}

fn first_request(cmd: &mut std::process::Command, server: &FakeServer) -> anyhow::Result<(Duration, Value)> {
    let t0 = Instant::now();
    if !spawn_and_measure(cmd)?.ok {
        bail!("rein -p failed");
    }
    let req = server.requests().into_iter().next().context("no request")?;
    Ok((req.received_at.duration_since(t0), req.body))
}

/// The rows, each the median of 10 after 2 unmeasured starts.
pub(crate) fn rows(bin: &Path, _work: &Path, _home: &Path) -> anyhow::Result<Vec<Row>> {
    let (project, home) = (tempfile::tempdir()?, tempfile::tempdir()?);
    install(project.path(), home.path())?;
    let _ = std::process::Command::new("sync").status();
    let mut firsts = Vec::new();
    for round in 0..12 {
        let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
        let mut cmd = rein_direct(bin, project.path(), home.path(), &server);
        cmd.args(["-p", "hi"]);
        let (first, body) = first_request(&mut cmd, &server)?;
        if !body.to_string().contains("Keep area 1 tidy") {
            bail!("the rules files were not read");
        }
        if round >= 2 {
            firsts.push(first);
        }
    }
    firsts.sort();
    let mut rows = vec![(
        "start → first request, 100 settings keys + 50 rules files + 20 plugins (median of 10)".to_string(),
        ms(percentile(&firsts, 0.5)),
        "≤ 15 ms".to_string(),
    )];
    let bare = tempfile::tempdir()?;
    let ready = bare.path().join("slow-ready");
    let config = json!({"mcpServers": {
        "fast": crate::slow_mcp::slow_server("0.15", None),
        "slow": crate::slow_mcp::slow_server_stamped("0.3", None, Some(&ready)),
    }})
    .to_string();
    let (mut beyond, mut after_ready) = (Vec::new(), Vec::new());
    for round in 0..12 {
        let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
        let mut cmd = rein_direct(bin, bare.path(), bare.path(), &server);
        cmd.args(["-p", "hi", "--mcp-config", &config]);
        let wall = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
        let (first, body) = first_request(&mut cmd, &server)?;
        let tools = body["tools"].to_string();
        if !tools.contains("probe_0_15") || !tools.contains("probe_0_3") {
            bail!("the first request went before both servers' tools");
        }
        let ready_at: f64 = std::fs::read_to_string(&ready)?.trim().parse().context("the slow server's stamp")?;
        let sent_at = wall + first;
        if round >= 2 {
            beyond.push(first.saturating_sub(Duration::from_millis(300)));
            after_ready.push(sent_at.saturating_sub(Duration::from_secs_f64(ready_at)));
        }
    }
    beyond.sort();
    after_ready.sort();
    rows.push((
        "headless with 2 stdio MCP servers (150 and 300 ms to start): first request after the slower's 300 ms \
         (rein's start, the servers' own start-up and handshakes included; median of 10)"
            .to_string(),
        ms(percentile(&beyond, 0.5)),
        "≤ 15 ms".to_string(),
    ));
    rows.push((
        "the same: first request after the slower server answered tools/list (what the wait adds; median of 10)"
            .to_string(),
        ms(percentile(&after_ready, 0.5)),
        "≤ 2 ms".to_string(),
    ));
    Ok(rows)
}
