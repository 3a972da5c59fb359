//! `agent` and `mcp_tool` hook handlers through the real binary: an agent hook is a
//! read-only subagent on the small model (the fake server answers it as a judge) whose
//! "no" blocks the call; an mcp_tool hook calls a tool of a real MCP server
//! (server-everything) with placeholders filled from the hook's input; Elicitation and
//! ElicitationResult hooks answer that server's request for input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve, tool_result};
use crate::mcp::node_modules;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn main_messages(server: &rein_testkit::FakeServer, n: usize) -> Vec<Value> {
    let main: Vec<Value> = server.requests().into_iter().filter(|r| !r.is_judge()).map(|r| r.body).collect();
    main[n]["messages"].as_array().unwrap().clone()
}

#[test]
fn an_agent_hook_looks_with_read_only_tools_and_its_no_blocks_the_call() {
    let env = Env::new();
    env.write("NOTES.md", "TODO: write the changelog first\n");
    let hook = json!({"type": "agent", "prompt": "Refuse any change while NOTES.md lists a TODO. $ARGUMENTS"});
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}).to_string(),
    );
    let server = serve(
        Scenario::new([
            reply([call("b", "Bash", json!({"command": "echo changed > out.txt"}))]),
            reply([text("Blocked; I will write the changelog.")]),
        ])
        .with_judge([
            reply([call("g", "Grep", json!({"pattern": "TODO", "output_mode": "content"}))]),
            reply([text("NOTES.md still lists one.\n{\"ok\": false, \"reason\": \"NOTES.md lists a TODO\"}")]),
        ]),
    );
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "Bash"])
        .assert()
        .success()
        .stdout("Blocked; I will write the changelog.\n");
    assert!(!env.dir.path().join("out.txt").exists(), "the agent hook's no blocked the command");
    let (result, is_error) = tool_result(&main_messages(&server, 1), "b");
    assert!(is_error && result.contains("NOTES.md lists a TODO"), "{result}");

    let judged: Vec<Value> = server.requests().into_iter().filter(|r| r.is_judge()).map(|r| r.body).collect();
    assert_eq!(judged.len(), 2, "the agent took two turns");
    assert_eq!(judged[0]["model"], "claude-haiku-4-5", "the small model by default");
    let mut tools: Vec<&str> =
        judged[0]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    tools.sort_unstable();
    assert_eq!(tools, ["Glob", "Grep", "Read"], "an agent hook only looks");
    assert!(judged[0]["messages"].to_string().contains("echo changed > out.txt"), "$ARGUMENTS is the hook's input");
    let (grep, _) = tool_result(judged[1]["messages"].as_array().unwrap(), "g");
    assert!(grep.contains("write the changelog first"), "its Grep ran in the project: {grep}");
}

#[test]
fn an_agent_hook_that_agrees_lets_the_call_run() {
    let env = Env::new();
    let hook = json!({"type": "agent", "prompt": "Is this safe?", "model": "sonnet"});
    env.write(".claude/settings.json", &json!({"hooks": {"PreToolUse": [{"hooks": [hook]}]}}).to_string());
    let server = serve(
        Scenario::new([reply([call("b", "Bash", json!({"command": "echo fine > out.txt"}))]), reply([text("done")])])
            .with_judge([reply([text("{\"ok\": true}")])]),
    );
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Bash"]).assert().success();
    assert_eq!(std::fs::read_to_string(env.dir.path().join("out.txt")).unwrap(), "fine\n");
    let judged: Vec<Value> = server.requests().into_iter().filter(|r| r.is_judge()).map(|r| r.body).collect();
    assert!(judged[0]["model"].as_str().unwrap().contains("sonnet"), "the hook's model: {}", judged[0]["model"]);
}

#[test]
fn an_mcp_tool_hook_calls_the_servers_tool_with_the_hooks_input() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let everything = json!({"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]});
    let hook =
        json!({"type": "mcp_tool", "server": "everything", "tool": "echo", "input": {"message": "seen ${prompt}"}});
    env.write(".claude/settings.json", &json!({"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}).to_string());
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server)
        .args(["-p", "fix the parser", "--mcp-config", &json!({"mcpServers": {"everything": everything}}).to_string()])
        .assert()
        .success();
    let sent = main_messages(&server, 0);
    assert!(
        sent.iter().any(|m| m.to_string().contains("Echo: seen fix the parser")),
        "the tool's text is the hook's stdout, context for the model: {sent:?}"
    );
}

#[test]
fn an_mcp_tool_hook_on_a_server_that_is_not_there_does_not_stop_the_turn() {
    let env = Env::new();
    let hook =
        json!({"type": "mcp_tool", "server": "absent", "tool": "scan", "input": {"path": "${tool_input.command}"}});
    env.write(".claude/settings.json", &json!({"hooks": {"PreToolUse": [{"hooks": [hook]}]}}).to_string());
    let server = serve(Scenario::new([
        reply([call("b", "Bash", json!({"command": "echo ran > out.txt"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Bash"]).assert().success().stdout("done\n");
    assert!(env.dir.path().join("out.txt").exists(), "a failing mcp_tool hook is a non-blocking error");
}

fn elicit_scenario() -> rein_testkit::FakeServer {
    serve(Scenario::new([
        reply([call("e", "mcp__everything__trigger-elicitation-request", json!({}))]),
        reply([text("done")]),
    ]))
}

#[test]
fn elicitation_hooks_answer_a_servers_request_for_input_and_see_the_answer() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let log = env.cwd().join("elicit.jsonl");
    let record = format!("cat >> '{}'; echo >> '{}'", log.display(), log.display());
    let answer = r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"name":"Ada Lovelace","check":true}}}"#;
    let hooks = json!({
        "Elicitation": [{"matcher": "everything", "hooks": [{"type": "command", "command": format!("{record}; echo '{answer}'")}]}],
        "ElicitationResult": [{"hooks": [{"type": "command", "command": record}]}],
    });
    env.write(".claude/settings.json", &json!({"hooks": hooks}).to_string());
    let everything = json!({"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]});
    let server = elicit_scenario();
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__everything"])
        .args(["--mcp-config", &json!({"mcpServers": {"everything": everything}}).to_string()])
        .assert()
        .success();
    let (result, is_error) = tool_result(&main_messages(&server, 1), "e");
    assert!(!is_error && result.contains("Name: Ada Lovelace"), "the hook's answer reached the server: {result}");
    let text = std::fs::read_to_string(&log).unwrap();
    let inputs: Vec<Value> = text.lines().filter(|l| !l.is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
    let asked = &inputs[0];
    assert_eq!(
        (asked["hook_event_name"].as_str(), asked["mcp_server_name"].as_str()),
        (Some("Elicitation"), Some("everything"))
    );
    assert_eq!(asked["mode"], "form");
    assert!(asked["message"].as_str().unwrap().contains("Please provide inputs"), "{asked}");
    assert!(asked["requested_schema"]["properties"]["name"].is_object(), "{asked}");
    let seen = &inputs[1];
    assert_eq!(
        (seen["hook_event_name"].as_str(), seen["action"].as_str()),
        (Some("ElicitationResult"), Some("accept"))
    );
    assert_eq!(seen["content"]["name"], "Ada Lovelace");
}

#[test]
fn an_elicitation_no_hook_answers_is_declined_and_a_result_hook_can_decline_one() {
    let Some(nm) = node_modules() else { return };
    let everything = json!({"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]});
    let config = json!({"mcpServers": {"everything": everything}}).to_string();
    let accept = r#"{"hookSpecificOutput":{"hookEventName":"Elicitation","action":"accept","content":{"name":"Ada"}}}"#;
    let refuse = "echo 'not this one' >&2; exit 2";
    for hooks in [
        json!({}),
        json!({
            "Elicitation": [{"hooks": [{"type": "command", "command": format!("echo '{accept}'")}]}],
            "ElicitationResult": [{"hooks": [{"type": "command", "command": refuse}]}],
        }),
    ] {
        let env = Env::new();
        env.write(".claude/settings.json", &json!({"hooks": hooks}).to_string());
        let server = elicit_scenario();
        env.rein_at(&server)
            .args(["-p", "go", "--allowedTools", "mcp__everything", "--mcp-config", &config])
            .assert()
            .success();
        let (result, _) = tool_result(&main_messages(&server, 1), "e");
        assert!(result.contains("declined") && !result.contains("Ada"), "{hooks}: {result}");
    }
}
