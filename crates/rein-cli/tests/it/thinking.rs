//! Thinking and effort through the real binary: what each model is asked for, the
//! switches that change it, thinking blocks sent back unchanged across tool calls, and
//! how thinking is shown.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, json_lines, serve};
use rein_protocol::ContentBlock;
use rein_testkit::{FakeServer, RecordedRequest, Scenario, reply, text, thinking, tool_use_with_id};
use serde_json::{Value, json};

fn one_request(env: &Env, args: &[&str], vars: &[(&str, &str)]) -> RecordedRequest {
    let server = serve(Scenario::new([reply([text("ok")])]));
    let mut cmd = env.rein_at(&server);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.args(["-p", "think"]).args(args).assert().success();
    server.requests().remove(0)
}

fn betas(r: &RecordedRequest) -> Vec<String> {
    r.headers.get("anthropic-beta").map(|b| b.split(',').map(str::to_string).collect()).unwrap_or_default()
}

#[test]
fn the_default_model_thinks_adaptively_at_medium_effort_with_old_thinking_cleared() {
    let env = Env::new();
    let r = one_request(&env, &[], &[]);
    assert_eq!(r.body["model"], "claude-opus-5-5");
    assert_eq!(r.body["thinking"], json!({"type": "adaptive", "display": "updates"}));
    assert_eq!(r.body["output_config"], json!({"effort": "medium"}));
    assert_eq!(r.body["context_management"], json!({"edits": [{"type": "clear_thinking_20251015"}]}));
    let b = betas(&r);
    for want in ["interleaved-thinking-2025-05-14", "context-management-2025-06-27", "effort-2025-11-24"] {
        assert!(b.iter().any(|x| x == want), "{want} missing from {b:?}");
    }
    // Betas the person configured stay, once each.
    let r = one_request(&env, &[], &[("ANTHROPIC_BETAS", "my-beta,effort-2025-11-24")]);
    let b = betas(&r);
    assert_eq!(b.iter().filter(|x| *x == "effort-2025-11-24").count(), 1, "{b:?}");
    assert!(b.iter().any(|x| x == "my-beta"));
}

#[test]
fn switches_for_thinking_and_effort() {
    let env = Env::new();
    let r = one_request(&env, &["--effort", "high"], &[]);
    assert_eq!(r.body["output_config"], json!({"effort": "high"}));
    let r = one_request(&env, &[], &[("MAX_THINKING_TOKENS", "0")]);
    assert_eq!(r.body["thinking"], json!({"type": "disabled"}));
    assert!(r.body.get("context_management").is_none());
    assert!(!betas(&r).iter().any(|b| b.starts_with("interleaved-thinking")));

    // A model that thinks on a budget does so only when asked.
    let r = one_request(&env, &["--model", "claude-sonnet-4-5"], &[]);
    assert!(r.body.get("thinking").is_none() && r.body.get("output_config").is_none(), "{}", r.body);
    let r = one_request(&env, &["--model", "claude-sonnet-4-5", "--max-thinking-tokens", "5000"], &[]);
    assert_eq!(r.body["thinking"], json!({"type": "enabled", "budget_tokens": 5000}));
    let r = one_request(&env, &["--model", "claude-sonnet-4-5"], &[("MAX_THINKING_TOKENS", "2048")]);
    assert_eq!(r.body["thinking"], json!({"type": "enabled", "budget_tokens": 2048}));

    // The settings keys.
    env.write(".claude/settings.json", r#"{"alwaysThinkingEnabled": true, "effortLevel": "low"}"#);
    let r = one_request(&env, &["--model", "claude-sonnet-4-5"], &[]);
    assert_eq!(r.body["thinking"], json!({"type": "enabled", "budget_tokens": 31999}));
    let r = one_request(&env, &[], &[]);
    assert_eq!(r.body["output_config"], json!({"effort": "low"}));
    let r = one_request(&env, &["--effort", "max"], &[]);
    assert_eq!(r.body["output_config"], json!({"effort": "max"}), "the flag wins over the setting");

    env.rein().args(["-p", "x", "--effort", "extreme"]).assert().failure();
}

#[test]
fn thinking_and_redacted_thinking_go_back_unchanged_with_the_tool_call() {
    let env = Env::new();
    let redacted = ContentBlock::RedactedThinking { data: "EnCrYpTeD==".into() };
    let server = serve(Scenario::new([
        reply([
            thinking("I should list the files first.", "sig-Abc123=="),
            redacted,
            tool_use_with_id("g1", "Glob", json!({"pattern": "*"})),
        ]),
        reply([thinking("Now answer.", "sig-2"), text("done")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "go", "--output-format", "stream-json", "--verbose"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(server.pairing_violations(), Vec::<String>::new());
    let sent = &server.requests()[1].body["messages"][1]["content"];
    assert_eq!(
        sent[0],
        json!({"type": "thinking", "thinking": "I should list the files first.", "signature": "sig-Abc123=="})
    );
    assert_eq!(sent[1], json!({"type": "redacted_thinking", "data": "EnCrYpTeD=="}));
    assert_eq!(sent[2]["type"], "tool_use");
    // stream-json shows the thinking blocks in the assistant lines.
    let lines = json_lines(&out.stdout);
    let blocks: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "assistant")
        .flat_map(|l| l["message"]["content"].as_array().unwrap().iter())
        .filter(|b| b["type"] == "thinking")
        .collect();
    assert_eq!(blocks.len(), 2, "{lines:?}");
    assert_eq!(blocks[1]["thinking"], "Now answer.");
}

#[test]
fn verbose_text_output_shows_thinking_apart_from_the_answer() {
    let env = Env::new();
    let server: FakeServer =
        serve(Scenario::new([reply([thinking("Weighing the options.", "s"), text("The answer.")])]));
    let out = env.rein_at(&server).args(["-p", "go", "--verbose"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "The answer.\n");
    let err = String::from_utf8_lossy(&out.stderr);
    let at = err.find("✻ Thinking…").expect("a thinking header");
    let thought = err.find("Weighing the options.").unwrap();
    let answer = err.find("The answer.").unwrap();
    assert!(at < thought && thought < answer, "{err}");
    assert!(!err.contains("\x1b["), "no colour codes when stderr is not a terminal");
}
