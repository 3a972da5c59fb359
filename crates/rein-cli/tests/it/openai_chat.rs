//! `--provider openai-chat` through the real binary against the fake server speaking
//! Chat Completions: the loop with parallel tool calls, the request shape, usage and
//! cost, local servers without usage or key, and the recovery steps.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use assert_cmd::Command;
use common::{Env, serve};
use rein_protocol::Usage;
use rein_testkit::{FakeServer, Scenario, Step, reply, text, tool_use_with_id};
use serde_json::{Value, json};

fn rein_chat(env: &Env, server: &FakeServer) -> Command {
    let mut c = env.rein();
    c.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).env("REIN_RETRY_BASE_MS", "1").args([
        "--provider",
        "openai-chat",
        "--model",
        "llama3.1",
    ]);
    c
}

#[test]
fn parallel_tool_calls_run_and_their_results_go_back_as_tool_messages() {
    let env = Env::new();
    env.write("src/main.rs", "fn main() {}\n");
    let server = serve(Scenario::new([
        reply([
            text("Looking."),
            tool_use_with_id("call_a", "Glob", json!({"pattern": "**/*.rs"})),
            tool_use_with_id("call_b", "Grep", json!({"pattern": "fn main", "output_mode": "files_with_matches"})),
        ]),
        reply([text("There is one Rust file.")]),
    ]));
    rein_chat(&env, &server)
        .env("OPENAI_API_KEY", "sk-openai-test")
        .args(["-p", "what is here?"])
        .assert()
        .success()
        .stdout("There is one Rust file.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let first = &reqs[0].body;
    assert_eq!(reqs[0].headers["authorization"], "Bearer sk-openai-test");
    assert_eq!(first["model"], "llama3.1");
    assert_eq!(first["stream"], true);
    assert_eq!(first["stream_options"], json!({"include_usage": true}));
    assert!(first["max_tokens"].as_u64().unwrap() > 0);
    assert_eq!(first["messages"][0]["role"], "system");
    assert_eq!(first["messages"][1], json!({"role": "user", "content": "what is here?"}));
    let glob = first["tools"].as_array().unwrap().iter().find(|t| t["function"]["name"] == "Glob").unwrap();
    assert_eq!(glob["type"], "function");
    assert_eq!(glob["function"]["parameters"]["type"], "object");
    let m = reqs[1].body["messages"].as_array().unwrap();
    let assistant = &m[2];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["content"], "Looking.");
    let calls: Vec<(&str, Value)> = assistant["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (c["id"].as_str().unwrap(), serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap())
        })
        .collect();
    assert_eq!(calls[0], ("call_a", json!({"pattern": "**/*.rs"})));
    assert_eq!(calls[1].0, "call_b");
    assert_eq!((m[3]["role"].as_str(), m[3]["tool_call_id"].as_str()), (Some("tool"), Some("call_a")));
    assert!(m[3]["content"].as_str().unwrap().contains("src/main.rs"), "{}", m[3]);
    assert_eq!(m[4]["tool_call_id"], "call_b");
    assert!(m[4]["content"].as_str().unwrap().contains("main.rs"));
    assert!(reqs[1].body.get("cache_control").is_none() && !reqs[1].body.to_string().contains("cache_control"));
}

#[test]
fn usage_maps_to_tokens_and_cost_and_a_server_without_usage_or_key_works() {
    let env = Env::new();
    let usage = Usage { input_tokens: 40, output_tokens: 7, cache_read_input_tokens: 60, ..Usage::default() };
    let server = serve(Scenario::new([reply([text("hi")]).usage(usage)]));
    let out = rein_chat(&env, &server).args(["-p", "x", "--output-format", "json"]).output().unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["usage"]["input_tokens"], 40);
    assert_eq!(r["usage"]["cache_read_input_tokens"], 60);
    assert_eq!(r["usage"]["output_tokens"], 7);
    assert!(!server.requests()[0].headers.contains_key("authorization"), "no key, no header");

    let server = serve(Scenario::new([reply([text("from ollama")]).without_usage()]));
    let out = rein_chat(&env, &server).args(["-p", "x", "--output-format", "json"]).output().unwrap();
    assert!(out.status.success());
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["result"], "from ollama");
    assert_eq!(r["usage"]["output_tokens"], 0);
}

#[test]
fn rate_limits_and_cut_streams_are_retried_and_length_continues() {
    let env = Env::new();
    let server = serve(Scenario::new([
        Step::api_error(429, "rate_limit_error", "slow down").with_retry_after(0),
        reply([text("partial answer that is cut")]).drop_after_events(2).into(),
        reply([text("Part one, ")]).stop_reason("max_tokens").into(),
        reply([text("part two.")]).into(),
    ]));
    let out = rein_chat(&env, &server).args(["-p", "x"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "part two.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    // The cut answer was not kept; the truncated one was, and rein asked to go on.
    let m = reqs[3].body["messages"].as_array().unwrap();
    assert_eq!(m[m.len() - 2], json!({"role": "assistant", "content": "Part one, "}));
    assert!(m[m.len() - 1]["content"].as_str().unwrap().contains("cut off by the output token limit"), "{m:?}");
}

#[test]
fn the_openai_key_never_reaches_a_command() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([tool_use_with_id("b", "Bash", json!({"command": "echo key=${OPENAI_API_KEY:-none}"}))]),
        reply([text("ok")]),
    ]));
    rein_chat(&env, &server)
        .env("OPENAI_API_KEY", "sk-secret-openai")
        .args(["-p", "x", "--allowedTools", "Bash"])
        .assert()
        .success();
    let m = server.requests()[1].body["messages"].clone();
    let result = m.as_array().unwrap().iter().find(|x| x["role"] == "tool").unwrap();
    assert_eq!(result["content"], "key=none");
}
