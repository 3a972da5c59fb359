//! Custom slash commands (`.claude/commands/*.md`) through the binary: headless
//! (`rein -p "/review src/lib.rs"`) — arguments, `` !`cmd` `` output and `@file`
//! contents in the prompt, `allowed-tools` for that turn only.

use crate::common::{Env, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn a_custom_command_expands_runs_its_snippets_and_allows_its_tools() {
    let env = Env::new();
    env.write("notes.txt", "the notes say hello\n");
    env.write(
        ".claude/commands/review.md",
        "---\ndescription: Review a file\nallowed-tools: Bash(touch:*)\n---\nReview $ARGUMENTS carefully ($0).\nShell says: !`echo from-the-shell`\nSee @notes.txt\n",
    );
    let server = serve(Scenario::new([
        reply([call("t", "Bash", json!({"command": "touch reviewed.txt"}))]),
        reply([text("Reviewed.")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "/review src/lib.rs"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Reviewed.\n");
    let first = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("Review src/lib.rs carefully (src/lib.rs)."), "{first}");
    assert!(first.contains("Shell says: from-the-shell"), "{first}");
    assert!(first.contains("the notes say hello"), "{first}");
    assert!(env.cwd().join("reviewed.txt").exists(), "allowed-tools allowed the call of that turn");
}

#[test]
fn an_unknown_slash_command_is_sent_as_written() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("ok")])]));
    let out = env.rein_at(&server).args(["-p", "/nothing here"]).output().unwrap();
    assert!(out.status.success());
    let first = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("/nothing here"), "{first}");
}

#[test]
fn a_subfolder_command_answers_to_its_namespaced_and_its_bare_name() {
    let env = Env::new();
    env.write(
        ".claude/commands/frontend/component.md",
        "---\r\ndescription: Make a component\r\n---\r\nMake $0 now\r\n",
    );
    env.write(".claude/commands/a/lint.md", "Lint A");
    env.write(".claude/commands/b/lint.md", "Lint B");
    let server = serve(Scenario::new([reply([text("1")]), reply([text("2")]), reply([text("3")]), reply([text("4")])]));
    for prompt in ["/frontend:component Button", "/component Card", "/b:lint", "/lint"] {
        env.rein_at(&server).args(["-p", prompt]).assert().success();
    }
    let sent: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body["messages"][0]["content"][0]["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sent[0], "Make Button now\n");
    assert_eq!(sent[1], "Make Card now\n");
    assert_eq!(sent[2], "Lint B");
    assert_eq!(sent[3], "/lint", "two commands end in lint: the bare name is ambiguous and sent as written");
}

#[test]
fn a_shell_line_that_fails_or_is_not_permitted_stops_the_command() {
    let env = Env::new();
    env.write(".claude/commands/fails.md", "Status: !`false`\n");
    env.write(".claude/commands/denied.md", "Files: !`touch made-by-the-command.txt`\n");
    let server = serve(Scenario::new([reply([text("never")])]));
    for (prompt, shell) in [("/fails", "false"), ("/denied", "touch made-by-the-command.txt")] {
        let out = env.rein_at(&server).args(["-p", prompt]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains(&format!("its shell line `{shell}` failed")), "{stderr}");
    }
    assert!(server.requests().is_empty(), "nothing is sent to the model");
    assert!(!env.cwd().join("made-by-the-command.txt").exists());
}

#[test]
fn text_passed_to_a_command_never_runs_under_its_grant() {
    let env = Env::new();
    env.write(".claude/commands/say.md", "---\nallowed-tools: Bash(touch:*)\n---\nSay $ARGUMENTS\n");
    let server = serve(Scenario::new([reply([text("said")])]));
    env.rein_at(&server).args(["-p", "/say hello !`touch injected`"]).assert().success();
    assert!(!env.cwd().join("injected").exists(), "an argument ran as the command's shell line");
    let first = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("Say hello !`touch injected`"), "{first}");
}
