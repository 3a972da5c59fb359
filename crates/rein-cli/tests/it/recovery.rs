//! Recovery from API failures through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, json_lines, serve};
use rein_testkit::{Scenario, Step, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn overloads_and_rate_limits_are_retried_and_reported() {
    let env = Env::new();
    let server = serve(Scenario::new([
        Step::api_error(529, "overloaded_error", "Overloaded").with_retry_after(0),
        Step::api_error(429, "rate_limit_error", "slow down"),
        Step::plain_error(503, "unavailable"),
        reply([text("made it")]).into(),
    ]));
    let out = env.rein_at(&server).args(["-p", "x", "--output-format", "stream-json", "--verbose"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = json_lines(&out.stdout);
    let retries: Vec<_> = lines.iter().filter(|l| l["subtype"] == "api_retry").collect();
    assert_eq!(retries.len(), 3);
    assert_eq!(retries[0]["error_status"], 529);
    assert_eq!(retries[1]["attempt"], 2);
    assert_eq!(retries[0]["retry_delay_ms"], 0, "retry-after is honoured");
    assert_eq!(lines.last().unwrap()["result"], "made it");
    assert_eq!(server.requests().len(), 4);
}

#[test]
fn a_stream_cut_mid_turn_is_retried_from_the_last_valid_history() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([
            text("Let me look."),
            call("t", "Bash", json!({"command": "sleep 1; touch from-broken-attempt"})),
            text("more"),
        ])
        .drop_after_events(9),
        reply([text("Second attempt, complete.")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "x", "--dangerously-skip-permissions"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Second attempt, complete.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].body["messages"], reqs[0].body["messages"], "the retry starts from the last valid history");
    std::thread::sleep(std::time::Duration::from_millis(1200));
    assert!(!env.cwd().join("from-broken-attempt").exists(), "the call from the broken attempt was cancelled");
}

#[test]
fn client_errors_are_not_retried_and_retries_are_bounded() {
    let env = Env::new();
    let server = serve(Scenario::new([Step::api_error(401, "authentication_error", "bad key")]));
    env.rein_at(&server).args(["-p", "x"]).assert().failure();
    assert_eq!(server.requests().len(), 1);
    let server = serve(Scenario::new((0..20).map(|_| Step::plain_error(500, "boom"))));
    env.rein_at(&server).env("REIN_MAX_RETRIES", "4").args(["-p", "x"]).assert().failure();
    assert_eq!(server.requests().len(), 5, "one try and four retries");
}

#[test]
fn an_idle_stream_is_abandoned_and_retried() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("stalls")]).pause_after_event(2, 3_000), reply([text("fresh")])]));
    let out = env.rein_at(&server).env("REIN_STREAM_IDLE_TIMEOUT_MS", "300").args(["-p", "x"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "fresh\n");
}

#[test]
fn a_response_cut_by_max_tokens_continues() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([text("The first half of")]).stop_reason("max_tokens"),
        reply([text(" the answer.")]),
    ]));
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let meta = reqs[1].body["messages"][2]["content"][0]["text"].as_str().unwrap();
    assert!(meta.contains("cut off by the output token limit"), "{meta}");
}

#[test]
fn repeated_overloads_switch_to_the_fallback_model() {
    let env = Env::new();
    let overloaded = || Step::api_error(529, "overloaded_error", "Overloaded");
    let server =
        serve(Scenario::new([overloaded(), overloaded(), overloaded(), reply([text("from the fallback")]).into()]));
    let out = env.rein_at(&server).args(["-p", "x", "--model", "opus", "--fallback-model", "haiku"]).output().unwrap();
    assert!(out.status.success());
    let reqs = server.requests();
    assert_eq!(reqs[0].body["model"], "claude-opus-5-5");
    assert_eq!(reqs[3].body["model"], "claude-haiku-4-5");
    assert_eq!((&reqs[0].body["max_tokens"], &reqs[3].body["max_tokens"]), (&json!(128_000), &json!(64_000)));
    assert!(String::from_utf8_lossy(&out.stderr).contains("switching to the fallback model claude-haiku-4-5"));
}

#[test]
fn the_budget_ends_the_session_cleanly() {
    let env = Env::new();
    let glob = || {
        reply([call("g", "Glob", json!({"pattern": "*"}))]).usage(rein_protocol::Usage {
            input_tokens: 100_000,
            output_tokens: 1000,
            ..Default::default()
        })
    };
    let server = serve(Scenario::new([glob(), glob(), glob()]));
    let out =
        env.rein_at(&server).args(["-p", "x", "--max-budget-usd", "0.5", "--output-format", "json"]).output().unwrap();
    assert!(!out.status.success());
    let r = &json_lines(&out.stdout)[0];
    assert_eq!(r["subtype"], "error_max_budget_usd");
    assert_eq!(server.requests().len(), 2, "0.315 $ after one turn, 0.63 $ after two");
}

#[test]
fn a_tool_call_cut_by_max_tokens_is_answered_as_incomplete() {
    let env = Env::new();
    let raw = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"x\"}}\n\n\
               event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"cut\",\"name\":\"Write\",\"input\":{}}}\n\n\
               event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"file_path\\\": \\\"/tmp/x\\\", \\\"content\\\": \\\"aaa\"}}\n\n\
               event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
               event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":10}}\n\n\
               event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
    let server = serve(Scenario::new([Step::RawSse(raw.into()), reply([text("retrying with less")]).into()]));
    let out = env.rein_at(&server).args(["-p", "x"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result = server.requests()[1].body["messages"][2]["content"][0].clone();
    assert_eq!(result["tool_use_id"], "cut");
    assert_eq!(result["is_error"], true);
    assert!(result["content"].as_str().unwrap().contains("cut off by the output token limit"), "{result}");
}

#[test]
fn a_401_reads_the_key_again_from_the_api_key_helper_and_retries_once() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let helper = env.write(
        ".claude/key-helper.sh",
        "#!/bin/sh\nn=$(cat count 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > count\necho \"key-$n\"\n",
    );
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write(".claude/settings.json", &json!({"apiKeyHelper": helper}).to_string());
    let server = serve(Scenario::new([
        Step::api_error(401, "authentication_error", "invalid x-api-key"),
        reply([text("authenticated")]).into(),
    ]));
    let out = env.rein().env("ANTHROPIC_BASE_URL", server.url()).args(["-p", "x"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    assert_eq!(reqs[0].headers["x-api-key"], "key-1");
    assert_eq!(reqs[1].headers["x-api-key"], "key-2");
    // A second 401 in a row is final.
    let server =
        serve(Scenario::new((0..3).map(|_| Step::api_error(401, "authentication_error", "invalid x-api-key"))));
    env.rein().env("ANTHROPIC_BASE_URL", server.url()).args(["-p", "x"]).assert().failure();
    assert_eq!(server.requests().len(), 2);
}
