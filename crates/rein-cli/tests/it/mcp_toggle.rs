//! Turning an MCP server off and on during a session (the SDK's `mcp_toggle`), with the
//! real `server-everything`: off, its process stops and its tools leave the requests (a
//! call of one says why); on, it connects again and its tools answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Read, Write};

use crate::common::{Env, json_lines, serve, tool_result};
use crate::mcp::node_modules;
use crate::sdk_protocol::user;
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

const SDK: [&str; 8] = [
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
    "--system-prompt=",
    "--permission-mode",
    "bypassPermissions",
];

fn control(id: &str, request: Value) -> Value {
    json!({"type": "control_request", "request_id": id, "request": request})
}

/// A shell command that says how many processes hold `marker` in their environment,
/// waiting up to 5 s for them to go.
fn processes_holding(marker: &str) -> String {
    format!(
        "for i in $(seq 50); do n=$(grep -la {marker} /proc/[0-9]*/environ 2>/dev/null | wc -l); \
         [ \"$n\" = 0 ] && break; sleep 0.1; done; echo \"servers: $n\""
    )
}

fn offers_echo(body: &Value) -> bool {
    body["tools"].as_array().unwrap().iter().any(|t| t["name"] == "mcp__everything__echo")
}

#[test]
fn a_server_turned_off_stops_and_its_tools_leave_then_come_back_on() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let marker = format!("rein-toggle-marker-{}", std::process::id());
    let config = json!({"mcpServers": {"everything": {
        "command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"], "env": {"REIN_TEST_MARKER": marker}}}});
    let alive = processes_holding(&marker);
    let server = serve(Scenario::new([
        reply([text("one")]),
        reply([
            tool_use_with_id("e1", "mcp__everything__echo", json!({"message": "anyone?"})),
            tool_use_with_id("ps", "Bash", json!({"command": alive})),
        ]),
        reply([text("two")]),
        reply([tool_use_with_id("e2", "mcp__everything__echo", json!({"message": "back"}))]),
        reply([text("three")]),
    ]));
    // Each step is written once the turn before it ended: control requests are answered
    // as they come, not queued behind prompts.
    let steps: [Vec<Value>; 3] = [
        vec![control("i", json!({"subtype": "initialize", "hooks": null})), user("first")],
        vec![
            control("off", json!({"subtype": "mcp_toggle", "serverName": "everything", "enabled": false})),
            control("status", json!({"subtype": "mcp_status"})),
            control("nobody", json!({"subtype": "mcp_toggle", "serverName": "nobody", "enabled": true})),
            user("second"),
        ],
        vec![
            control("on", json!({"subtype": "mcp_toggle", "serverName": "everything", "enabled": true})),
            user("third"),
        ],
    ];
    let mut child = env
        .spawnable_at(&server)
        .args(SDK)
        // Every tool in full in each request (not found through ToolSearch).
        .env("ENABLE_TOOL_SEARCH", "false")
        .arg("--mcp-config")
        .arg(config.to_string())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut out = String::new();
    for (turns, step) in steps.iter().enumerate() {
        for line in step {
            writeln!(stdin, "{line}").unwrap();
        }
        while out.matches("\"type\":\"result\"").count() <= turns {
            assert!(reader.read_line(&mut out).unwrap() > 0, "rein ended early: {out}");
        }
    }
    drop(stdin);
    reader.read_to_string(&mut out).unwrap();
    assert!(child.wait().unwrap().success());
    let lines = json_lines(out.as_bytes());
    let response = |id: &str| {
        lines.iter().find(|l| l["type"] == "control_response" && l["response"]["request_id"] == id).expect(id).clone()
    };
    assert_eq!(response("off")["response"]["subtype"], "success", "{:?}", response("off"));
    let status = response("status");
    let everything = status["response"]["response"]["mcpServers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "everything")
        .cloned()
        .unwrap();
    assert_eq!(everything["status"], "disabled", "{status}");
    assert_eq!(response("nobody")["response"]["error"], "Server not found: nobody");
    assert_eq!(response("on")["response"]["subtype"], "success");

    let bodies: Vec<Value> = server.requests().into_iter().filter(|r| !r.is_title()).map(|r| r.body).collect();
    let names: Vec<&Value> = bodies[0]["tools"].as_array().unwrap().iter().map(|t| &t["name"]).collect();
    assert!(offers_echo(&bodies[0]), "the server's tools are offered at first: {names:?}");
    assert!(!offers_echo(&bodies[1]), "turned off, its tools are withdrawn");
    let messages = bodies[2]["messages"].as_array().unwrap();
    let (said, is_error) = tool_result(messages, "e1");
    assert!(is_error && said.contains("turned off for this session"), "{said}");
    let (ps, _) = tool_result(messages, "ps");
    assert!(ps.contains("servers: 0"), "the server turned off still runs: {ps}");
    let (echo, is_error) = tool_result(bodies[4]["messages"].as_array().unwrap(), "e2");
    assert!(!is_error && echo.contains("back"), "turned on again, it answers: {echo}");
}

/// Turned off while it is still connecting, a server is not offered when it answers,
/// and it is stopped.
#[test]
fn a_server_turned_off_while_connecting_stays_off() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let marker = format!("rein-toggle-slow-{}", std::process::id());
    let bin = nm.join(".bin/mcp-server-everything");
    let slow = json!({"command": "bash", "args": ["-c", format!("sleep 1; exec '{}' stdio", bin.display())],
        "env": {"REIN_TEST_MARKER": marker}});
    let config = json!({"mcpServers": {"slow": slow}});
    let alive = processes_holding(&marker);
    let server = serve(Scenario::new([
        reply([
            tool_use_with_id("e", "mcp__slow__echo", json!({"message": "anyone?"})),
            tool_use_with_id("ps", "Bash", json!({"command": alive})),
        ]),
        reply([text("done")]),
    ]));
    let input: String = [
        control("i", json!({"subtype": "initialize", "hooks": null})),
        control("off", json!({"subtype": "mcp_toggle", "serverName": "slow", "enabled": false})),
        user("go"),
    ]
    .iter()
    .map(|v| format!("{v}\n"))
    .collect();
    let out = env
        .rein_at(&server)
        .args(SDK)
        .env("ENABLE_TOOL_SEARCH", "false")
        .arg("--mcp-config")
        .arg(config.to_string())
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bodies: Vec<Value> = server.requests().into_iter().filter(|r| !r.is_title()).map(|r| r.body).collect();
    assert!(!bodies[0]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "mcp__slow__echo"));
    let messages = bodies[1]["messages"].as_array().unwrap();
    let (said, is_error) = tool_result(messages, "e");
    assert!(is_error, "{said}");
    let (ps, _) = tool_result(messages, "ps");
    assert!(ps.contains("servers: 0"), "the server turned off while connecting runs: {ps}");
}
