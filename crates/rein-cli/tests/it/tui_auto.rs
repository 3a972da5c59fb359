//! Auto mode in a real terminal (tmux): Shift+Tab reaches it, the permission dialog
//! offers it, and a judge that cannot decide leaves the question to the person.

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

fn verdict(decision: &str, reason: &str) -> rein_testkit::Reply {
    reply([text(&json!({"decision": decision, "reason": reason}).to_string())])
}

#[test]
fn a_judge_that_cannot_decide_brings_up_the_dialog() {
    let env = Env::new();
    let server = serve(
        Scenario::new([reply([call("a", "Bash", json!({"command": "touch asked.txt"}))]), reply([text("Made it.")])])
            .with_judge([reply([text("hmm, not sure")])]),
    );
    let pane = Pane::start(&env, &server, &["--permission-mode", "auto"]);
    pane.wait_for("auto mode on");
    pane.type_text("make a file");
    pane.keys(&["Enter"]);
    pane.wait_for("could not decide");
    pane.wait_for("Do you want to proceed?");
    pane.keys(&["1"]);
    pane.wait_for("Made it.");
    assert!(env.cwd().join("asked.txt").exists());
}

#[test]
fn the_dialog_switches_to_auto_mode_and_shift_tab_cycles_through_it() {
    let env = Env::new();
    let server = serve(
        Scenario::new([
            reply([call("a", "Bash", json!({"command": "touch one.txt"}))]),
            reply([call("b", "Bash", json!({"command": "touch two.txt"}))]),
            reply([text("Both made.")]),
        ])
        .with_judge([verdict("allow", "the user asked for files")]),
    );
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("make two files");
    pane.keys(&["Enter"]);
    pane.wait_for("4. Yes, and switch to auto mode");
    pane.keys(&["4"]);
    // The second call is judged, not asked.
    let screen = pane.wait_for("Both made.");
    assert!(env.cwd().join("one.txt").exists() && env.cwd().join("two.txt").exists(), "{screen}");
    assert!(screen.contains("auto mode on"), "{screen}");
    assert_eq!(server.requests().iter().filter(|r| r.is_judge()).count(), 1);
    // Shift+Tab: auto → manual → accept edits → plan → auto.
    for expect in ["manual mode on", "accept edits on", "plan mode on", "auto mode on"] {
        pane.keys(&["BTab"]);
        pane.wait_for(expect);
    }
}
