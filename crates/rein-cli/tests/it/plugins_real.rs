//! A real, public Claude Code plugin — the one SuperClaude ships (fetched from PyPI by
//! `.ci/real-configs`): its manifest names its component paths; installed from a
//! marketplace with `rein plugin`, every subagent, skill and command is offered by the
//! names Claude Code gives them, its SessionStart hook's output reaches the model, its
//! Stop prompt hook is asked, and `rein doctor` lists its MCP servers without starting
//! them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use crate::common::{Env, serve};
use crate::real_configs::copy_tree;
use rein_testkit::{Scenario, reply, text};
use serde_json::json;

fn real_plugin() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/real/superclaude-plugin");
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
