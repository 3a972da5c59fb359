//! What the guidance costs (issue 34): the whole of it (system prompt and every default
//! tool's description) stays at most half of Claude Code's bytes for the same tools, as
//! measured on Claude Code itself (crates/rein-prompt/claude_code_sizes.json, written by
//! scripts/measure-claude-code-prompt); the first request stays at most 14 KB; rarely
//! used built-in tools wait behind ToolSearch as Claude Code's do, and stay callable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve};
use rein_testkit::{RecordedRequest, Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

fn first_request(env: &Env, tool_search: Option<&str>) -> RecordedRequest {
    let server = serve(Scenario::new([reply([text("ok")])]));
    let mut cmd = env.rein_at(&server);
    if let Some(mode) = tool_search {
        cmd.env("ENABLE_TOOL_SEARCH", mode);
    }
    cmd.args(["-p", "hi"]).assert().success();
    server.requests().into_iter().next().unwrap()
}

fn names(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn the_guidance_is_at_most_half_of_claude_codes_for_the_same_tools() {
    let recorded: Value = serde_json::from_str(include_str!("../../../rein-prompt/claude_code_sizes.json")).unwrap();
    let env = Env::new();
    // Every definition in full, the deferred ones too.
    let request = first_request(&env, Some("false"));
    let tools = request.body["tools"].as_array().unwrap();
    let ours: usize = request.system_text().len()
        + tools.iter().map(|t| t["description"].as_str().unwrap_or_default().len()).sum::<usize>();
    for mode in ["print", "interactive"] {
        let cc = &recorded[mode];
        let same: Vec<&str> =
            tools.iter().filter_map(|t| t["name"].as_str()).filter(|n| cc["tools"].get(*n).is_some()).collect();
        assert!(same.len() >= 8, "most of our tools are Claude Code's too ({mode}): {same:?}");
        let theirs = cc["system"].as_u64().unwrap() as usize
            + same.iter().map(|n| cc["tools"][*n].as_u64().unwrap() as usize).sum::<usize>();
        assert!(
            ours * 2 <= theirs,
            "rein's whole guidance ({ours} bytes, every tool) is at most half of Claude Code {}'s in {mode} \
             mode for the tools both have ({theirs} bytes: {same:?})",
            recorded["claude_code"]
        );
    }
}

#[test]
fn the_first_request_is_at_most_14_kb_with_the_default_tools() {
    let env = Env::new();
    let request = first_request(&env, None);
    assert!(request.body_len <= 14 * 1024, "the first request is {} bytes", request.body_len);
    let sent = names(&request.body);
    for tool in ["Read", "Glob", "Grep", "Bash", "Write", "Edit", "TodoWrite", "Agent", "AskUserQuestion"] {
        assert!(sent.contains(&tool.to_string()), "{tool} is sent in full: {sent:?}");
    }
}

#[test]
fn rarely_used_tools_wait_behind_tool_search_and_stay_callable() {
    let env = Env::new();
    let first = first_request(&env, None);
    let sent = names(&first.body);
    let search = first.body["tools"].as_array().unwrap().iter().find(|t| t["name"] == "ToolSearch").unwrap();
    let described = search["description"].as_str().unwrap();
    for tool in ["NotebookEdit", "WebFetch", "WebSearch", "EnterWorktree", "ExitWorktree", "TaskStop", "MultiEdit"] {
        assert!(!sent.contains(&tool.to_string()), "{tool} waits: {sent:?}");
        assert!(described.contains(tool), "ToolSearch names {tool}: {described}");
    }
    // Off: every definition is sent, and no ToolSearch.
    let all = names(&first_request(&env, Some("false")).body);
    assert!(all.contains(&"NotebookEdit".to_string()) && !all.contains(&"ToolSearch".to_string()), "{all:?}");

    // Loading one appends it (the prefix stays); calling one by name works loaded or not.
    env.write("n.ipynb", r#"{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#);
    let server = serve(Scenario::new([
        reply([tool_use_with_id("s", "ToolSearch", json!({"query": "select:TaskStop"}))]),
        reply([tool_use_with_id("r", "Read", json!({"file_path": "n.ipynb"}))]),
        reply([tool_use_with_id(
            "n",
            "NotebookEdit",
            json!({"notebook_path": "n.ipynb", "new_source": "print(1)", "cell_type": "code", "edit_mode": "insert"}),
        )]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "NotebookEdit"]).assert().success();
    let reqs: Vec<Value> = server.requests().into_iter().map(|r| r.body).collect();
    let before = names(&reqs[0]);
    let after = names(&reqs[1]);
    assert_eq!(&after[..after.len() - 1], before.as_slice(), "the load only appends");
    assert_eq!(after.last().map(String::as_str), Some("TaskStop"));
    let notebook = std::fs::read_to_string(env.dir.path().join("n.ipynb")).unwrap();
    assert!(notebook.contains("print(1)"), "a deferred tool called by name ran: {notebook}");
}
