//! Subagent front-matter fields and the built-in types, through the real binary: what
//! each field changes in the subagent's requests and in what it may do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn agent(kind: &str) -> rein_testkit::Reply {
    reply([call("a", "Agent", json!({"description": "task", "prompt": "Do the task", "subagent_type": kind}))])
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
}

#[test]
fn explore_and_plan_are_built_in_read_only_types() {
    let env = Env::new();
    let server = serve(Scenario::new([
        agent("Explore"),
        reply([text("src/lib.rs:1 has it.")]),
        agent("Plan"),
        reply([text("Step 1.")]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "find it", "--model", "claude-opus-5-5"]).assert().success();
    let reqs = server.requests();
    let main_tools = reqs[0].body["tools"].to_string();
    assert!(main_tools.contains("- Explore: Finds files") && main_tools.contains("- Plan: Designs how"));
    for (n, model) in [(1, "claude-haiku-4-5"), (3, "claude-opus-5-5")] {
        let tools = tool_names(&reqs[n].body);
        assert!(tools.contains(&"Grep".to_string()) && tools.contains(&"Bash".to_string()), "{tools:?}");
        for never in ["Edit", "Write", "NotebookEdit", "Agent"] {
            assert!(!tools.contains(&never.to_string()), "{never} offered to a read-only type: {tools:?}");
        }
        assert_eq!(reqs[n].body["model"], model);
        assert!(reqs[n].system_text().contains("You change nothing"));
    }
}

#[test]
fn disallowed_tools_max_turns_and_the_subagent_model_variable() {
    let env = Env::new();
    env.write(
        ".claude/agents/worker.md",
        "---\nname: worker\ndescription: Works\ntools: \"*\"\ndisallowedTools: Bash, WebFetch\nmaxTurns: 1\nmodel: inherit\n---\nWork.\n",
    );
    env.write("notes.txt", "n\n");
    let server = serve(Scenario::new([
        agent("worker"),
        reply([call("r", "Read", json!({"file_path": env.cwd().join("notes.txt")}))]),
        reply([text("ok")]),
    ]));
    env.rein_at(&server)
        .env("CLAUDE_CODE_SUBAGENT_MODEL", "sonnet")
        .args(["-p", "go", "--model", "claude-opus-5-5"])
        .assert()
        .success();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3, "maxTurns 1: the subagent takes no second turn");
    let tools = tool_names(&reqs[1].body);
    assert!(tools.contains(&"Edit".to_string()) && !tools.contains(&"Bash".to_string()), "{tools:?}");
    assert!(!tools.contains(&"WebFetch".to_string()));
    assert_eq!(reqs[1].body["model"], "claude-sonnet-5-5", "CLAUDE_CODE_SUBAGENT_MODEL wins over inherit");
    let (result, is_error) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "a");
    assert!(is_error && result.contains("hit its limit"), "{result}");
}

/// A subagent that writes `out.txt` with the Write tool.
fn writer_scenario(env: &Env, kind: &str) -> Scenario {
    Scenario::new([
        agent(kind),
        reply([call("w", "Write", json!({"file_path": env.cwd().join("out.txt"), "content": "x"}))]),
        reply([text("wrote it")]),
        reply([text("done")]),
    ])
}

#[test]
fn a_project_definition_may_narrow_the_mode_but_never_widen_it() {
    let env = Env::new();
    env.write(
        ".claude/agents/wide.md",
        "---\nname: wide\ndescription: w\npermissionMode: bypassPermissions\n---\nW.\n",
    );
    env.write(".claude/agents/edits.md", "---\nname: edits\ndescription: e\npermissionMode: acceptEdits\n---\nE.\n");
    env.write(".claude/agents/planner.md", "---\nname: planner\ndescription: p\npermissionMode: plan\n---\nP.\n");
    for kind in ["wide", "edits"] {
        let server = serve(writer_scenario(&env, kind));
        env.rein_at(&server).args(["-p", "go"]).assert().success();
        assert!(!env.cwd().join("out.txt").exists(), "the project's {kind} agent widened the default mode");
    }
    let server = serve(writer_scenario(&env, "planner"));
    env.rein_at(&server).args(["-p", "go", "--permission-mode", "acceptEdits"]).assert().success();
    assert!(!env.cwd().join("out.txt").exists(), "plan narrows acceptEdits for the subagent");
    // The user's own definition may widen (up to acceptEdits here), as in Claude Code.
    let user = env.home.path().join(".claude/agents/mine.md");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "---\nname: mine\ndescription: m\npermissionMode: acceptEdits\n---\nM.\n").unwrap();
    let server = serve(writer_scenario(&env, "mine"));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    assert_eq!(std::fs::read_to_string(env.cwd().join("out.txt")).unwrap(), "x");
}

#[test]
fn a_plan_session_stays_in_plan_and_a_project_cannot_move_home_to_widen() {
    // dontAsk runs what the rules allow; plan runs no change at all: a plan session's
    // subagent stays in plan.
    let env = Env::new();
    env.write(".claude/agents/quiet.md", "---\nname: quiet\ndescription: q\npermissionMode: dontAsk\n---\nQ.\n");
    env.write(".claude/settings.json", &json!({"permissions": {"allow": ["Write"]}}).to_string());
    let server = serve(writer_scenario(&env, "quiet"));
    env.rein_at(&server).args(["-p", "go", "--permission-mode", "plan"]).assert().success();
    assert!(!env.cwd().join("out.txt").exists(), "the subagent left plan mode");
    // The settings' env may not move ~: the project's own agents stay the project's.
    let env = Env::new();
    env.write(
        ".fh/.claude/agents/editor.md",
        "---\nname: editor\ndescription: e\npermissionMode: acceptEdits\n---\nE.\n",
    );
    env.write(".claude/settings.json", &json!({"env": {"HOME": env.cwd().join(".fh")}}).to_string());
    let server = serve(writer_scenario(&env, "editor"));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    assert!(!env.cwd().join("out.txt").exists(), "a project definition passed for the user's and widened the mode");
}

#[test]
fn a_project_cannot_turn_on_bypass_permissions() {
    let env = Env::new();
    env.write(".claude/settings.json", &json!({"permissions": {"defaultMode": "bypassPermissions"}}).to_string());
    let server =
        serve(Scenario::new([reply([call("t", "Bash", json!({"command": "touch made"}))]), reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    assert!(!env.cwd().join("made").exists(), "the project's defaultMode turned every question off");
    let user = env.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, json!({"permissions": {"defaultMode": "bypassPermissions"}}).to_string()).unwrap();
    std::fs::remove_file(env.cwd().join(".claude/settings.json")).unwrap();
    let server =
        serve(Scenario::new([reply([call("t", "Bash", json!({"command": "touch made"}))]), reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    assert!(env.cwd().join("made").exists(), "the user's own defaultMode holds");
}
