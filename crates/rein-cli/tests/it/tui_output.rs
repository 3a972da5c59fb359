//! The terminal UI as a person's terminal has it (issue 53): a command's colour and
//! title sequences leave no `[31m` junk on screen; Ctrl+Z and `fg` suspend and resume.

use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

#[test]
fn a_commands_colours_leave_no_junk_on_screen() {
    let env = Env::new();
    let command = r"printf '\033[31mred-word\033[0m plain \033[1;32mgreen-word\033[m\n'";
    let server =
        serve(Scenario::new([reply([call("a", "Bash", json!({"command": command}))]), reply([text("Printed.")])]));
    let pane = Pane::start(&env, &server, &["--allowedTools", "Bash"]);
    pane.wait_for("manual mode on");
    pane.type_text("print in colour");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Printed.");
    // The output's line (the command's own line shows its text as written).
    let output = screen.lines().find(|l| l.contains("⎿")).unwrap_or_default();
    assert_eq!(output.trim(), "⎿  red-word plain green-word", "{screen}");
}

/// Ctrl+Z stops rein and gives the terminal back to the shell; `fg` brings it back,
/// drawn again, and the `fg` typed was the shell's, not a prompt.
#[test]
fn ctrl_z_suspends_and_fg_resumes() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("Back and answering.")])]));
    let pane = Pane::start_in_shell(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.keys(&["C-z"]);
    pane.wait_for("rein is stopped");
    pane.wait_for("Stopped");
    pane.type_text("fg");
    pane.keys(&["Enter"]);
    // Drawn again below the shell's lines: the footer shows once more after `fg`.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let screen = pane.screen();
        let after = screen.rsplit("fg").next().unwrap_or_default();
        if after.contains("manual mode on") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "not drawn again after fg:\n{screen}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    pane.type_text("still there?");
    pane.keys(&["Enter"]);
    pane.wait_for("Back and answering.");
    let prompts: Vec<String> = server.requests().iter().map(|r| r.body["messages"][0]["content"].to_string()).collect();
    assert!(prompts.iter().all(|p| !p.contains("fg")), "fg became a prompt: {prompts:?}");
    assert_eq!(server.requests().len(), 1);
}

/// A stream that breaks mid-answer: what had arrived of it — whole lines too — leaves
/// the screen, and the retried answer takes its place; a note says what happened.
#[test]
fn a_broken_answer_is_replaced_by_the_retried_one() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([text("HALF-ANSWER line one\nHALF-ANSWER line two that breaks"), text(" off here and never ends")])
            .drop_after_events(4),
        reply([text("WHOLE-ANSWER after the retry.")]),
    ]));
    let pane = Pane::start_with(&env, &server, "REIN_RETRY_BASE_MS=1", &[]);
    pane.wait_for("manual mode on");
    pane.type_text("answer me");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("WHOLE-ANSWER after the retry.");
    assert!(!screen.contains("HALF-ANSWER"), "the broken answer stayed on screen:\n{screen}");
    assert!(screen.contains("broke off"), "{screen}");
}

/// Ctrl+Z while a question is open suspends rein too: the `fg` and Enter typed next are
/// the shell's, and the question is still there, unanswered, when rein comes back.
#[test]
fn ctrl_z_with_a_question_open_suspends_and_answers_nothing() {
    let env = Env::new();
    let server =
        serve(Scenario::new([reply([call("a", "Bash", json!({"command": "touch z.txt"}))]), reply([text("Done.")])]));
    let pane = Pane::start_in_shell(&env, &server, &["'make z'"]);
    pane.wait_for("Do you want to proceed?");
    pane.keys(&["C-z"]);
    pane.wait_for("rein is stopped");
    pane.type_text("fg");
    pane.keys(&["Enter"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while !pane.screen().rsplit("fg").next().unwrap_or_default().contains("Do you want to proceed?") {
        assert!(std::time::Instant::now() < deadline, "the question is not drawn again:\n{}", pane.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!env.cwd().join("z.txt").exists(), "the keys typed for the shell answered the question");
    pane.keys(&["Escape"]);
    pane.wait_for("What should rein do instead?");
    assert!(!env.cwd().join("z.txt").exists());
}
