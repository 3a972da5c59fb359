//! The order and shape of the frames an Agent SDK program reads (issue 54), spoken
//! directly on stdio: a call is shown before it is asked about, each block is its own
//! `assistant` line, a thinking block's signature streams as its own delta.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, Write};

use crate::common::{Env, json_lines, serve};
use rein_testkit::{Scenario, reply, text, thinking, tool_use_with_id};
use serde_json::{Value, json};

const SDK: [&str; 6] =
    ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--system-prompt="];

fn user(text: &str) -> Value {
    json!({"type": "user", "session_id": "", "message": {"role": "user", "content": text}, "parent_tool_use_id": null})
}

/// Run one prompt over stdio with `--permission-prompt-tool stdio`, answering every
/// `can_use_tool` with allow after `check(frames so far, the question)`; every frame.
fn answering_yes(
    env: &Env,
    server: &rein_testkit::FakeServer,
    vars: &[(&str, &str)],
    check: impl Fn(&[Value], &Value),
) -> Vec<Value> {
    let mut child = env
        .spawnable_at(server)
        .args(SDK)
        .args(["--permission-prompt-tool", "stdio"])
        .envs(vars.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"type": "control_request", "request_id": "i", "request": {"subtype": "initialize"}});
    writeln!(stdin, "{init}\n{}", user("go")).unwrap();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut seen: Vec<Value> = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "rein ended early: {seen:#?}");
        let Ok(frame) = serde_json::from_str::<Value>(&line) else { continue };
        if frame["type"] == "control_request" && frame["request"]["subtype"] == "can_use_tool" {
            check(&seen, &frame);
            let id = frame["request_id"].clone();
            let allow = json!({"type": "control_response", "response": {"subtype": "success", "request_id": id,
                "response": {"behavior": "allow", "updatedInput": frame["request"]["input"]}}});
            writeln!(stdin, "{allow}").unwrap();
        }
        let done = frame["type"] == "result";
        seen.push(frame);
        if done {
            break;
        }
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    seen
}

/// The assistant line holding a call reaches the program before the program is asked
/// about that call (`can_use_tool`), so a UI never asks about a call it has not shown.
#[test]
fn a_call_is_shown_before_it_is_asked_about() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([text("Making it."), tool_use_with_id("t1", "Bash", json!({"command": "touch made.txt"}))]),
        reply([text("Made.")]),
    ]));
    answering_yes(&env, &server, &[], |seen, _| {
        let shown = seen.iter().any(|f| f["type"] == "assistant" && f["message"]["content"][0]["id"] == "t1");
        assert!(shown, "asked about t1 before its assistant line: {seen:#?}");
    });
    assert!(env.cwd().join("made.txt").exists());
}

/// A program's permission callback is asked about every call the rules ask about, as
/// Claude Code asks it — a command that would change nothing included; the program lets
/// rein try such commands first, as for a person, with `REIN_SDK_TRY_FIRST=1`.
#[test]
fn a_program_is_asked_about_every_call_unless_it_lets_rein_try_first() {
    let command = json!({"command": "python3 -c \"print(6 * 7)\""});
    let asked = |vars: &[(&str, &str)]| {
        let env = Env::new();
        let server =
            serve(Scenario::new([reply([tool_use_with_id("t1", "Bash", command.clone())]), reply([text("42.")])]));
        let questions = std::cell::Cell::new(0);
        let frames = answering_yes(&env, &server, vars, |_, _| questions.set(questions.get() + 1));
        let ran = frames.iter().any(|f| f["type"] == "user" && f["message"]["content"][0]["content"] == "42");
        (questions.get(), ran)
    };
    assert_eq!(asked(&[]), (1, true), "by default the program decides");
    // A folder cannot take the program's questions away through its settings' `env`.
    let env = Env::new();
    env.trust();
    env.write(".claude/settings.json", &json!({"env": {"REIN_SDK_TRY_FIRST": "1"}}).to_string());
    let server = serve(Scenario::new([reply([tool_use_with_id("t1", "Bash", command.clone())]), reply([text("42.")])]));
    let questions = std::cell::Cell::new(0);
    answering_yes(&env, &server, &[], |_, _| questions.set(questions.get() + 1));
    assert_eq!(questions.get(), 1, "the folder's env decided for the program");
    if crate::common::have_bwrap() {
        assert_eq!(asked(&[("REIN_SDK_TRY_FIRST", "1")]), (0, true), "tried first, it changed nothing: not asked");
    }
}

/// With partial messages, a thinking block's signature arrives as a `signature_delta`,
/// and each block's `assistant` line comes before that block's `content_block_stop`.
#[test]
fn partial_messages_carry_the_signature_and_each_block_before_its_stop() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([thinking("Let me think.", "sig-abc"), text("Thought.")])]));
    let out = env
        .rein_at(&server)
        .args(SDK)
        .arg("--include-partial-messages")
        .write_stdin(format!("{}\n", user("think")))
        .assert()
        .success();
    let frames = json_lines(&out.get_output().stdout);
    let at = |want: &dyn Fn(&Value) -> bool| frames.iter().position(want).unwrap_or(usize::MAX);
    let event = |f: &Value, kind: &str, index: u64| {
        f["type"] == "stream_event" && f["event"]["type"] == kind && f["event"]["index"] == index
    };
    let signature = at(&|f| event(f, "content_block_delta", 0) && f["event"]["delta"]["type"] == "signature_delta");
    assert!(signature < frames.len(), "no signature_delta: {frames:#?}");
    assert_eq!(frames[signature]["event"]["delta"]["signature"], "sig-abc");
    let thinking_line = at(&|f| f["type"] == "assistant" && f["message"]["content"][0]["type"] == "thinking");
    let text_line = at(&|f| f["type"] == "assistant" && f["message"]["content"][0]["type"] == "text");
    assert!(signature < thinking_line && thinking_line < at(&|f| event(f, "content_block_stop", 0)));
    assert!(text_line < at(&|f| event(f, "content_block_stop", 1)));
    assert_eq!(frames.iter().filter(|f| f["type"] == "assistant").count(), 2, "one line per block");
}

/// `initialize` answers what `get_server_info()` shows: the session's commands (built-in
/// and the project's) and the models to pick from — the default first, only what the
/// settings' `availableModels` allow.
#[test]
fn server_info_lists_commands_and_the_models_the_settings_allow() {
    let env = Env::new();
    env.write(".claude/commands/review.md", "---\ndescription: Review the change\n---\nReview $ARGUMENTS\n");
    env.write(".claude/settings.json", &json!({"availableModels": ["sonnet", "claude-special-1"]}).to_string());
    let server = serve(Scenario::new([reply([text("a")])]));
    let init = json!({"type": "control_request", "request_id": "i", "request": {"subtype": "initialize"}});
    let out = env.rein_at(&server).args(SDK).write_stdin(format!("{init}\n{}\n", user("hi"))).assert().success();
    let frames = json_lines(&out.get_output().stdout);
    let info = &frames.iter().find(|f| f["response"]["request_id"] == "i").expect("the reply")["response"]["response"];
    let commands: Vec<&str> = info["commands"].as_array().unwrap().iter().filter_map(|c| c["name"].as_str()).collect();
    assert!(commands.contains(&"review") && commands.contains(&"compact"), "{commands:?}");
    let models: Vec<&str> = info["models"].as_array().unwrap().iter().filter_map(|m| m["value"].as_str()).collect();
    assert_eq!(models, ["default", "sonnet", "claude-special-1"], "{info}");
}
