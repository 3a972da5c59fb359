//! Settings and variables Claude Code users set, through the real binary: each one's
//! effect on what rein sends or does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, Step, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn custom_headers_and_the_fallback_model_setting() {
    let env = Env::new();
    env.write(".claude/settings.json", &json!({"fallbackModel": "haiku"}).to_string());
    let overloaded = || Step::api_error(529, "overloaded_error", "Overloaded");
    let server =
        serve(Scenario::new([overloaded(), overloaded(), overloaded(), reply([text("from the fallback")]).into()]));
    env.rein_at(&server)
        .env("ANTHROPIC_CUSTOM_HEADERS", "X-Team: core\nX-Trace-Id: abc 123\nx-api-key: stolen")
        .args(["-p", "x", "--model", "opus"])
        .assert()
        .success();
    let reqs = server.requests();
    assert_eq!(reqs[0].headers["x-team"], "core");
    assert_eq!(reqs[0].headers["x-trace-id"], "abc 123");
    assert_eq!(reqs[0].headers["x-api-key"], "sk-test", "the credentials stay rein's");
    assert_eq!(reqs[3].body["model"], "claude-haiku-4-5", "fallbackModel from the settings");
}

#[test]
fn attribution_goes_into_the_prompt_unless_turned_off() {
    let env = Env::new();
    let line = "Co-Authored-By: rein <rein@example.com>";
    env.write(".claude/settings.json", &json!({"attribution": {"commit": line, "pr": "Made with rein"}}).to_string());
    let server = serve(Scenario::new([reply([text("a")]), reply([text("b")])]));
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    let system = server.requests()[0].system_text();
    assert!(system.contains(line) && system.contains("Made with rein"), "{system}");
    env.write(".claude/settings.local.json", &json!({"includeCoAuthoredBy": false}).to_string());
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    assert!(!server.requests()[1].system_text().contains(line));
}

#[test]
fn bash_timeouts_come_from_the_environment() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("s", "Bash", json!({"command": "sleep 5; echo late"}))]),
        reply([text("done")]),
    ]));
    let started = std::time::Instant::now();
    env.rein_at(&server)
        .env("BASH_DEFAULT_TIMEOUT_MS", "300")
        .args(["-p", "x", "--allowedTools", "Bash(sleep *)"])
        .assert()
        .success();
    assert!(started.elapsed() < std::time::Duration::from_secs(4), "the 300 ms default held");
    let reqs = server.requests();
    assert!(reqs[0].body["tools"].to_string().contains("Timeout 0s"), "the description says the timeout");
    let (result, is_error) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "s");
    assert!(is_error && !result.contains("late"), "{result}");
}

/// Summary requests of a four-listing session at 20 % of a 40 000-token window.
fn summaries_of_a_long_session(env: &Env) -> usize {
    let turn = |i: usize| reply([call(&format!("t{i}"), "Bash", json!({"command": "seq 1 2500"}))]);
    let mut steps: Vec<Step> = (0..4).map(|i| Step::from(turn(i))).collect();
    steps.push(reply([text("finished")]).into());
    let server = serve(Scenario::new(steps).with_summary("SUMMARY"));
    env.rein_at(&server)
        .env("REIN_CONTEXT_WINDOW", "40000")
        .env("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "20")
        .args(["-p", "list", "--allowedTools", "Bash(seq *)"])
        .assert()
        .success();
    server.requests().iter().filter(|r| r.body["tools"].as_array().is_none_or(|t| t.is_empty())).count()
}

#[test]
fn auto_compaction_can_be_turned_off() {
    let env = Env::new();
    env.write(".claude/settings.json", &json!({"autoCompactEnabled": false}).to_string());
    assert_eq!(summaries_of_a_long_session(&env), 0, "no summary request with autoCompactEnabled: false");
    // On (the default), the same session compacts at 20 % of the window.
    std::fs::remove_file(env.cwd().join(".claude/settings.json")).unwrap();
    assert!(summaries_of_a_long_session(&env) > 0, "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE compacts early");
}

#[test]
fn managed_settings_may_allow_only_their_own_rules() {
    let env = Env::new();
    env.trust();
    let managed = tempfile::tempdir().unwrap();
    std::fs::write(managed.path().join("managed-settings.json"), r#"{"allowManagedPermissionRulesOnly": true}"#)
        .unwrap();
    env.write(".claude/settings.json", &json!({"permissions": {"allow": ["Bash(touch *)"]}}).to_string());
    let server =
        serve(Scenario::new([reply([call("t", "Bash", json!({"command": "touch made"}))]), reply([text("ok")])]));
    env.rein_at(&server)
        .env("REIN_MANAGED_SETTINGS_DIR", managed.path())
        .args(["-p", "x", "--allowedTools", "Bash(touch *)"])
        .assert()
        .success();
    assert!(!env.cwd().join("made").exists(), "the project's and the flag's allow rules do not count");
    let server =
        serve(Scenario::new([reply([call("t", "Bash", json!({"command": "touch made"}))]), reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    assert!(env.cwd().join("made").exists(), "without the managed key the project's rule allows");
}

/// Keys of Claude Code's schema that change what a session sends, runs or allows.
#[test]
fn language_git_guidance_auto_mode_models_and_skill_shell_lines_from_the_settings() {
    let env = Env::new();
    env.trust();
    env.write(
        ".claude/settings.json",
        &json!({
            "language": "Norwegian",
            "includeGitInstructions": false,
            "disableAutoMode": "disable",
            "disableSkillShellExecution": true,
            "availableModels": ["sonnet"]
        })
        .to_string(),
    );
    env.write(".claude/commands/probe.md", "---\ndescription: p\n---\nToday: !`touch shell-ran`\n");
    let server = serve(Scenario::new([reply([text("a")])]));
    let out = env.rein_at(&server).args(["-p", "/probe", "--permission-mode", "auto"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!env.cwd().join("shell-ran").exists(), "a skill shell line ran: {stderr}");
    assert!(stderr.contains("disableSkillShellExecution"), "{stderr}");
    let server = serve(Scenario::new([reply([text("a")])]));
    env.rein_at(&server).args(["-p", "hi", "--permission-mode", "auto"]).assert().success();
    let req = &server.requests()[0];
    assert!(req.system_text().contains("Norwegian"), "the language is not in the prompt");
    let tools = req.body["tools"].to_string();
    assert!(tools.contains("\"Bash\"") && !tools.contains("Git and GitHub"), "the git guidance stayed");
    let out = env.rein_at(&server).args(["-p", "hi", "--model", "opus"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("availableModels"), "{stderr}");
}

/// `permissions.blockReadsOutsideWorkingDirectories`: a read outside the project is
/// refused (Claude Code refuses it; rein used to return the file where a rule or mode
/// allowed it), a read inside is not.
#[test]
fn reads_outside_the_project_are_refused_when_the_settings_block_them() {
    let env = Env::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("other.txt"), "someone else's").unwrap();
    env.write("mine.txt", "mine");
    env.write(
        ".claude/settings.local.json",
        &json!({"permissions": {"blockReadsOutsideWorkingDirectories": true}}).to_string(),
    );
    let server = serve(Scenario::new([
        reply([
            call("o", "Read", json!({"file_path": outside.path().join("other.txt")})),
            call("m", "Read", json!({"file_path": env.cwd().join("mine.txt")})),
        ]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "x", "--dangerously-skip-permissions"]).assert().success();
    let last = server.requests().last().unwrap().body["messages"].as_array().unwrap().clone();
    let (result, is_error) = tool_result(&last, "o");
    assert!(is_error && !result.contains("someone else's"), "{result}");
    assert!(result.contains("blockReadsOutsideWorkingDirectories"), "{result}");
    let (result, is_error) = tool_result(&last, "m");
    assert!(!is_error && result.contains("mine"), "{result}");
}
