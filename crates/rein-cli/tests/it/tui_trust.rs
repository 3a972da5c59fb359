//! Workspace trust in a real terminal: in a folder nobody trusted, rein asks before
//! anything of the folder's runs (its SessionStart hook, its status line); "Leave without starting" is
//! the default; "Yes" is recorded in `~/.claude.json` as Claude Code records it, and a
//! trusted folder is not asked again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text};
use serde_json::{Value, json};

/// A folder whose hook and status line leave a mark when they run.
fn folder_that_runs_things() -> Env {
    let env = Env::new();
    env.write(
        ".claude/settings.json",
        &json!({
            "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]},
            "statusLine": {"type": "command", "command": "touch status-ran; echo status"},
            "env": {"FROM_THE_FOLDER": "1"}
        })
        .to_string(),
    );
    env
}

fn trusted_in_claude_json(env: &Env) -> bool {
    let Ok(text) = std::fs::read_to_string(env.home.path().join(".claude.json")) else { return false };
    let config: Value = serde_json::from_str(&text).unwrap();
    config["projects"][env.cwd().to_string_lossy().as_ref()]["hasTrustDialogAccepted"] == true
}

#[test]
fn an_untrusted_folder_is_asked_about_and_no_is_the_default() {
    let env = folder_that_runs_things();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start_untrusted(&env, &server, "", &[]);
    let screen = pane.wait_for("Leave without starting");
    assert!(screen.contains("Trust this folder and start"), "{screen}");
    assert!(screen.contains(&env.cwd().display().to_string()), "{screen}");
    assert!(screen.contains("hooks: SessionStart") && screen.contains("status line"), "{screen}");
    assert!(screen.contains("❯ 2. Leave without starting"), "the pointer starts on No:\n{screen}");
    assert!(!env.cwd().join("hook-ran").exists() && !env.cwd().join("status-ran").exists());
    pane.keys(&["Enter"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !pane.dead() {
        assert!(std::time::Instant::now() < deadline, "rein did not exit:\n{}", pane.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!env.cwd().join("hook-ran").exists(), "the folder's hook ran before it was trusted");
    assert!(!env.cwd().join("status-ran").exists(), "the folder's status line ran before it was trusted");
    assert!(!trusted_in_claude_json(&env));
    assert!(server.requests().is_empty());
}

#[test]
fn yes_is_recorded_and_a_trusted_folder_is_not_asked_again() {
    let env = folder_that_runs_things();
    std::fs::write(env.home.path().join(".claude.json"), r#"{"numStartups": 7}"#).unwrap();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start_untrusted(&env, &server, "", &[]);
    pane.wait_for("Leave without starting");
    pane.keys(&["Up", "Enter"]);
    pane.wait_for("manual mode on");
    assert!(trusted_in_claude_json(&env));
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.path().join(".claude.json")).unwrap()).unwrap();
    assert_eq!(kept["numStartups"], 7, "the rest of ~/.claude.json is kept");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !env.cwd().join("status-ran").exists() {
        assert!(std::time::Instant::now() < deadline, "the trusted folder's status line did not run");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(pane);
    // Trusted now (as Claude Code would have recorded it): no question.
    let again = Pane::start_untrusted(&env, &server, "", &[]);
    let screen = again.wait_for("manual mode on");
    assert!(!screen.contains("Leave without starting"), "{screen}");
}

/// In a narrow terminal the question is wrapped at words by rein, not cut by the
/// terminal in the middle of one (the screen, with the terminal's own wraps joined,
/// has no line wider than the terminal).
#[test]
fn the_question_wraps_at_words_in_a_narrow_terminal() {
    let env = folder_that_runs_things();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start_untrusted_sized(&env, &server, "", &[], (60, 24));
    let screen = pane.wait_for("Leave without starting");
    let wide: Vec<&str> = screen.lines().filter(|l| l.chars().count() > 60).collect();
    assert!(wide.is_empty(), "lines the terminal had to cut: {wide:#?}\n{screen}");
    assert!(screen.contains("Trust it only if you know"), "{screen}");
    pane.keys(&["Escape"]);
}

/// Keys that move the pointer draw the question again in place: its header once.
#[test]
fn moving_the_pointer_draws_the_question_once() {
    let env = folder_that_runs_things();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start_untrusted(&env, &server, "", &[]);
    pane.wait_for("Leave without starting");
    pane.keys(&["Up"]);
    pane.keys(&["Down"]);
    pane.keys(&["Up"]);
    let screen = pane.wait_for("❯ 1. Trust this folder and start");
    assert_eq!(screen.matches("rein has not worked in this folder before").count(), 1, "{screen}");
    assert_eq!(screen.matches("Leave without starting").count(), 1, "{screen}");
    pane.keys(&["Escape"]);
}

/// A resize while the question waits lays it out again at the new width, over the rows
/// the terminal re-wrapped: one copy of it, whole.
#[test]
fn a_resize_lays_the_question_out_again_once() {
    let env = folder_that_runs_things();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start_untrusted(&env, &server, "", &[]);
    pane.wait_for("Leave without starting");
    for width in ["60", "90", "50", "100"] {
        pane.tmux(&["resize-window", "-t", "t", "-x", width]);
    }
    pane.keys(&["Up"]);
    let screen = crate::tui_glance::wait_until(&pane, "the question at 100 columns", |s| {
        s.contains("❯ 1. Trust this folder")
            && s.lines().any(|l| l.starts_with("Trust it only") && l.chars().count() > 80)
    });
    assert_eq!(screen.matches("rein has not worked in this folder before").count(), 1, "{screen}");
    assert_eq!(screen.matches("Leave without starting").count(), 1, "{screen}");
    assert_eq!(screen.matches("Enter to confirm").count(), 1, "{screen}");
    pane.keys(&["Escape"]);
}
