//! `--provider openai-responses` through the real binary against the fake server
//! speaking the Responses API: reasoning items kept across turns, function calls and
//! their outputs, instructions and tools, usage, and recovery.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use assert_cmd::Command;
use common::{Env, serve};
use rein_protocol::Usage;
use rein_testkit::{FakeServer, Scenario, Step, reply, text, thinking, tool_use_with_id};
use serde_json::{Value, json};

fn rein_responses(env: &Env, server: &FakeServer) -> Command {
    let mut c = env.rein();
    c.env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .env("OPENAI_API_KEY", "sk-test")
        .env("REIN_RETRY_BASE_MS", "1")
        .args(["--provider", "openai-responses", "--model", "gpt-5"]);
    c
}

#[test]
fn reasoning_items_and_function_calls_go_back_in_the_next_turns_input() {
    let env = Env::new();
    env.write("a.txt", "alpha\n");
    let server = serve(Scenario::new([
        reply([
            thinking("List first.", "gAAAA-encrypted"),
            tool_use_with_id("call_1", "Glob", json!({"pattern": "*.txt"})),
        ]),
        reply([text("One text file.")]),
    ]));
    rein_responses(&env, &server).args(["-p", "what files?"]).assert().success().stdout("One text file.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let first = &reqs[0].body;
    assert!(first["instructions"].as_str().unwrap().contains("Working directory"));
    assert_eq!(first["store"], false);
    assert_eq!(first["include"], json!(["reasoning.encrypted_content"]));
    assert_eq!(
        first["input"][0],
        json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "what files?"}]})
    );
    let glob = first["tools"].as_array().unwrap().iter().find(|t| t["name"] == "Glob").unwrap();
    assert_eq!((glob["type"].as_str(), glob["parameters"]["type"].as_str()), (Some("function"), Some("object")));
    let input = reqs[1].body["input"].as_array().unwrap().clone();
    let kinds: Vec<&str> = input.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["message", "reasoning", "function_call", "function_call_output"]);
    assert_eq!(input[1]["encrypted_content"], "gAAAA-encrypted", "the reasoning item goes back unchanged");
    assert_eq!(input[1]["summary"][0]["text"], "List first.");
    assert_eq!((input[2]["call_id"].as_str(), input[2]["name"].as_str()), (Some("call_1"), Some("Glob")));
    let args: Value = serde_json::from_str(input[2]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"pattern": "*.txt"}));
    assert_eq!(input[3]["call_id"], "call_1");
    assert!(input[3]["output"].as_str().unwrap().contains("a.txt"));
}

#[test]
fn usage_is_mapped_and_errors_are_retried() {
    let env = Env::new();
    let usage = Usage { input_tokens: 30, output_tokens: 9, cache_read_input_tokens: 70, ..Usage::default() };
    let server = serve(Scenario::new([
        Step::api_error(500, "server_error", "boom"),
        reply([text("cut")]).drop_after_events(2).into(),
        reply([text("fine")]).usage(usage).into(),
    ]));
    let out = rein_responses(&env, &server).args(["-p", "x", "--output-format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["result"], "fine");
    assert_eq!(
        (r["usage"]["input_tokens"].as_u64(), r["usage"]["cache_read_input_tokens"].as_u64()),
        (Some(30), Some(70))
    );
    assert_eq!(r["usage"]["output_tokens"], 9);
    assert_eq!(server.requests().len(), 3);
}
