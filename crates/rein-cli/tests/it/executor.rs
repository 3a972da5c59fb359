//! Streaming execution and interrupts through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Env, json_lines, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

fn one_chunk(blocks: Vec<rein_protocol::ContentBlock>) -> rein_testkit::Reply {
    let mut r = reply(blocks);
    r.json_chunk = Some(10_000);
    r
}

fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).is_ok_and(|s| !s.contains(") Z "))
}

#[test]
fn a_tool_runs_while_the_model_pauses() {
    let env = Env::new();
    let server = serve(Scenario::new([
        one_chunk(vec![call("t", "Bash", json!({"command": "touch started-early"})), text("then more text")])
            .pause_after_event(5, 1000),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--dangerously-skip-permissions"]).assert().success();
    let made = std::fs::metadata(env.cwd().join("started-early")).unwrap().modified().unwrap();
    let end = server.requests()[0].response_done_wall.unwrap();
    let lead = end.duration_since(made).unwrap_or_default();
    assert!(lead > Duration::from_millis(800), "the tool ran {lead:?} before the stream ended");
}

/// Start rein on a long Bash call, wait until it runs, then send `signals` SIGINTs.
fn interrupted(signals: usize) -> (std::process::Output, String, Duration) {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([
            call("long", "Bash", json!({"command": "echo $$ > shell.pid; sleep 30 & echo $! > sleep.pid; wait"})),
            call("next", "Glob", json!({"pattern": "*"})),
        ]),
        reply([text("never")]),
    ]));
    let child = env
        .spawnable_at(&server)
        .args(["-p", "go", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pidfile = env.cwd().join("sleep.pid");
    let t0 = Instant::now();
    while !pidfile.exists() && t0.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let sent = Instant::now();
    for _ in 0..signals {
        Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let took = sent.elapsed();
    let sleep_pid = std::fs::read_to_string(&pidfile).unwrap();
    assert_eq!(server.requests().len(), 1);
    (out, sleep_pid, took)
}

#[test]
fn sigint_answers_every_call_kills_the_tools_and_exits_130() {
    let (out, sleep_pid, took) = interrupted(1);
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(took < Duration::from_secs(5));
    let lines = json_lines(&out.stdout);
    let users: Vec<&serde_json::Value> = lines.iter().filter(|l| l["type"] == "user").collect();
    let user = users.iter().find(|l| l["message"]["content"][0]["tool_use_id"].is_string()).unwrap();
    let ids: Vec<&str> =
        user["message"]["content"].as_array().unwrap().iter().map(|b| b["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["long", "next"], "every tool_use is answered, in order");
    assert!(user.to_string().contains("Interrupted by user"));
    // Then the note of the interrupt, as Claude Code writes it.
    let last = users.last().unwrap();
    assert_eq!(last["message"]["content"][0]["text"], "[Request interrupted by user for tool use]");
    let result = lines.last().unwrap();
    assert_eq!(result["type"], "result");
    assert_eq!(result["is_error"], true);
    assert!(!alive(&sleep_pid), "the tool's children were killed");
}

#[test]
fn a_second_sigint_exits_at_once_and_leaves_no_child() {
    let (out, sleep_pid, took) = interrupted(2);
    assert_eq!(out.status.code(), Some(130));
    assert!(took < Duration::from_secs(5));
    std::thread::sleep(Duration::from_millis(100));
    assert!(!alive(&sleep_pid), "no child process outlives rein");
}
