//! Real, public Claude Code plugins (fetched by `.ci/real-configs`), installed from a
//! marketplace with `rein plugin`. SuperClaude's (PyPI): its manifest names its component
//! paths; every subagent, skill and command is offered by the names Claude Code gives
//! them, its SessionStart hook's output reaches the model, its Stop prompt hook is asked,
//! and `rein doctor` lists its MCP servers without starting them. claude-mem's (npm): its
//! skills are loaded by the model, its hooks run its own scripts (found through
//! CLAUDE_PLUGIN_ROOT) on each event, and its MCP server — `node -e` finding its files
//! by CLAUDE_PLUGIN_ROOT — answers a call by the name Claude Code gives it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use crate::common::{Env, json_lines, serve, tool_result};
use crate::real_configs::copy_tree;
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

fn real_plugin() -> PathBuf {
    real("superclaude-plugin")
}

fn real(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/real").join(name);
    assert!(dir.join(".claude-plugin/plugin.json").is_file(), "{} is missing: run .ci/real-configs", dir.display());
    dir
}

fn front_matter_name(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let block = text.strip_prefix("---\n")?.split("\n---").next()?;
    block.lines().find_map(|l| l.strip_prefix("name:")).map(|n| n.trim().trim_matches('"').to_string())
}

#[test]
fn superclaudes_plugin_installed_from_a_marketplace_offers_every_component() {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = scratch.path().join("scmkt");
    copy_tree(&real_plugin(), &market.join("superclaude"));
    std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
    std::fs::write(
        market.join(".claude-plugin/marketplace.json"),
        json!({"name": "scmkt", "owner": {"name": "t"}, "plugins": [{"name": "superclaude", "source": "./superclaude"}]})
            .to_string(),
    )
    .unwrap();
    env.rein().args(["plugin", "marketplace", "add"]).arg(&market).assert().success();
    env.rein().args(["plugin", "install", "superclaude@scmkt"]).assert().success();

    let plugin = market.join("superclaude");
    let agents: Vec<String> = std::fs::read_dir(plugin.join("agents"))
        .unwrap()
        .flatten()
        .filter_map(|e| front_matter_name(&e.path()))
        .collect();
    assert_eq!(agents.len(), 20, "the plugin as published");
    let skills: Vec<String> = std::fs::read_dir(plugin.join("skills"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into())
        .collect();
    let commands: Vec<String> = std::fs::read_dir(plugin.join("commands"))
        .unwrap()
        .flatten()
        .map(|e| e.path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(commands.len(), 30);

    let server = serve(
        Scenario::new([reply([text("ready")]), reply([text("done")])]).with_judge([reply([text("{\"ok\": true}")])]),
    );
    let first = commands.iter().find(|c| c.as_str() == "help").cloned().unwrap_or_else(|| commands[0].clone());
    // --strict-mcp-config: its servers (npx downloads) are listed by doctor, not started.
    let line = |t: &str| json!({"type": "user", "message": {"role": "user", "content": t}}).to_string() + "\n";
    env.rein_at(&server)
        .args(["--strict-mcp-config", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"])
        .write_stdin(line("hi") + &line(&format!("/superclaude:{first}")))
        .assert()
        .success();
    let reqs: Vec<_> = server.requests().into_iter().filter(|r| !r.is_judge()).collect();
    let body = reqs[0].body.to_string();
    for a in &agents {
        assert!(body.contains(&format!("superclaude:{a}")), "subagent superclaude:{a} is offered");
    }
    for s in &skills {
        assert!(body.contains(&format!("superclaude:{s}")), "skill superclaude:{s} is listed");
    }
    assert!(body.contains("SC Agent ready"), "its SessionStart hook's output reaches the model");
    let judged: Vec<_> = server.requests().into_iter().filter(|r| r.is_judge()).collect();
    assert!(judged.iter().any(|r| r.body.to_string().contains("uncommitted changes")), "its Stop prompt hook is asked");
    let typed = reqs[1].body["messages"].to_string();
    let own = std::fs::read_to_string(plugin.join(format!("commands/{first}.md"))).unwrap();
    let a_line = own.lines().rev().find(|l| l.trim().len() > 20 && !l.contains('$') && !l.contains('!')).unwrap();
    assert!(typed.contains(&a_line.trim().replace('"', "\\\"")), "/superclaude:{first} expands the plugin's command");

    let out = env.rein().arg("doctor").assert().success();
    let doctor = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(doctor.contains("superclaude@scmkt") && doctor.contains("context7, sequential-thinking"), "{doctor}");
    assert!(doctor.contains("plugin:superclaude:context7 (dynamic): starts with the session"), "{doctor}");
}

/// A marketplace at `root` named `name` holding `plugin` (copied from `from`).
fn marketplace_of(root: &Path, name: &str, plugin: &str, from: &Path) -> PathBuf {
    let market = root.join(name);
    copy_tree(from, &market.join(plugin));
    std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
    let manifest =
        json!({"name": name, "owner": {"name": "t"}, "plugins": [{"name": plugin, "source": format!("./{plugin}")}]});
    std::fs::write(market.join(".claude-plugin/marketplace.json"), manifest.to_string()).unwrap();
    market
}

#[test]
fn claude_mems_plugin_runs_its_hooks_skills_and_mcp_server() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = marketplace_of(scratch.path(), "thedotmack", "claude-mem", &real("claude-mem"));
    env.rein().args(["plugin", "marketplace", "add"]).arg(&market).assert().success();
    env.rein().args(["plugin", "install", "claude-mem@thedotmack"]).assert().success();
    // Its hooks hand their work to `bun`: here a stand-in that records what it was asked
    // (a real bun would install packages and start a worker).
    let bin = env.home.path().join("offline-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = env.home.path().join("bun.log");
    let bun = format!("#!/bin/sh\necho \"$*\" >> '{}'\n", log.display());
    std::fs::write(bin.join("bun"), bun).unwrap();
    std::fs::set_permissions(bin.join("bun"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = vec![bin];
    path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));

    let tool = "mcp__plugin_claude-mem_mcp-search__important_workflow";
    let server = serve(Scenario::new([
        reply([tool_use_with_id("s", "Skill", json!({"skill": "claude-mem:mem-search"}))]),
        reply([tool_use_with_id("m", tool, json!({}))]),
        reply([text("done")]),
    ]));
    let out = env
        .rein_at(&server)
        .env("PATH", std::env::join_paths(path).unwrap())
        .env("npm_config_offline", "true")
        .args(["-p", "find what we did", "--output-format", "stream-json", "--verbose"])
        .args(["--allowedTools", "Skill,mcp__plugin_claude-mem_mcp-search"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.last().unwrap()["result"], "done", "{stderr}");

    let reqs = server.requests();
    let skills = reqs[0].body["tools"].to_string();
    for skill in std::fs::read_dir(real("claude-mem").join("skills")).unwrap().flatten() {
        let name = skill.file_name().to_string_lossy().into_owned();
        assert!(skills.contains(&format!("claude-mem:{name}")), "skill claude-mem:{name} is listed");
    }
    let (loaded, failed) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "s");
    assert!(!failed && loaded.contains("Base directory for this skill:"), "{loaded}");
    // A directory marketplace's plugin is read in place, as Claude Code reads it.
    let root = market.join("claude-mem").display().to_string();
    assert!(loaded.contains(&format!("{root}/skills/mem-search")), "{loaded}");
    let (answer, failed) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "m");
    assert!(!failed && answer.contains("Memory Search Workflow"), "its MCP server answered: {answer}\n{stderr}");

    // Each hook ran the plugin's own script from the installed copy (its `async: true`
    // ones run on by themselves, and may finish after rein).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !std::fs::read_to_string(&log).unwrap_or_default().contains("observation")
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let asked = std::fs::read_to_string(&log).unwrap_or_default();
    for part in ["worker-service.cjs start", "hook claude-code session-init", "hook claude-code observation"] {
        assert!(asked.contains(part), "a hook ran `{part}`: {asked}\n{stderr}");
    }
    assert!(asked.contains(&format!("{root}/scripts/worker-service.cjs")), "{asked}");
}
