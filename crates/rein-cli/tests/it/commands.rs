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
