//! Turn-only rules: a custom command's `allowed-tools` and `model` hold for the turn it
//! starts and are gone for the next prompt (one mechanism for commands and skills).

use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

use crate::common::{Project, prompt};

#[tokio::test(flavor = "current_thread")]
async fn a_commands_allowed_tools_and_model_hold_for_its_turn_only() {
    let project = Project::new();
    project.write(
        ".claude/commands/mk.md",
        "---\ndescription: Make files\nallowed-tools: Bash(touch:*)\nmodel: claude-haiku-4-5\n---\nMake the files.\n",
    );
    let server = rein_testkit::FakeServer::start(Scenario::new([
        reply([call("t1", "Bash", json!({"command": "touch one.txt"}))]),
        reply([text("made one")]),
        reply([call("t2", "Bash", json!({"command": "touch two.txt"}))]),
        reply([text("not allowed")]),
    ]))
    .unwrap();
    let (_setup, mut session) = project.session(&project.options(), &server);
    let first = prompt(&mut session, "/mk").await;
    assert!(first.permission_denials.is_empty(), "{:?}", first.permission_denials);
    assert!(project.cwd().join("one.txt").exists(), "the command's turn ran its allowed call");
    let second = prompt(&mut session, "again, without the command").await;
    assert_eq!(second.permission_denials.len(), 1, "headless, the next turn's call is asked, so refused");
    assert!(!project.cwd().join("two.txt").exists());
    let models: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| !r.is_title())
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(models[0], "claude-haiku-4-5");
    assert_eq!(models[1], "claude-haiku-4-5", "the command's model holds for its whole turn");
    assert_ne!(models[2], "claude-haiku-4-5", "the command's model held past its turn");
}
