//! The real TypeScript Agent SDK (`@anthropic-ai/claude-agent-sdk`, installed by
//! `.ci/run` in `.ci/node`) drives the real rein binary (`pathToClaudeCodeExecutable`)
//! against the fake model server: `query()` with a string prompt, with a streamed prompt,
//! and one session of two streamed prompts. It writes `--flag=value` forms and sends the
//! system prompt in `initialize`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::common::{Env, serve};
use rein_testkit::{FakeServer, Scenario, reply, text};
use serde_json::Value;

pub(crate) fn sdk_entry() -> Option<PathBuf> {
    let entry = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../.ci/node/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs");
    let node = std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !(entry.exists() && node) {
        crate::common::unavailable("the TypeScript Agent SDK is not installed in .ci/node");
        return None;
    }
    Some(std::fs::canonicalize(entry).unwrap())
}

fn drive(env: &Env, server: &FakeServer, case: &str) -> Option<Value> {
    let entry = sdk_entry()?;
    let driver = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/sdk_driver.mjs");
    let out = std::process::Command::new("node")
        .arg(driver)
        .arg(format!("file://{}", entry.display()))
        .args([case, assert_cmd::cargo::cargo_bin("rein").to_str().unwrap(), &server.url()])
        .current_dir(env.cwd())
        .env("HOME", env.home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{case} failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap())
}

fn results(messages: &Value) -> Vec<&Value> {
    messages.as_array().unwrap().iter().filter(|m| m["kind"] == "result").collect()
}

#[test]
fn typescript_query_with_a_string_prompt() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("Hello, TypeScript")])]));
    let Some(out) = drive(&env, &server, "query_string") else { return };
    let m = &out["messages"];
    assert_eq!(m[0]["subtype"], "init", "{m}");
    assert_eq!(m[0]["data"]["claude_code_version"], "2.1.332");
    let r = results(m);
    assert_eq!(r.len(), 1);
    assert_eq!((r[0]["subtype"].as_str(), r[0]["result"].as_str()), (Some("success"), Some("Hello, TypeScript")));
    let req = &server.requests()[0].body;
    assert_eq!(req["messages"][0]["content"][0]["text"], "hello there");
    // The SDK's default system prompt is empty (systemPrompt: [""] in initialize): no
    // Claude Code instructions were sent.
    assert!(!server.requests()[0].system_text().contains("You are"), "{}", server.requests()[0].system_text());
}

#[test]
fn typescript_query_with_a_streamed_prompt() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("streamed, TypeScript")])]));
    let Some(out) = drive(&env, &server, "query_stream") else { return };
    assert_eq!(results(&out["messages"])[0]["result"], "streamed, TypeScript");
    assert_eq!(server.requests()[0].body["messages"][0]["content"][0]["text"], "first streamed");
}

#[test]
fn typescript_session_of_two_streamed_prompts() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("first answer")]), reply([text("second answer")])]));
    let Some(out) = drive(&env, &server, "two_turns") else { return };
    let r = results(&out["messages"]);
    assert_eq!(r.len(), 2, "{}", out["messages"]);
    assert_eq!((r[0]["result"].as_str(), r[1]["result"].as_str()), (Some("first answer"), Some("second answer")));
    assert_eq!(r[0]["session_id"], r[1]["session_id"]);
    assert_eq!(server.requests()[1].body["messages"].as_array().unwrap().len(), 3);
}

#[test]
fn typescript_in_process_mcp_server_named_in_initialize() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([rein_testkit::tool_use_with_id("m1", "mcp__calc__add", serde_json::json!({"a": 2, "b": 3}))]),
        reply([text("five")]),
    ]));
    let Some(out) = drive(&env, &server, "sdk_mcp") else { return };
    let m = out["messages"].as_array().unwrap();
    let init = &m[0]["data"];
    assert!(init["tools"].as_array().unwrap().iter().any(|t| t == "mcp__calc__add"), "{init}");
    let user = m.iter().find(|x| x["kind"] == "user").expect("a tool result");
    assert!(user["content"][0]["content"].to_string().contains('5'), "{user}");
    assert_eq!(results(&out["messages"])[0]["result"], "five");
}
