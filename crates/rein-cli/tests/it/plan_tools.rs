//! ExitPlanMode and AskUserQuestion through the real binary, headless: they need the
//! user, so without one they are refused with a message that says so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

#[test]
fn exit_plan_mode_headless_stays_in_plan_mode() {
    let env = Env::new();
    let target = env.cwd().join("planned.txt");
    let server = serve(Scenario::new([
        reply([tool_use_with_id("p", "ExitPlanMode", json!({"plan": "1. write planned.txt"}))]),
        reply([tool_use_with_id("w", "Write", json!({"file_path": target, "content": "x"}))]),
        reply([text("stopped")]),
    ]));
    env.rein_at(&server).args(["-p", "plan it", "--permission-mode", "plan"]).assert().success();
    let reqs = server.requests();
    let (exit, err) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "p");
    assert!(err && exit.contains("needs the user"), "{exit}");
    let (write, err) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "w");
    assert!(err && write.contains("plan mode"), "still planning: {write}");
    assert!(!target.exists());
}

#[test]
fn ask_user_question_headless_says_no_user_is_there() {
    let env = Env::new();
    let question = json!({"questions": [{"question": "Which colour?", "header": "Colour",
        "options": [{"label": "Blue"}, {"label": "Green"}], "multiSelect": false}]});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("q", "AskUserQuestion", question)]),
        reply([text("I will pick blue myself.")]),
    ]));
    env.rein_at(&server).args(["-p", "paint it", "--dangerously-skip-permissions"]).assert().success();
    let reqs = server.requests();
    let tools = reqs[0].body["tools"].to_string();
    assert!(tools.contains("AskUserQuestion") && !tools.contains("\"answers\""), "answers are not offered");
    let (answer, err) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "q");
    assert!(err && answer.contains("no user is here"), "even in bypassPermissions: {answer}");
}
