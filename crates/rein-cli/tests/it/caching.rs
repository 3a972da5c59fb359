//! Prompt caching through the real binary: where the breakpoints go, that the cached
//! prefix does not change from one turn to the next, the switches that change them, and
//! that cache reads and writes are priced and reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, json_lines, serve};
use rein_protocol::{CacheCreation, Usage};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

fn three_turns() -> Scenario {
    Scenario::new([
        reply([tool_use_with_id("g1", "Glob", json!({"pattern": "*.rs"}))]),
        reply([tool_use_with_id("g2", "Glob", json!({"pattern": "*.md"}))]),
        reply([text("done")]),
    ])
}

/// Every `cache_control` value with where it sits.
fn breakpoints(v: &Value, at: &str, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                if k == "cache_control" {
                    out.push((at.to_string(), v.clone()));
                } else {
                    breakpoints(v, &format!("{at}/{k}"), out);
                }
            }
        }
        Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| breakpoints(v, &format!("{at}/{i}"), out)),
        _ => {}
    }
}

fn without_breakpoints(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "cache_control")
                .map(|(k, v)| (k.clone(), without_breakpoints(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_breakpoints).collect()),
        other => other.clone(),
    }
}

fn run(env: &Env, server: &FakeServer, vars: &[(&str, &str)]) {
    let mut cmd = env.rein_at(server);
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.args(["-p", "find the sources"]).assert().success();
}

#[test]
fn each_request_marks_system_parts_tools_and_the_newest_message_and_the_prefix_never_moves() {
    let env = Env::new();
    env.write("CLAUDE.md", "Use tabs.\n");
    let server = serve(three_turns());
    run(&env, &server, &[]);
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    for (n, r) in reqs.iter().enumerate() {
        let mut found = Vec::new();
        breakpoints(&r.body, "", &mut found);
        let mut at: Vec<String> = found.iter().map(|(p, _)| p.clone()).collect();
        at.sort();
        let last = r.body["messages"].as_array().unwrap().len() - 1;
        let tools = r.body["tools"].as_array().unwrap().len() - 1;
        let mut want = vec![
            format!("/messages/{last}/content/0"),
            "/system/0".to_string(),
            "/system/1".to_string(),
            format!("/tools/{tools}"),
        ];
        want.sort();
        assert_eq!(at, want, "request {n}");
        assert!(found.iter().all(|(_, v)| *v == json!({"type": "ephemeral"})));
        let system = &r.body["system"];
        assert!(
            !system[0]["text"].as_str().unwrap().contains("Use tabs."),
            "memory is per-session, after the stable part"
        );
        assert!(system[1]["text"].as_str().unwrap().contains("Use tabs."));
    }
    // What turn N cached (tools, system, its messages) is exactly what turn N+1 sends first.
    for pair in reqs.windows(2) {
        let (this, next) = (without_breakpoints(&pair[0].body), without_breakpoints(&pair[1].body));
        assert_eq!(this["tools"], next["tools"]);
        assert_eq!(this["system"], next["system"]);
        let (a, b) = (this["messages"].as_array().unwrap(), next["messages"].as_array().unwrap());
        assert_eq!(a[..], b[..a.len()], "the history sent before must be sent again unchanged");
        let bytes = |v: &[Value]| serde_json::to_vec(v).unwrap();
        assert_eq!(bytes(a), bytes(&b[..a.len()]));
    }
}

#[test]
fn disable_prompt_caching_sends_no_breakpoints_and_the_1h_switch_sets_the_ttl() {
    let env = Env::new();
    let server = serve(three_turns());
    run(&env, &server, &[("DISABLE_PROMPT_CACHING", "1")]);
    for r in server.requests() {
        assert!(!r.body.to_string().contains("cache_control"));
        assert!(r.body["system"].is_string(), "a plain system string when caching is off");
    }
    let server = serve(three_turns());
    run(&env, &server, &[("ENABLE_PROMPT_CACHING_1H", "1")]);
    for r in server.requests() {
        let mut found = Vec::new();
        breakpoints(&r.body, "", &mut found);
        assert_eq!(found.len(), 4);
        assert!(found.iter().all(|(_, v)| *v == json!({"type": "ephemeral", "ttl": "1h"})), "{found:?}");
    }
    // The same switch in the settings' env block, where Claude Code users keep it (a
    // trusted folder's).
    env.trust();
    env.write(".claude/settings.json", &json!({"env": {"ENABLE_PROMPT_CACHING_1H": "1"}}).to_string());
    let server = serve(three_turns());
    run(&env, &server, &[]);
    for r in server.requests() {
        let mut found = Vec::new();
        breakpoints(&r.body, "", &mut found);
        assert!(found.iter().all(|(_, v)| v["ttl"] == "1h") && found.len() == 4, "{found:?}");
    }
}

#[test]
fn cache_reads_and_writes_are_priced_apart_and_reported() {
    let env = Env::new();
    let usage = |write, read| Usage {
        input_tokens: 10,
        output_tokens: 100,
        cache_creation_input_tokens: write,
        cache_read_input_tokens: read,
        ..Usage::default()
    };
    let server = serve(Scenario::new([
        reply([tool_use_with_id("g1", "Glob", json!({"pattern": "*"}))]).usage(usage(20_000, 0)),
        reply([text("done")]).usage(usage(500, 20_000)),
    ]));
    let out = env
        .rein_at(&server)
        .args(["-p", "go", "--output-format", "json", "--model", "claude-sonnet-4-5"])
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["usage"]["cache_creation_input_tokens"], 20_500);
    assert_eq!(r["usage"]["cache_read_input_tokens"], 20_000);
    let m = &r["modelUsage"]["claude-sonnet-4-5"];
    assert_eq!(m["cacheReadInputTokens"], 20_000);
    assert_eq!(m["cacheCreationInputTokens"], 20_500);
    // Sonnet: $3 input, writes ×1.25, reads ×0.1, $15 output, per million tokens.
    let want = (20.0 * 3.0 + 20_500.0 * 3.75 + 20_000.0 * 0.3 + 200.0 * 15.0) / 1e6;
    let cost = r["total_cost_usd"].as_f64().unwrap();
    assert!((cost - want).abs() < 1e-9, "cost {cost}, want {want}");
    let stream = env
        .rein_at(&serve(Scenario::new([reply([text("hi")]).usage(usage(7, 9))])))
        .args(["-p", "go", "--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    let lines = json_lines(&stream.stdout);
    let result = lines.iter().find(|l| l["type"] == "result").unwrap();
    assert_eq!(result["usage"]["cache_creation_input_tokens"], 7);
    assert_eq!(result["usage"]["cache_read_input_tokens"], 9);
}

#[test]
fn one_hour_cache_writes_are_priced_at_twice_the_input_price() {
    let env = Env::new();
    let split = CacheCreation { ephemeral_5m_input_tokens: 1_000, ephemeral_1h_input_tokens: 4_000 };
    let usage = Usage {
        output_tokens: 100,
        cache_creation_input_tokens: 5_000,
        cache_creation: Some(split),
        ..Usage::default()
    };
    let server = serve(Scenario::new([reply([text("hi")]).usage(usage)]));
    let out = env
        .rein_at(&server)
        .env("ENABLE_PROMPT_CACHING_1H", "1")
        .args(["-p", "go", "--output-format", "json", "--model", "claude-sonnet-4-5"])
        .output()
        .unwrap();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Sonnet input $3 per million: 5-minute writes ×1.25, 1-hour writes ×2; output $15.
    let want = (1_000.0 * 3.75 + 4_000.0 * 6.0 + 100.0 * 15.0) / 1e6;
    let cost = r["total_cost_usd"].as_f64().unwrap();
    assert!((cost - want).abs() < 1e-9, "cost {cost}, want {want}");
    assert_eq!(r["usage"]["cache_creation"]["ephemeral_1h_input_tokens"], 4_000, "{r}");
}
