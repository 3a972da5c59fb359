//! The real Python Agent SDK (`claude-agent-sdk`, installed by `.ci/run` in `.ci/venv`)
//! drives the real rein binary (`cli_path`) against the fake model server. Each test
//! asserts what the SDK's user code receives (printed by `fixtures/sdk_driver.py`), and
//! what reached the model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::common::{Env, serve};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

pub(crate) fn python() -> Option<PathBuf> {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/venv/bin/python");
    let ok = std::process::Command::new(&venv)
        .args(["-c", "import claude_agent_sdk"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        crate::common::unavailable("the Python Agent SDK is not installed in .ci/venv");
    }
    ok.then_some(venv)
}

/// Run `case` of the driver in `env`'s project against `server`; what the user code got.
fn drive(env: &Env, server: &FakeServer, case: &str) -> Option<Value> {
    drive_with(env, server, case, &json!({}))
}

/// [`drive`], with `extra` (JSON) for the case.
fn drive_with(env: &Env, server: &FakeServer, case: &str, extra: &Value) -> Option<Value> {
    let py = python()?;
    let driver = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/sdk_driver.py");
    let out = std::process::Command::new(py)
        .arg(driver)
        .args([case, assert_cmd::cargo::cargo_bin("rein").to_str().unwrap(), &server.url(), &extra.to_string()])
        .current_dir(env.cwd())
        .env("HOME", env.home.path())
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{case} failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap())
}

fn kinds(messages: &Value) -> Vec<String> {
    messages.as_array().unwrap().iter().map(|m| m["kind"].as_str().unwrap().to_string()).collect()
}

fn result(messages: &Value) -> &Value {
    messages.as_array().unwrap().iter().find(|m| m["kind"] == "result").expect("a result")
}

fn tool_results(messages: &Value) -> Vec<Value> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "user")
        .flat_map(|m| m["results"].as_array().unwrap().clone())
        .collect()
}

#[test]
fn query_with_a_string_prompt() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("Hello from the fake model")])]));
    let Some(out) = drive(&env, &server, "query_string") else { return };
    let m = &out["messages"];
    assert_eq!(kinds(m), ["system", "assistant", "result"], "{m}");
    assert_eq!(m[0]["subtype"], "init");
    assert_eq!(m[0]["data"]["claude_code_version"], "2.1.332");
    assert_eq!(m[1]["blocks"][0]["text"], "Hello from the fake model");
    let r = result(m);
    assert_eq!((r["subtype"].as_str(), r["is_error"].as_bool()), (Some("success"), Some(false)));
    assert_eq!(r["result"], "Hello from the fake model");
    let req = &server.requests()[0].body;
    assert_eq!(req["messages"][0]["content"][0]["text"], "hello there", "{req}");
}

#[test]
fn query_with_a_streamed_prompt() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("streamed reply")])]));
    let Some(out) = drive(&env, &server, "query_stream") else { return };
    assert_eq!(result(&out["messages"])["result"], "streamed reply");
    assert_eq!(server.requests()[0].body["messages"][0]["content"][0]["text"], "first streamed");
}

#[test]
fn a_client_session_of_two_turns_keeps_the_conversation() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("answer one")]), reply([text("answer two")])]));
    let Some(out) = drive(&env, &server, "two_turns") else { return };
    assert_eq!(result(&out["first"])["result"], "answer one");
    assert_eq!(result(&out["second"])["result"], "answer two");
    assert_eq!(result(&out["first"])["session_id"], result(&out["second"])["session_id"]);
    assert_eq!(out["first"][0]["subtype"], "init", "every turn starts with system/init");
    assert_eq!(out["second"][0]["subtype"], "init");
    assert_eq!(out["info"]["claude_code_version"], "2.1.332");
    let second = &server.requests()[1].body["messages"];
    assert_eq!(second.as_array().unwrap().len(), 3, "the second turn carries the first: {second}");
}

#[test]
fn interrupt_during_a_slow_tool_ends_the_turn_and_the_session_goes_on() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([tool_use_with_id("t1", "Bash", json!({"command": "sleep 30"}))]),
        reply([text("after")]),
    ]));
    let started = std::time::Instant::now();
    let Some(out) = drive(&env, &server, "interrupt") else { return };
    assert!(started.elapsed() < std::time::Duration::from_secs(25), "the sleep was not cut short");
    let r = result(&out["first"]);
    assert_eq!((r["subtype"].as_str(), r["is_error"].as_bool()), (Some("error_during_execution"), Some(true)));
    // The program reads where the person interrupted, as Claude Code writes it, and so
    // does the model on the next turn.
    let mark = "[Request interrupted by user for tool use]";
    let noted = out["first"].as_array().unwrap().iter().any(|m| m["kind"] == "user" && m["texts"][0] == mark);
    assert!(noted, "{}", out["first"]);
    assert_eq!(result(&out["second"])["result"], "after");
    assert!(server.requests()[1].body["messages"].to_string().contains(mark));
}

#[test]
fn set_permission_mode_and_set_model_apply_to_the_next_turn() {
    let env = Env::new();
    let target = env.cwd().join("made.txt");
    let server = serve(Scenario::new([
        reply([tool_use_with_id("w1", "Write", json!({"file_path": target, "content": "by acceptEdits\n"}))]),
        reply([text("written")]),
    ]));
    let Some(out) = drive(&env, &server, "set_mode_and_model") else { return };
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "by acceptEdits\n", "{out}");
    assert_eq!(out["messages"][0]["data"]["permissionMode"], "acceptEdits");
    assert_eq!(server.requests()[0].body["model"], "claude-haiku-4-5");
    assert!(out["context"]["maxTokens"].as_u64().unwrap() > 0, "{}", out["context"]);
    // As /context counts: the system prompt and the tools too, not only the messages.
    let names: Vec<&str> =
        out["context"]["categories"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["System prompt and memory", "Tool definitions", "Messages"], "{}", out["context"]);
    let messages = out["context"]["categories"][2]["tokens"].as_u64().unwrap();
    let total = out["context"]["totalTokens"].as_u64().unwrap();
    assert!(messages > 0 && total > messages + 1000, "{}", out["context"]);
    assert!(out["mcp"]["mcpServers"].is_array());
    assert!(out["rewind"].as_str().unwrap().contains("checkpoint"), "{}", out["rewind"]);
}

fn touch_scenario(env: &Env) -> (FakeServer, PathBuf) {
    let path = env.cwd().join("out.txt");
    let server = serve(Scenario::new([
        reply([tool_use_with_id("b1", "Bash", json!({"command": "echo original > out.txt"}))]),
        reply([text("finished")]),
    ]));
    (server, path)
}

#[test]
fn can_use_tool_allows_with_an_edited_input() {
    let env = Env::new();
    let (server, path) = touch_scenario(&env);
    let Some(out) = drive(&env, &server, "can_use_tool_edit") else { return };
    assert_eq!(out["asked"][0]["tool"], "Bash");
    assert_eq!(out["asked"][0]["input"]["command"], "echo original > out.txt");
    assert_eq!(std::fs::read_to_string(path).unwrap(), "edited\n", "the edited input ran");
    assert_eq!(result(&out["messages"])["result"], "finished");
}

#[test]
fn can_use_tool_denies_with_a_message_for_the_model() {
    let env = Env::new();
    let (server, path) = touch_scenario(&env);
    let Some(out) = drive(&env, &server, "can_use_tool_deny") else { return };
    assert!(!path.exists());
    let results = tool_results(&out["messages"]);
    // The program's message is what the model reads, as the program wrote it.
    assert_eq!(results[0]["content"], "not today, says the test", "{results:?}");
    assert_eq!(results[0]["is_error"], true);
    let r = result(&out["messages"]);
    assert_eq!((r["subtype"].as_str(), r["result"].as_str()), (Some("success"), Some("finished")));
    assert_eq!(r["permission_denials"][0]["tool_name"], "Bash");
}

#[test]
fn can_use_tool_denies_with_interrupt_and_the_turn_stops() {
    let env = Env::new();
    let (server, path) = touch_scenario(&env);
    let Some(out) = drive(&env, &server, "can_use_tool_interrupt") else { return };
    assert!(!path.exists());
    let r = result(&out["messages"]);
    assert_eq!((r["subtype"].as_str(), r["is_error"].as_bool()), (Some("error_during_execution"), Some(true)));
    assert_eq!(server.requests().len(), 1, "no request after the interrupt");
}

#[test]
fn a_pre_tool_use_hook_callback_blocks_the_call() {
    let env = Env::new();
    let (server, path) = touch_scenario(&env);
    let Some(out) = drive(&env, &server, "hook_block") else { return };
    assert!(!path.exists(), "the hook's deny held although Bash is allowed");
    assert_eq!(out["hook_saw"][0]["event"], "PreToolUse");
    assert_eq!(out["hook_saw"][0]["tool"], "Bash");
    assert_eq!(out["hook_saw"][0]["id"], "b1");
    let results = tool_results(&out["messages"]);
    assert!(results[0]["content"].as_str().unwrap().contains("blocked by the SDK hook"), "{results:?}");
}

#[test]
fn partial_messages_arrive_as_stream_events() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("streamed text")])]));
    let Some(out) = drive(&env, &server, "partial") else { return };
    let events: Vec<&str> = out["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "stream_event")
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    for t in ["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_stop"] {
        assert!(events.contains(&t), "{t} missing from {events:?}");
    }
    assert_eq!(result(&out["messages"])["result"], "streamed text");
}

#[test]
fn resume_continues_an_earlier_session_by_id() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("noted: apple")]), reply([text("it was apple")])]));
    let Some(out) = drive(&env, &server, "resume") else { return };
    let r = result(&out["messages"]);
    assert_eq!(r["result"], "it was apple");
    assert_eq!(r["session_id"], out["first_session"]);
    let second = server.requests()[1].body["messages"].to_string();
    assert!(second.contains("remember the word apple") && second.contains("noted: apple"), "{second}");
}

#[test]
fn an_sdk_mcp_server_tool_is_called_through_the_host() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([tool_use_with_id("m1", "mcp__calc__add", json!({"a": 2, "b": 3}))]),
        reply([text("the sum is 5")]),
    ]));
    let Some(out) = drive(&env, &server, "sdk_mcp") else { return };
    let init = &out["messages"][0]["data"];
    assert!(init["tools"].as_array().unwrap().iter().any(|t| t == "mcp__calc__add"), "{init}");
    let results = tool_results(&out["messages"]);
    // A list of content blocks, as Claude Code gives it: `block.content[0]["text"]`.
    let blocks: Value = serde_json::from_str(results[0]["content"].as_str().unwrap()).unwrap();
    assert_eq!(blocks[0]["text"].as_str().map(str::trim), Some("5"), "{results:?}");
    assert_ne!(results[0]["is_error"], true);
    let offered = server.requests()[0].body["tools"].to_string();
    assert!(offered.contains("mcp__calc__add"), "the tool reached the model");
}

#[test]
fn an_output_format_schema_gives_structured_output() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([tool_use_with_id("s1", "StructuredOutput", json!({"answer": 42}))]),
        reply([text("done")]),
    ]));
    let Some(out) = drive(&env, &server, "structured") else { return };
    assert_eq!(out["structured_output"], json!({"answer": 42}), "{out}");
    assert_eq!(out["subtype"], "success");
    // The answer is in once StructuredOutput is called: no request after it.
    assert_eq!(server.requests().iter().filter(|r| !r.is_title()).count(), 1);
}

#[test]
fn can_use_tool_permission_updates_are_remembered_and_written_to_the_named_settings() {
    let env = Env::new();
    env.write("mk.py", "import sys\nopen(sys.argv[1], 'w')\n");
    let server = serve(Scenario::new([
        reply([tool_use_with_id("b1", "Bash", json!({"command": "python3 mk.py a.txt"}))]),
        reply([tool_use_with_id("b2", "Bash", json!({"command": "python3 mk.py b.txt"}))]),
        reply([text("finished")]),
    ]));
    let Some(out) = drive(&env, &server, "can_use_tool_remember") else { return };
    assert_eq!(out["asked"].as_array().unwrap().len(), 1, "the rule answered the second call: {}", out["asked"]);
    assert!(out["asked"][0]["suggestions"].as_u64().unwrap() >= 1, "rein suggested a rule");
    assert!(env.cwd().join("a.txt").exists() && env.cwd().join("b.txt").exists());
    let local = std::fs::read_to_string(env.cwd().join(".claude/settings.local.json")).unwrap();
    let local: Value = serde_json::from_str(&local).unwrap();
    assert_eq!(local["permissions"]["allow"], json!(["Bash(python3 *)"]), "{local}");
}

#[test]
fn rewind_files_restores_what_the_turn_changed() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([tool_use_with_id("w", "Write", json!({"file_path": env.cwd().join("made.txt"), "content": "x\n"}))]),
        reply([text("made")]),
    ]));
    let Some(out) = drive(&env, &server, "rewind_files") else { return };
    assert_eq!(out["made"], true, "{out}");
    assert_eq!(out["ids"].as_array().unwrap().len(), 1, "the prompt was replayed with its uuid: {out}");
    assert_eq!(out["after_rewind"], false, "rewind_files removed the file the turn made");
}

#[test]
fn questions_and_plans_go_to_can_use_tool() {
    let env = Env::new();
    let question = json!({"questions": [{"question": "Which colour?", "header": "Colour",
        "options": [{"label": "Blue"}, {"label": "Green"}], "multiSelect": false}]});
    let target = env.cwd().join("painted.txt");
    let server = serve(Scenario::new([
        reply([tool_use_with_id("q", "AskUserQuestion", question)]),
        reply([tool_use_with_id("p", "ExitPlanMode", json!({"plan": "Paint it green."}))]),
        reply([tool_use_with_id("w", "Write", json!({"file_path": target, "content": "green\n"}))]),
        reply([text("painted")]),
    ]));
    let Some(out) = drive(&env, &server, "user_tools") else { return };
    assert_eq!(out["asked"], json!(["AskUserQuestion", "ExitPlanMode"]), "the Write needed no question: {out}");
    let results = tool_results(&out["messages"]);
    assert!(results[0]["content"].as_str().unwrap().contains("\"Which colour?\" = \"Green\""), "{results:?}");
    assert!(results[1]["content"].as_str().unwrap().contains("Plan approved"), "{results:?}");
    assert_eq!(std::fs::read_to_string(target).unwrap(), "green\n", "plan mode ended in acceptEdits");
    // The model hears of the new mode with the plan's result, in the same turn.
    let reqs = server.requests();
    let approved = reqs[2].body["messages"].as_array().unwrap().last().unwrap()["content"].to_string();
    assert!(approved.contains("The permission mode is now acceptEdits"), "{approved}");
}

/// The session owner's turn-only rules (issue 26): a custom command's `allowed-tools`
/// allow its own turn's call and not the next turn's; its `model:` is its turn's.
#[test]
fn a_commands_allowed_tools_and_model_hold_for_its_turn_only() {
    let env = Env::new();
    env.write(
        ".claude/commands/mk.md",
        "---\ndescription: Make files\nallowed-tools: Bash(touch:*)\nmodel: claude-haiku-4-5\n---\nMake the files.\n",
    );
    let server = serve(Scenario::new([
        reply([tool_use_with_id("t1", "Bash", json!({"command": "touch one.txt"}))]),
        reply([text("made one")]),
        reply([tool_use_with_id("t2", "Bash", json!({"command": "touch two.txt"}))]),
        reply([text("done")]),
    ]));
    let Some(out) = drive(&env, &server, "command_turn_only") else { return };
    assert!(env.cwd().join("one.txt").exists(), "the command's turn ran its allowed call: {out}");
    assert!(!env.cwd().join("two.txt").exists(), "the next turn's call was not allowed by the command");
    let asked = out["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{out}");
    assert_eq!(asked[0]["input"]["command"], "touch two.txt");
    let requests = server.requests();
    assert_eq!(requests[0].body["model"], "claude-haiku-4-5");
    assert_ne!(requests[2].body["model"], "claude-haiku-4-5", "the command's model held past its turn");
}

/// A command hook's stdin carries the permission mode as it is now: after
/// `set_permission_mode`, the next hook sees the new mode (and the same session id).
#[test]
fn hooks_see_the_mode_the_sdk_set() {
    let env = Env::new();
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "cat >> hook-inputs.jsonl; echo >> hook-inputs.jsonl"}]}]}}"#,
    );
    let server = serve(Scenario::new([reply([text("one")]), reply([text("two")])]));
    let Some(out) = drive(&env, &server, "hook_mode") else { return };
    let text = std::fs::read_to_string(env.cwd().join("hook-inputs.jsonl")).unwrap();
    let inputs: Vec<Value> =
        text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
    let modes: Vec<&str> = inputs.iter().map(|i| i["permission_mode"].as_str().unwrap()).collect();
    assert_eq!(modes, ["default", "acceptEdits"], "{text}");
    let id = result(&out["second"])["session_id"].clone();
    assert!(inputs.iter().all(|i| i["session_id"] == id), "{text}");
}

#[test]
fn the_plugins_option_brings_a_local_plugins_components() {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = crate::plugins::marketplace(scratch.path(), None);
    let server = serve(Scenario::new([reply([text("greeted")])]));
    let plugin = market.join("plugins/demo");
    let Some(out) = drive_with(&env, &server, "plugins", &json!({"plugin": plugin})) else { return };
    let init = &out["messages"][0]["data"];
    assert_eq!(init["plugins"][0]["name"], "demo", "{init}");
    assert_eq!(init["plugins"][0]["path"], plugin.display().to_string());
    assert!(init["slash_commands"].as_array().unwrap().iter().any(|c| c == "demo:greet"), "{init}");
    assert!(server.requests()[0].body.to_string().contains("PLUGIN GREETING for Zed"));
}
