//! Settings, rules, modes and the audit through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, json_lines, serve};
use predicates::prelude::*;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

/// A session whose model makes `calls` then says "done"; returns the run's JSON lines
/// and the tool results the model got, by id.
fn session(env: &Env, calls: Vec<rein_protocol::ContentBlock>, flags: &[&str]) -> (Vec<Value>, Value) {
    let server = serve(Scenario::new([reply(calls), reply([text("done")])]));
    let mut args = vec!["-p", "go", "--output-format", "stream-json", "--verbose"];
    args.extend_from_slice(flags);
    let out = env.rein_at(&server).args(&args).output().unwrap();
    let lines = json_lines(&out.stdout);
    let results = server.requests().get(1).map(|r| r.body["messages"][2]["content"].clone()).unwrap_or(Value::Null);
    (lines, results)
}

fn result_of<'a>(results: &'a Value, id: &str) -> &'a Value {
    results.as_array().unwrap().iter().find(|b| b["tool_use_id"] == id).unwrap()
}

fn project_settings(env: &Env, json: &str) {
    env.write(".claude/settings.json", json);
}

#[test]
fn a_project_deny_rule_stops_the_call_and_is_listed_in_the_result() {
    let env = Env::new();
    project_settings(&env, r#"{"permissions": {"deny": ["Bash(touch:*)"], "allow": ["Bash(touch:*)"]}}"#);
    let (lines, results) = session(&env, vec![call("t", "Bash", json!({"command": "echo hi && touch pwned"}))], &[]);
    let r = result_of(&results, "t");
    assert_eq!(r["is_error"], true);
    assert!(r["content"].as_str().unwrap().contains("denied by rule `Bash(touch:*)`"), "{r}");
    assert!(r["content"].as_str().unwrap().contains(".claude/settings.json:1"), "{r}");
    assert!(!env.cwd().join("pwned").exists());
    let result = lines.last().unwrap();
    assert_eq!(result["permission_denials"][0]["tool_use_id"], "t");
    assert_eq!(result["permission_denials"][0]["tool_name"], "Bash");
    assert_eq!(result["permission_denials"][0]["tool_input"]["command"], "echo hi && touch pwned");
}

#[test]
fn bad_settings_stop_rein_at_start_with_file_and_line() {
    let env = Env::new();
    project_settings(&env, "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\",]\n  }\n}");
    let server = serve(Scenario::new([reply([text("never")])]));
    env.rein_at(&server)
        .args(["-p", "x"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(".claude/settings.json:3:").and(predicate::str::contains("not valid JSON")));
    assert!(server.requests().is_empty(), "rein must not start a session with settings it could not read");
    // A deny rule it cannot read fails closed: its whole tool is denied, said with the
    // file and line.
    project_settings(&env, "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm:*\"]\n  }\n}");
    env.rein_at(&server).args(["-p", "x"]).assert().success().stderr(
        predicate::str::contains(".claude/settings.json:3").and(predicate::str::contains("Bash is denied outright")),
    );
    let tools = server.requests()[0].body["tools"].to_string();
    assert!(!tools.contains("\"Bash\""), "{tools}");
}

#[test]
fn a_bare_disallowed_tool_is_not_offered_to_the_model() {
    let env = Env::new();
    let (lines, _) =
        session(&env, vec![call("b", "Bash", json!({"command": "ls"}))], &["--disallowedTools", "Bash", "WebFetch"]);
    let tools = lines[0]["tools"].as_array().unwrap();
    assert!(!tools.contains(&json!("Bash")) && !tools.contains(&json!("WebFetch")) && tools.contains(&json!("Read")));
}

#[test]
fn modes_plan_dont_ask_accept_edits_and_bypass() {
    let env = Env::new();
    env.write("a.txt", "old\n");
    let write = || call("w", "Write", json!({"file_path": env.cwd().join("new.txt"), "content": "x"}));
    let read = || call("r", "Read", json!({"file_path": env.cwd().join("a.txt")}));

    let (lines, results) = session(&env, vec![read(), write()], &["--permission-mode", "plan"]);
    assert_eq!(lines[0]["permissionMode"], "plan");
    assert!(result_of(&results, "r").get("is_error").is_none());
    assert!(result_of(&results, "w")["content"].as_str().unwrap().contains("plan mode"));

    let (_, results) = session(&env, vec![write()], &["--permission-mode", "dontAsk"]);
    assert!(result_of(&results, "w")["content"].as_str().unwrap().contains("dontAsk"));
    assert!(!env.cwd().join("new.txt").exists());

    let (_, results) = session(&env, vec![write()], &[]);
    assert!(
        result_of(&results, "w")["content"].as_str().unwrap().contains("has not granted"),
        "default mode asks; headless says no"
    );

    let (_, results) = session(
        &env,
        vec![write(), call("rm", "Bash", json!({"command": "rm a.txt"}))],
        &["--permission-mode", "acceptEdits"],
    );
    assert!(result_of(&results, "w").get("is_error").is_none(), "{results}");
    assert!(result_of(&results, "rm").get("is_error").is_none(), "{results}");
    assert!(env.cwd().join("new.txt").exists() && !env.cwd().join("a.txt").exists());

    // Bypass allows, but a protected path is still asked (and so refused headless),
    // and a deny rule still denies.
    let (_, results) = session(
        &env,
        vec![
            call("ok", "Bash", json!({"command": "echo fine > made.txt"})),
            call("prot", "Bash", json!({"command": "echo '{}' > .claude/settings.local.json"})),
            call("deny", "Bash", json!({"command": "curl http://example.com"})),
        ],
        &["--dangerously-skip-permissions", "--disallowedTools", "Bash(curl:*)"],
    );
    assert!(result_of(&results, "ok").get("is_error").is_none(), "{results}");
    assert!(result_of(&results, "prot")["content"].as_str().unwrap().contains("protected"), "{results}");
    assert!(result_of(&results, "deny")["content"].as_str().unwrap().contains("denied by rule `Bash(curl:*)`"));
    assert!(!env.cwd().join(".claude/settings.local.json").exists());
}

#[test]
fn reads_outside_the_workspace_are_asked_unless_the_directory_is_added() {
    let env = Env::new();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("notes.txt"), "outside\n").unwrap();
    let read = || call("r", "Read", json!({"file_path": other.path().join("notes.txt")}));
    let (_, results) = session(&env, vec![read()], &[]);
    assert!(result_of(&results, "r")["content"].as_str().unwrap().contains("outside the workspace"), "{results}");
    let added = other.path().display().to_string();
    let (_, results) = session(&env, vec![read()], &["--add-dir", &added]);
    assert!(result_of(&results, "r")["content"].as_str().unwrap().contains("outside"), "the file's text: {results}");
    assert!(result_of(&results, "r").get("is_error").is_none());
}

#[test]
fn deny_wins_across_scopes_and_managed_settings_cannot_be_overridden() {
    let env = Env::new();
    std::fs::create_dir_all(env.home.path().join(".claude")).unwrap();
    std::fs::write(
        env.home.path().join(".claude/settings.json"),
        r#"{"permissions": {"allow": ["Bash(git push:*)"]}}"#,
    )
    .unwrap();
    project_settings(&env, r#"{"permissions": {"deny": ["Bash(git push:*)"]}}"#);
    let managed = tempfile::tempdir().unwrap();
    std::fs::write(managed.path().join("managed-settings.json"), r#"{"permissions": {"deny": ["Bash(make:*)"]}}"#)
        .unwrap();
    let server = serve(Scenario::new([
        reply([
            call("p", "Bash", json!({"command": "git push origin main"})),
            call("m", "Bash", json!({"command": "make all"})),
        ]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .env("REIN_MANAGED_SETTINGS_DIR", managed.path())
        .args([
            "-p",
            "x",
            "--allowedTools",
            "Bash(make:*)",
            "--settings",
            r#"{"permissions": {"allow": ["Bash(git push:*)"]}}"#,
        ])
        .assert()
        .success();
    let results = server.requests()[1].body["messages"][2]["content"].clone();
    assert!(result_of(&results, "p")["content"].as_str().unwrap().contains("denied by rule"), "{results}");
    let m = result_of(&results, "m")["content"].as_str().unwrap().to_string();
    assert!(m.contains("denied by rule `Bash(make:*)`") && m.contains("managed-settings.json"), "{m}");
}

#[test]
fn permissions_check_explains_a_decision() {
    let env = Env::new();
    project_settings(
        &env,
        r#"{"permissions": {"allow": ["Bash(git status:*)"], "deny": ["Bash(rm:*)", "Read(./.env)"]}}"#,
    );
    let out = env.rein().args(["permissions", "check", "Bash(git status && rm -rf build)"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.starts_with("DENY: Bash"), "{text}");
    assert!(text.contains("Bash(rm:*)") && text.contains(".claude/settings.json:1"), "{text}");
    let out = env.rein().args(["permissions", "check", "Bash(git status --short)"]).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).starts_with("ALLOW"));
    let out = env.rein().args(["permissions", "check", "Read(.env)"]).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).starts_with("DENY"));
    let out = env.rein().args(["permissions", "check", "Bash(make)"]).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stdout).starts_with("ASK"));
    let out = env.rein().args(["permissions", "list", "--allowedTools", "WebFetch(domain:docs.rs)"]).assert().success();
    let list = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        list.contains("deny   Bash(rm:*)") && list.contains("--allowedTools") && list.contains("mode: default"),
        "{list}"
    );
}

#[test]
fn every_decision_is_in_the_debug_log() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": "ls"})), call("d", "Bash", json!({"command": "rm x"}))]),
        reply([text("done")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "x", "--debug", "--disallowedTools", "Bash(rm:*)"]).output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    let decisions: Vec<&str> = log.lines().filter(|l| l.contains("permission decision")).collect();
    assert_eq!(decisions.len(), 2, "{log}");
    assert!(decisions[0].contains("decision=\"allow\"") || decisions[0].contains("decision=allow"), "{}", decisions[0]);
    assert!(decisions[1].contains("deny") && decisions[1].contains("Bash(rm:*)"), "{}", decisions[1]);
}
