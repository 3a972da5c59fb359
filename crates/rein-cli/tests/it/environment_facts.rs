//! What the model is told of its environment (issue 34): the git state of the
//! repository (branch, default branch, uncommitted changes), the permission mode it
//! starts in, and the current models of each family.

use crate::common::{Env, serve};
use rein_testkit::{Scenario, reply, text};

fn git(env: &Env, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(env.cwd())
        .env("HOME", env.home.path())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn the_git_state_the_mode_and_the_models_reach_the_system_prompt() {
    let env = Env::new();
    git(&env, &["init", "-q"]);
    env.write("a.txt", "one\n");
    git(&env, &["add", "a.txt"]);
    git(&env, &["commit", "-qm", "first"]);
    git(&env, &["checkout", "-qb", "work"]);
    env.write("a.txt", "two\n");
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi", "--permission-mode", "acceptEdits"]).assert().success();
    let system = server.requests()[0].system_text();
    assert!(
        system.contains(
            "Git, as the session started: branch work; default branch main; uncommitted changes to tracked files"
        ),
        "{system}"
    );
    assert!(system.contains("Permission mode: acceptEdits"), "{system}");
    assert!(system.contains("Claude models: opus = claude-opus-5-5, sonnet = claude-sonnet-5-5"), "{system}");

    git(&env, &["commit", "-qam", "second"]);
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    let system = server.requests()[0].system_text();
    assert!(
        system.contains("Git, as the session started: branch work; default branch main; no uncommitted changes"),
        "{system}"
    );
    assert!(system.contains("Permission mode: default"), "{system}");
}

#[test]
fn a_repository_that_configures_programs_for_git_is_not_statused() {
    let env = Env::new();
    git(&env, &["init", "-q"]);
    env.write("a.txt", "one\n");
    git(&env, &["add", "a.txt"]);
    git(&env, &["commit", "-qm", "first"]);
    let ran = env.home.path().join("filter-ran");
    env.write(".gitattributes", "* filter=evil\n");
    git(&env, &["config", "filter.evil.clean", &format!("sh -c 'touch {}; cat'", ran.display())]);
    env.write("a.txt", "two, and a newer mtime\n");
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    let system = server.requests()[0].system_text();
    assert!(
        system.contains("Git, as the session started: branch main; default branch main; changes not checked"),
        "{system}"
    );
    assert!(!ran.exists(), "the repository's filter never runs");
}

/// A change of permission mode after the start reaches the model with the next prompt,
/// once (the system prompt only says the mode the session started in).
#[test]
fn a_mode_change_is_told_with_the_next_prompt() {
    use std::io::{BufRead, BufReader, Write};
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("a")]), reply([text("b")]), reply([text("c")])]));
    let mut child = env
        .spawnable_at(&server)
        .args(["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: serde_json::Value| writeln!(stdin, "{v}").unwrap();
    let mut wait_for = |kind: &str| {
        for line in out.by_ref() {
            let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            if v["type"] == kind {
                return;
            }
        }
        panic!("no {kind} line");
    };
    let user = |t: &str| serde_json::json!({"type": "user", "session_id": "", "message": {"role": "user", "content": t}, "parent_tool_use_id": null});
    send(serde_json::json!({"type": "control_request", "request_id": "i", "request": {"subtype": "initialize"}}));
    wait_for("control_response");
    send(user("one"));
    wait_for("result");
    send(
        serde_json::json!({"type": "control_request", "request_id": "m", "request": {"subtype": "set_permission_mode", "mode": "plan"}}),
    );
    wait_for("control_response");
    send(user("two"));
    wait_for("result");
    send(user("three"));
    wait_for("result");
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let last_prompt = |n: usize| {
        let reqs = server.requests();
        let messages = reqs[n].body["messages"].as_array().unwrap().clone();
        messages.last().unwrap()["content"].to_string()
    };
    assert!(!last_prompt(0).contains("permission mode is now"), "{}", last_prompt(0));
    let second = last_prompt(1);
    assert!(second.contains("The permission mode is now plan") && second.contains("ExitPlanMode"), "{second}");
    assert!(!last_prompt(2).contains("permission mode is now"), "told once: {}", last_prompt(2));
}
