//! The tools that need the person, in a real terminal (tmux): ExitPlanMode shows the plan
//! and the person picks the mode to go on in; AskUserQuestion shows each question with
//! its options and an "other" answer.

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn the_plan_is_approved_with_auto_accept_and_questions_are_answered() {
    let env = Env::new();
    let target = env.cwd().join("colour.txt");
    let questions = json!({"questions": [
        {"question": "Which colour?", "header": "Colour", "options": [{"label": "Blue"}, {"label": "Green"}], "multiSelect": false},
        {"question": "How bright?", "header": "Brightness", "options": [{"label": "Dim"}, {"label": "Bright"}], "multiSelect": false}
    ]});
    let server = serve(Scenario::new([
        reply([call("q", "AskUserQuestion", questions)]),
        reply([call("p", "ExitPlanMode", json!({"plan": "## Plan\n1. Write colour.txt with the colour"}))]),
        reply([call("w", "Write", json!({"file_path": target, "content": "green\n"}))]),
        reply([text("All painted.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--permission-mode", "plan"]);
    pane.wait_for("plan mode on");
    pane.type_text("paint the wall");
    pane.keys(&["Enter"]);
    pane.wait_for("Which colour?");
    pane.keys(&["2"]);
    pane.wait_for("How bright?");
    // The "other" answer, typed.
    pane.keys(&["Down", "Down", "Tab"]);
    pane.type_text("pastel");
    pane.keys(&["Enter"]);
    pane.wait_for("Ready to code? Here is the plan:");
    pane.wait_for("1. Write colour.txt with the colour");
    pane.keys(&["1"]);
    pane.wait_for("All painted.");
    let screen = pane.wait_for("accept edits on");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "green\n", "{screen}");
    let messages = server.requests()[1].body["messages"].to_string();
    assert!(messages.contains(r#"\"Which colour?\" = \"Green\""#), "{messages}");
    assert!(messages.contains(r#"\"How bright?\" = \"pastel\""#), "{messages}");
}

/// EnterPlanMode asks the person; agreed, the session is in plan mode and a Write is
/// refused until a plan is approved.
#[test]
fn the_model_asks_to_plan_first_and_plan_mode_holds() {
    let env = Env::new();
    let target = env.cwd().join("early.txt");
    let server = serve(Scenario::new([
        reply([call("e", "EnterPlanMode", json!({}))]),
        reply([call("w", "Write", json!({"file_path": target, "content": "too soon\n"}))]),
        reply([text("Planning instead.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--permission-mode", "acceptEdits"]);
    pane.wait_for("accept edits on");
    pane.type_text("redesign the storage layer");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("EnterPlanMode");
    assert!(screen.contains("1. Yes"), "{screen}");
    pane.keys(&["1"]);
    let screen = pane.wait_for("Planning instead.");
    assert!(screen.contains("plan mode on"), "{screen}");
    assert!(!target.exists(), "plan mode holds:\n{screen}");
}
