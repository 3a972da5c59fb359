//! MCP through the real binary against a server written here on the official Python SDK
//! (`mcp`, installed by `.ci/run` in `.ci/venv`): Streamable HTTP with headers and
//! instructions, a timed-out call the server sees cancelled, a server that dies in the
//! middle of a call, and hooks on MCP tools.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common;

use common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

pub(crate) fn python() -> Option<PathBuf> {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/venv/bin/python");
    let ok = std::process::Command::new(&venv)
        .args(["-c", "import mcp.server.mcpserver"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        crate::common::unavailable("the Python MCP SDK is not installed in .ci/venv");
    }
    ok.then_some(venv)
}

pub(crate) fn probe() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/probe_server.py")
}

pub(crate) fn wait_for(path: &Path, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while !path.exists() {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    true
}

/// The probe server over HTTP (`mode` `http` or `sse`) on a free loopback port.
struct HttpProbe {
    child: std::process::Child,
    port: u16,
}

impl HttpProbe {
    fn start(py: &Path, markers: &Path, mode: &str) -> HttpProbe {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = std::process::Command::new(py)
            .arg(probe())
            .arg(markers)
            .args([mode, &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the {mode} server did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        HttpProbe { child, port }
    }
}

impl Drop for HttpProbe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_streamable_http_server_with_instructions() {
    let Some(py) = python() else { return };
    let markers = tempfile::tempdir().unwrap();
    let http = HttpProbe::start(&py, markers.path(), "http");
    let env = Env::new();
    let config = json!({"mcpServers": {"web": {"type": "http", "url": format!("${{PROBE_BASE:-http://127.0.0.1:{}}}/mcp", http.port),
        "headers": {"X-Probe": "${PROBE_TOKEN}"}, "headersHelper": "echo '{\"X-Dynamic\": \"from-helper\"}'"}}});
    let server = serve(Scenario::new([
        reply([
            tool_use_with_id("h", "mcp__web__hello", json!({"name": "rein"})),
            tool_use_with_id("f", "mcp__web__fail_tool", json!({})),
            tool_use_with_id("s", "mcp__web__seen_header", json!({"name": "x-probe"})),
            tool_use_with_id("d", "mcp__web__seen_header", json!({"name": "x-dynamic"})),
        ]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .env("PROBE_TOKEN", "tok123")
        .args(["-p", "go", "--allowedTools", "mcp__web", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let reqs = server.requests();
    let messages = reqs[1].body["messages"].as_array().unwrap();
    assert_eq!(tool_result(messages, "h"), ("Hello, rein!".into(), false));
    let (failed, err) = tool_result(messages, "f");
    assert!(err && failed.contains("fail_tool"), "an isError result: {failed}");
    assert_eq!(tool_result(messages, "s"), ("tok123".into(), false), "${{VAR}} in headers");
    assert_eq!(tool_result(messages, "d"), ("from-helper".into(), false), "headersHelper");
    assert!(reqs[1].system_text().contains("Probe instructions: call hello"), "instructions join the system prompt");
}

#[test]
fn a_legacy_sse_server() {
    let Some(py) = python() else { return };
    let markers = tempfile::tempdir().unwrap();
    let sse = HttpProbe::start(&py, markers.path(), "sse");
    let env = Env::new();
    let config = json!({"mcpServers": {"old": {"type": "sse", "url": format!("http://127.0.0.1:{}/sse", sse.port)}}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("h", "mcp__old__hello", json!({"name": "sse"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__old", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    assert_eq!(
        tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "h"),
        ("Hello, sse!".into(), false)
    );
}

#[test]
fn a_timed_out_call_is_cancelled_on_the_server_and_a_dying_server_gives_an_error_then_restarts() {
    let Some(py) = python() else { return };
    let markers = tempfile::tempdir().unwrap();
    let env = Env::new();
    let config =
        json!({"mcpServers": {"probe": {"command": py, "args": [probe(), markers.path(), "stdio"], "timeout": 1500}}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("s", "mcp__probe__slow", json!({"seconds": 30}))]),
        reply([tool_use_with_id("d", "mcp__probe__die", json!({}))]).pause_after_event(0, 300),
        reply([tool_use_with_id("h", "mcp__probe__hello", json!({"name": "again"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__probe", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    assert!(markers.path().join("started").exists());
    assert!(
        wait_for(&markers.path().join("cancelled"), Duration::from_secs(5)),
        "the server never saw the cancellation"
    );
    let reqs = server.requests();
    let (slow, err) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "s");
    assert!(err && slow.contains("timed out after 1s"), "{slow}");
    let (died, err) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "d");
    assert!(err && died.starts_with("MCP error"), "{died}");
    // The next call starts the server again.
    assert_eq!(tool_result(reqs[3].body["messages"].as_array().unwrap(), "h"), ("Hello, again!".into(), false));
}

#[test]
fn hooks_see_mcp_tools_by_their_full_name() {
    let Some(py) = python() else { return };
    let markers = tempfile::tempdir().unwrap();
    let env = Env::new();
    let log = env.cwd().join("hook.log");
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "mcp__probe__.*", "hooks": [{"type": "command",
            "command": format!("cat >> '{}'", log.display())}]}]}})
        .to_string(),
    );
    let config = json!({"mcpServers": {"probe": {"command": py, "args": [probe(), markers.path(), "stdio"]}}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("h", "mcp__probe__hello", json!({"name": "hooks"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__probe__hello", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let seen = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(seen.contains("\"tool_name\":\"mcp__probe__hello\"") && seen.contains("hooks"), "{seen}");
    assert_eq!(
        tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "h"),
        ("Hello, hooks!".into(), false)
    );
}

#[test]
fn tools_a_server_adds_join_on_list_changed() {
    let Some(py) = python() else { return };
    let markers = tempfile::tempdir().unwrap();
    let env = Env::new();
    let config = json!({"mcpServers": {"probe": {"command": py, "args": [probe(), markers.path(), "stdio"]}}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("g", "mcp__probe__grow", json!({}))]),
        reply([tool_use_with_id("n", "mcp__probe__grown", json!({}))]).pause_after_event(0, 500),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__probe", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let reqs = server.requests();
    let offered: Vec<&str> =
        reqs[2].body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(offered.contains(&"mcp__probe__grown"), "{offered:?}");
    assert_eq!(tool_result(reqs[2].body["messages"].as_array().unwrap(), "n"), ("grown here".into(), false));
}

#[test]
fn a_permission_prompt_tool_answers_the_questions_headless() {
    let Some(py) = python() else { return };
    let markers = tempfile::tempdir().unwrap();
    let env = Env::new();
    let config = json!({"mcpServers": {"probe": {"command": py, "args": [probe(), markers.path(), "stdio"]}}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("p1", "Bash", json!({"command": "echo please > polite.txt"}))]),
        reply([tool_use_with_id("p2", "Bash", json!({"command": "echo rude > rude.txt"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--mcp-config", &config.to_string()])
        .args(["--permission-prompt-tool", "mcp__probe__approve"])
        .assert()
        .success();
    assert!(markers.path().join("asked-p1").exists() && markers.path().join("asked-p2").exists());
    let polite = std::fs::read_to_string(env.cwd().join("polite.txt")).unwrap();
    assert_eq!(polite, "thank you\n", "the tool's updatedInput ran");
    assert!(!env.cwd().join("rude.txt").exists());
    let messages = server.requests()[2].body["messages"].as_array().unwrap().clone();
    let (denied, is_error) = tool_result(&messages, "p2");
    assert!(is_error && denied.contains("the prompt tool refused Bash"), "{denied}");
}
