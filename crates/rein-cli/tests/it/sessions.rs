//! Transcripts, resume and crash safety through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use common::{Env, json_lines, serve};
use rein_testkit::{Scenario, check_pairing, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn project_dir(env: &Env) -> PathBuf {
    let cwd = env
        .cwd()
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>();
    env.home.path().join(".rein/projects").join(cwd)
}

fn transcript_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn session_id(env: &Env, server: &rein_testkit::FakeServer, extra: &[&str]) -> String {
    let mut args = vec!["-p", "first prompt", "--output-format", "json"];
    args.extend_from_slice(extra);
    let out = env.rein_at(server).args(&args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    json_lines(&out.stdout)[0]["session_id"].as_str().unwrap().to_string()
}

#[test]
fn a_session_is_written_as_claude_code_style_jsonl() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([call("g", "Glob", json!({"pattern": "*"}))]), reply([text("done")])]));
    let id = session_id(&env, &server, &[]);
    let path = project_dir(&env).join(format!("{id}.jsonl"));
    let lines = transcript_lines(&path);
    let kinds: Vec<String> = lines
        .iter()
        .map(|l| {
            format!(
                "{}{}",
                l["type"].as_str().unwrap(),
                l["subtype"].as_str().map(|s| format!("/{s}")).unwrap_or_default()
            )
        })
        .collect();
    // The tool starts while the response still streams, and its start is on disk first.
    assert_eq!(kinds, ["user", "system/tool_started", "assistant", "system/permission", "user", "assistant"]);
    for l in &lines {
        assert_eq!(l["sessionId"], id.as_str());
        assert!(l["uuid"].is_string() && l["timestamp"].is_string());
        assert_eq!(l["cwd"], env.cwd().display().to_string());
    }
    assert_eq!(lines[2]["parentUuid"], lines[0]["uuid"], "events are not links in the message chain");
    assert_eq!(lines[4]["parentUuid"], lines[2]["uuid"]);
    assert_eq!(lines[2]["message"]["content"][0]["type"], "tool_use");
    assert_eq!(lines[4]["message"]["content"][0]["tool_use_id"], "g");
    let listed = env.rein().arg("sessions").output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains(&id) && listed.contains("first prompt") && listed.contains("2 turns"), "{listed}");
}

#[test]
fn continue_resume_fork_and_session_id() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("remembered: 42")])]));
    let id = session_id(&env, &server, &[]);

    let server = serve(Scenario::new([reply([text("it was 42")])]));
    env.rein_at(&server).args(["-p", "what was it?", "--continue"]).assert().success();
    let msgs = server.requests()[0].body["messages"].as_array().unwrap().clone();
    assert_eq!(msgs.len(), 3);
    assert_eq!(msgs[0]["content"][0]["text"], "first prompt");
    assert_eq!(msgs[1]["content"][0]["text"], "remembered: 42");
    assert_eq!(msgs[2]["content"][0]["text"], "what was it?");

    let server = serve(Scenario::new([reply([text("again")])]));
    env.rein_at(&server).args(["-p", "third", "--resume", &id]).assert().success();
    assert_eq!(
        server.requests()[0].body["messages"].as_array().unwrap().len(),
        5,
        "resume sees the continued session too"
    );

    let before = std::fs::read_to_string(project_dir(&env).join(format!("{id}.jsonl"))).unwrap();
    let server = serve(Scenario::new([reply([text("forked")])]));
    let out = env
        .rein_at(&server)
        .args(["-p", "fork it", "--resume", &id, "--fork-session", "--output-format", "json"])
        .output()
        .unwrap();
    let fork_id = json_lines(&out.stdout)[0]["session_id"].as_str().unwrap().to_string();
    assert_ne!(fork_id, id);
    assert_eq!(
        std::fs::read_to_string(project_dir(&env).join(format!("{id}.jsonl"))).unwrap(),
        before,
        "the original is untouched"
    );
    let forked = transcript_lines(&project_dir(&env).join(format!("{fork_id}.jsonl")));
    assert!(forked.len() >= 7, "the fork holds the history it continues: {}", forked.len());

    let chosen = "123e4567-e89b-12d3-a456-426614174000";
    let server = serve(Scenario::new([reply([text("ok")])]));
    let out =
        env.rein_at(&server).args(["-p", "x", "--session-id", chosen, "--output-format", "json"]).output().unwrap();
    assert_eq!(json_lines(&out.stdout)[0]["session_id"], chosen);
    assert!(project_dir(&env).join(format!("{chosen}.jsonl")).exists());
    env.rein().args(["-p", "x", "--resume", "no-such-session"]).assert().failure();
}

#[test]
fn kill_9_at_any_moment_then_continue_gives_a_valid_conversation() {
    for (round, delay_ms) in [30u64, 90, 160, 240, 330, 450, 600, 800].into_iter().enumerate() {
        let env = Env::new();
        let server = serve(Scenario::new([
            reply([
                text("step one"),
                call("a", "Bash", json!({"command": "sleep 0.2; echo a > a.txt"})),
                call("b", "Glob", json!({"pattern": "*"})),
            ])
            .event_delay_ms(15),
            reply([call("c", "Bash", json!({"command": "sleep 0.3"}))]).event_delay_ms(15),
            reply([text("all done")]),
        ]));
        let mut child = env
            .spawnable_at(&server)
            .args(["-p", "crash me", "--dangerously-skip-permissions"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let resumed = serve(Scenario::new([reply([text("resumed")])]));
        let out = env.rein_at(&resumed).args(["-p", "go on", "--continue"]).output().unwrap();
        if !out.status.success() {
            // Killed before the first line was written: nothing was acknowledged.
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("no earlier session"),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        }
        let msgs = resumed.requests()[0].body["messages"].as_array().unwrap().clone();
        assert_eq!(msgs[0]["content"][0]["text"], "crash me", "round {round}: the first prompt survived");
        assert!(check_pairing(&msgs).is_ok(), "round {round} (kill after {delay_ms} ms): {:?}", check_pairing(&msgs));
        assert_eq!(msgs.last().unwrap()["role"], "user");
        let last = msgs.last().unwrap().to_string();
        if last.contains("Interrupted") || last.contains("not answered") {
            assert!(
                last.contains("previous turn was interrupted"),
                "round {round}: an interrupted turn resumes with a note: {last}"
            );
        }
    }
}
