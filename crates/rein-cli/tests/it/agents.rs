//! Subagents through the real binary: the Agent tool, definitions, SubagentStop hooks.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{Env, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

#[test]
fn a_subagent_runs_with_its_definition_and_its_end_fires_subagent_stop() {
    let env = Env::new();
    env.write(
        ".claude/agents/reviewer.md",
        "---\nname: code-reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep\n---\nYou review code carefully.\n",
    );
    let hook = env.write(".claude/hooks/sub-stop.sh", "#!/bin/sh\ncat > subagent-stop.json\n");
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let stop = env.write(".claude/hooks/stop.sh", "#!/bin/sh\necho main >> stops.txt\n");
    std::fs::set_permissions(&stop, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {
            "SubagentStop": [{"matcher": "code-reviewer", "hooks": [{"type": "command", "command": hook}]}],
            "Stop": [{"hooks": [{"type": "command", "command": stop}]}]
        }})
        .to_string(),
    );
    let server = serve(Scenario::new([
        reply([call(
            "a",
            "Agent",
            json!({"description": "review", "prompt": "Review src for bugs", "subagent_type": "code-reviewer"}),
        )]),
        reply([text("Found one bug in src/lib.rs:3.")]),
        reply([text("The reviewer found a bug.")]),
    ]));
    env.rein_at(&server).args(["-p", "review my code"]).assert().success().stdout("The reviewer found a bug.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    let sub = &reqs[1].body;
    assert!(reqs[1].system_text().starts_with("You review code carefully."));
    let tools: Vec<&str> = sub["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["Read", "Grep"], "the definition's tools, and never Agent");
    assert_eq!(sub["messages"][0]["content"][0]["text"], "Review src for bugs");
    assert!(reqs[0].body["tools"].as_array().unwrap().iter().any(|t| t["name"] == "Agent"));
    let result = &reqs[2].body["messages"][2]["content"][0];
    assert_eq!(result["tool_use_id"], "a");
    assert_eq!(result["content"], "Found one bug in src/lib.rs:3.");
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(env.cwd().join("subagent-stop.json")).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "SubagentStop");
    assert_eq!(input["agent_type"], "code-reviewer");
    assert_eq!(input["stop_hook_active"], false);
    assert_eq!(input["last_assistant_message"], "Found one bug in src/lib.rs:3.");
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("stops.txt")).unwrap(),
        "main\n",
        "Stop fires once, for the main agent only"
    );
}

#[test]
fn the_legacy_name_task_runs_the_agent_tool() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("t", "Task", json!({"description": "look", "prompt": "Say hi"}))]),
        reply([text("hi from the subagent")]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    let reqs = server.requests();
    assert_eq!(reqs[2].body["messages"][2]["content"][0]["content"], "hi from the subagent");
    assert!(
        !reqs[0].body["tools"].as_array().unwrap().iter().any(|t| t["name"] == "Task"),
        "the model is offered Agent only"
    );
}

#[test]
fn agents_given_as_json_on_the_command_line_run_like_files() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("a", "Agent", json!({"description": "check", "prompt": "Check it", "subagent_type": "checker"}))]),
        reply([text("all good")]),
        reply([text("The checker says all good.")]),
    ]));
    let agents = json!({"checker": {"description": "Checks things", "prompt": "You check things.", "tools": ["Read"]}});
    env.rein_at(&server).args(["-p", "check", "--agents", &agents.to_string()]).assert().success();
    let reqs = server.requests();
    assert!(reqs[1].system_text().starts_with("You check things."), "{}", reqs[1].system_text());
    let tools: Vec<&str> =
        reqs[1].body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["Read"]);
}

/// A subagent's messages reach an SDK program as they complete, marked with the Agent
/// call they belong to (`parent_tool_use_id`), before that call's own result.
#[test]
fn a_subagents_messages_are_streamed_with_their_parent_call() {
    let env = Env::new();
    env.write("notes.md", "one\n");
    let server = serve(Scenario::new([
        reply([call("a", "Agent", json!({"description": "look", "prompt": "Read notes.md"}))]),
        reply([call("r", "Read", json!({"file_path": "notes.md"}))]),
        reply([text("notes.md says one.")]),
        reply([text("Done.")]),
    ]));
    let out = env
        .rein_at(&server)
        .args(["-p", "look", "--output-format", "stream-json", "--verbose", "--allowedTools", "Read"])
        .output()
        .unwrap();
    let frames: Vec<Value> =
        String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let of_a: Vec<&Value> = frames.iter().filter(|f| f["parent_tool_use_id"] == "a").collect();
    let kinds: Vec<&str> = of_a.iter().map(|f| f["type"].as_str().unwrap_or_default()).collect();
    // Its task, its call and the call's result; its words come back as the Agent call's
    // result, not as messages of their own (as Claude Code sends them).
    assert_eq!(kinds, ["user", "assistant", "user"], "{of_a:#?}");
    assert_eq!(of_a[0]["message"]["content"][0]["text"], "Read notes.md");
    assert_eq!(of_a[1]["message"]["content"][0]["name"], "Read");
    assert_eq!(of_a[2]["message"]["content"][0]["tool_use_id"], "r");
    // Each comes before the Agent call's own result.
    let at = |f: &Value| frames.iter().position(|g| std::ptr::eq(g, f)).unwrap_or(usize::MAX);
    let result = frames
        .iter()
        .position(|f| f["type"] == "user" && f["message"]["content"][0]["tool_use_id"] == "a")
        .expect("the Agent call's result");
    assert!(of_a.iter().all(|f| at(f) < result));
    let top = frames.iter().filter(|f| f["type"] == "assistant" && f["parent_tool_use_id"].is_null()).count();
    assert_eq!(top, 2, "the session's own two responses are unmarked");
}
