//! Deferred MCP tools and ToolSearch through the real binary, with a 50-tool server on
//! the official Python MCP SDK: past the threshold only the first few definitions are
//! sent; a loaded definition joins the end of the tools array (the prefix stays) and
//! the tool is callable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::common::{Env, serve, tool_result};
use crate::mcp_python::python;
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

fn config(py: &std::path::Path) -> String {
    let server = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/many_tools_server.py");
    json!({"mcpServers": {"many": {"command": py, "args": [server]}}}).to_string()
}

/// The tools array without its cache breakpoint (which marks whatever tool is last).
fn tools(body: &Value) -> Vec<Value> {
    let mut tools = body["tools"].as_array().unwrap().clone();
    for t in &mut tools {
        if let Some(o) = t.as_object_mut() {
            o.remove("cache_control");
        }
    }
    tools
}

fn names(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn deferred_tools_are_loaded_by_tool_search_and_then_callable() {
    let Some(py) = python() else { return };
    let env = Env::new();
    // Headless, servers start as the first request is answered; a call to one of their
    // tools waits for it, and the next request offers its tools.
    let server = serve(Scenario::new([
        reply([tool_use_with_id("w", "mcp__many__tool_00", json!({}))]),
        reply([tool_use_with_id("s", "ToolSearch", json!({"query": "select:mcp__many__tool_07"}))]),
        reply([tool_use_with_id("t", "mcp__many__tool_07", json!({"text": "hi"}))]),
        reply([tool_use_with_id("k", "ToolSearch", json!({"query": "facet42"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .env("ENABLE_TOOL_SEARCH", "auto:1")
        // A 200 000-token window: 1 % of it is less than the 50 definitions.
        .args(["-p", "go", "--model", "claude-sonnet-4-6", "--allowedTools", "mcp__many", "--mcp-config", &config(&py)])
        .assert()
        .success();
    let reqs: Vec<Value> = server.requests().into_iter().skip(1).map(|r| r.body).collect();
    let first = names(&reqs[0]);
    assert!(first.contains(&"mcp__many__tool_04".to_string()), "the first few are sent: {first:?}");
    assert!(!first.contains(&"mcp__many__tool_07".to_string()));
    let search = reqs[0]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "ToolSearch").unwrap();
    assert!(search["description"].as_str().unwrap().contains("mcp__many__tool_49"), "deferred tools are named");
    // The loaded definition is appended: what came before is unchanged (one cache break).
    let second = tools(&reqs[1]);
    assert_eq!(&second[..second.len() - 1], tools(&reqs[0]).as_slice());
    assert_eq!(second.last().unwrap()["name"], "mcp__many__tool_07");
    let (loaded, _) = tool_result(reqs[1]["messages"].as_array().unwrap(), "s");
    assert!(loaded.contains("facet7"), "{loaded}");
    let (ran, err) = tool_result(reqs[2]["messages"].as_array().unwrap(), "t");
    assert!(!err && ran.contains("tool 07 ran with 'hi'"), "{ran}");
    assert_eq!(tools(&reqs[2]), tools(&reqs[1]), "calling it changes nothing");
    let fourth = names(&reqs[3]);
    assert_eq!(fourth.last().unwrap(), "mcp__many__tool_42", "found by keyword");
}

#[test]
fn without_deferral_every_definition_is_sent() {
    let Some(py) = python() else { return };
    let env = Env::new();
    let first = || reply([tool_use_with_id("w", "mcp__many__tool_00", json!({}))]);
    let server = serve(Scenario::new([first(), reply([text("ok")]), first(), reply([text("ok")])]));
    for mode in ["false", "auto:1"] {
        env.rein_at(&server)
            .env("ENABLE_TOOL_SEARCH", mode)
            // A 200 000-token window: 1 % of it is less than the 50 definitions.
            .args([
                "-p",
                "go",
                "--model",
                "claude-sonnet-4-6",
                "--allowedTools",
                "mcp__many",
                "--mcp-config",
                &config(&py),
            ])
            .assert()
            .success();
    }
    let reqs = server.requests();
    let (all, deferred) = (names(&reqs[1].body), names(&reqs[3].body));
    assert_eq!(all.iter().filter(|n| n.starts_with("mcp__many__")).count(), 50);
    assert!(!all.contains(&"ToolSearch".to_string()));
    assert_eq!(deferred.iter().filter(|n| n.starts_with("mcp__many__")).count(), 5);
    // 45 of the 50 definitions (about 300 bytes each) are replaced by their names.
    assert!(reqs[1].body_len > reqs[3].body_len + 8_000, "{} vs {} bytes", reqs[3].body_len, reqs[1].body_len);
}
