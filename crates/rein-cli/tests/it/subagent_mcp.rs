//! A subagent's `mcpServers` through the real binary, with real server-everything: an
//! inline entry is started for the subagent's run, offered to it alone and stopped when
//! it ends; a name reuses the session's server and offers its tools to a subagent whose
//! `tools` list would otherwise leave them out.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve, tool_result};
use crate::mcp::node_modules;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str().map(str::to_string)).collect()
}

#[test]
fn an_inline_server_serves_the_subagent_alone_and_stops_with_it() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let mark = format!("rein-subagent-mcp-{}", std::process::id());
    let agent = format!(
        "---\nname: pinger\ndescription: Echoes things\ntools: Read\nmcpServers:\n  - echoer:\n      command: {}\n      args: [\"stdio\"]\n      env:\n        REIN_TEST_MARK: {mark}\n---\nUse the echo tool.\n",
        nm.join(".bin/mcp-server-everything").display()
    );
    env.write(".claude/agents/pinger.md", &agent);
    // After the subagent: how many processes still carry the server's mark.
    let count = format!("grep -l {mark} /proc/[0-9]*/environ 2>/dev/null | wc -l");
    let server = serve(Scenario::new([
        reply([call("a", "Agent", json!({"description": "echo", "prompt": "Echo it", "subagent_type": "pinger"}))]),
        reply([call("e", "mcp__echoer__echo", json!({"message": "from the subagent"}))]),
        reply([text("echoed")]),
        reply([call("c", "Bash", json!({"command": count}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__echoer__echo,Bash"])
        .assert()
        .success()
        .stdout("done\n");
    let reqs = server.requests();
    assert!(!tool_names(&reqs[0].body).iter().any(|t| t.starts_with("mcp__echoer__")), "not the main session's");
    let sub = tool_names(&reqs[1].body);
    assert!(sub.contains(&"mcp__echoer__echo".to_string()), "the subagent is offered its server's tools: {sub:?}");
    assert!(sub.contains(&"Read".to_string()) && !sub.contains(&"Bash".to_string()), "and its own tools: {sub:?}");
    let (echo, is_error) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "e");
    assert!(!is_error && echo.contains("from the subagent"), "{echo}");
    let (left, _) = tool_result(reqs[4].body["messages"].as_array().unwrap(), "c");
    assert_eq!(left.trim(), "0", "the subagent's server stopped when the subagent ended");
}

#[test]
fn a_named_server_is_shared_with_a_subagent_that_names_it() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    env.write(
        ".claude/agents/linked.md",
        "---\nname: linked\ndescription: Uses shared\ntools: Read\nmcpServers:\n  - shared\n---\nGo.\n",
    );
    env.write(".claude/agents/plain.md", "---\nname: plain\ndescription: Reads only\ntools: Read\n---\nGo.\n");
    let everything = json!({"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]});
    let config = json!({"mcpServers": {"shared": everything}}).to_string();
    let server = serve(Scenario::new([
        // A first call waits for the server, so that it is connected from here on.
        reply([call("w", "mcp__shared__echo", json!({"message": "warm"}))]),
        reply([call("a", "Agent", json!({"description": "l", "prompt": "Go", "subagent_type": "linked"}))]),
        reply([text("linked done")]),
        reply([call("p", "Agent", json!({"description": "p", "prompt": "Go", "subagent_type": "plain"}))]),
        reply([text("plain done")]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--mcp-config", &config, "--allowedTools", "mcp__shared__echo"])
        .assert()
        .success()
        .stdout("done\n");
    let reqs = server.requests();
    let linked = tool_names(&reqs[2].body);
    assert!(linked.contains(&"mcp__shared__echo".to_string()), "named: its tools are offered: {linked:?}");
    let plain = tool_names(&reqs[4].body);
    assert!(!plain.iter().any(|t| t.starts_with("mcp__")), "a tools list without it leaves it out: {plain:?}");
}

#[test]
fn a_managed_policy_that_denies_a_server_holds_a_subagents_inline_entry() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let agent = format!(
        "---\nname: pinger\ndescription: Echoes\nmcpServers:\n  - echoer:\n      command: {}\n      args: [\"stdio\"]\n---\nGo.\n",
        nm.join(".bin/mcp-server-everything").display()
    );
    env.write(".claude/agents/pinger.md", &agent);
    let managed = tempfile::tempdir().unwrap();
    std::fs::write(managed.path().join("managed-settings.json"), r#"{"deniedMcpServers": [{"serverName": "echoer"}]}"#)
        .unwrap();
    let server = serve(Scenario::new([
        reply([call("a", "Agent", json!({"description": "e", "prompt": "Go", "subagent_type": "pinger"}))]),
        reply([text("no echo")]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).env("REIN_MANAGED_SETTINGS_DIR", managed.path()).args(["-p", "go"]).assert().success();
    let sub = tool_names(&server.requests()[1].body);
    assert!(!sub.iter().any(|t| t.starts_with("mcp__echoer__")), "a denied server is not started: {sub:?}");
}
