//! A question only a person answers (issue 53): letters typed on while a permission
//! question appears — the person was writing their next prompt — answer nothing; the
//! question waits, says so, and takes a key pressed after a pause.

use std::time::{Duration, Instant};

use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

#[test]
fn keys_typed_on_as_a_question_appears_do_not_answer_it() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": "touch deployed.txt"}))]),
        reply([text("Deployed.")]),
    ]));
    let pane = Pane::start_with(&env, &server, "REIN_TUI_ANSWER_PAUSE_MS=600", &[]);
    pane.wait_for("manual mode on");
    pane.type_text("deploy it");
    pane.keys(&["Enter"]);
    // Typing on — `y`, `1`, `a` and Enter among the letters — while the question opens.
    let until = Instant::now() + Duration::from_millis(1500);
    let mut asked = false;
    while Instant::now() < until || !asked {
        pane.type_text("yes1a");
        pane.keys(&["Enter"]);
        asked = asked || pane.screen().contains("Do you want to proceed?");
        assert!(Instant::now() < until + Duration::from_secs(20), "no question came");
    }
    let screen = pane.wait_for("typed as this appeared went to your draft");
    assert!(screen.contains("Do you want to proceed?"), "{screen}");
    assert!(!env.cwd().join("deployed.txt").exists(), "type-ahead approved the command:\n{screen}");
    assert!(!screen.contains("auto mode on"), "type-ahead switched to auto mode:\n{screen}");
    // Having typed at it, the person turns to the question (an arrow, after a pause),
    // then answers.
    std::thread::sleep(Duration::from_millis(900));
    pane.keys(&["1"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!env.cwd().join("deployed.txt").exists(), "a digit after typing answered before an arrow");
    std::thread::sleep(Duration::from_millis(900));
    pane.keys(&["Up", "1"]);
    let screen = pane.wait_for("Deployed.");
    assert!(env.cwd().join("deployed.txt").exists());
    // What was typed on is in the draft, not lost.
    let draft = screen.lines().rev().find(|l| l.starts_with('❯')).unwrap_or_default();
    assert!(draft.contains("yes1a"), "the draft lost the typing:\n{screen}");
}

/// Keys typed ahead while rein starts — `1` and Enter would trust the folder — answer
/// nothing: the trust question waits, says so, and takes a key pressed after a pause.
#[test]
fn keys_typed_ahead_do_not_trust_a_folder() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("Hello.")])]));
    let pane = Pane::start_untrusted(&env, &server, "REIN_TUI_ANSWER_PAUSE_MS=800", &[]);
    let until = Instant::now() + Duration::from_millis(1200);
    let mut asked = false;
    while Instant::now() < until || !asked {
        pane.keys(&["1", "Enter"]);
        asked = asked || pane.screen().contains("Trust this folder");
        assert!(Instant::now() < until + Duration::from_secs(20), "no question came");
    }
    let screen = pane.wait_for("typed as this appeared answered nothing");
    assert!(!screen.contains("manual mode on"), "type-ahead trusted the folder:\n{screen}");
    std::thread::sleep(Duration::from_millis(1000));
    pane.keys(&["Up", "1"]);
    pane.wait_for("manual mode on");
}
