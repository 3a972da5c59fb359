//! Glob and Grep name files relative to the working directory (as Claude Code does, so a
//! long session does not pay for the directory's prefix on every path again), and the
//! file tools take such paths back; hooks and rules still see absolute paths.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn search_results_are_relative_and_file_tools_take_them_back() {
    let env = Env::new();
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    env.write("src/a.rs", "fn alpha() {}\n");
    env.write("src/b.rs", "fn beta() {}\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("far.rs"), "fn far() {}\n").unwrap();
    let outside_dir = std::fs::canonicalize(outside.path()).unwrap();
    // A PreToolUse hook logs the file_path it is shown.
    let log = root.join("seen.log");
    let hook =
        env.write(".claude/hooks/log.sh", &format!("#!/bin/sh\njq -r .tool_input.file_path >> {}\n", log.display()));
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Read|Edit", "hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    let server = serve(Scenario::new([
        reply([
            call("glob", "Glob", json!({"pattern": "**/*.rs"})),
            call("files", "Grep", json!({"pattern": "fn"})),
            call("lines", "Grep", json!({"pattern": "beta", "output_mode": "content"})),
            call("far", "Glob", json!({"pattern": "*.rs", "path": outside_dir})),
        ]),
        reply([call("read", "Read", json!({"file_path": "src/b.rs"}))]),
        reply([call("edit", "Edit", json!({"file_path": "src/b.rs", "old_string": "beta", "new_string": "gamma"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--dangerously-skip-permissions"]).assert().success();

    let reqs = server.requests();
    let messages = reqs[3].body["messages"].as_array().unwrap().clone();
    let lines = |id: &str| {
        let (out, is_error) = tool_result(&messages, id);
        assert!(!is_error, "{id}: {out}");
        let mut v: Vec<String> = out.lines().map(str::to_string).collect();
        v.sort();
        v
    };
    assert_eq!(lines("glob"), ["src/a.rs", "src/b.rs"]);
    assert_eq!(lines("files"), ["src/a.rs", "src/b.rs"]);
    assert_eq!(lines("lines"), ["src/b.rs:1:fn beta() {}"]);
    // Outside the working directory a path stays absolute.
    assert_eq!(lines("far"), [outside_dir.join("far.rs").display().to_string()]);
    let (read, _) = tool_result(&messages, "read");
    assert!(read.contains("fn beta"), "{read}");
    let (edit, is_error) = tool_result(&messages, "edit");
    assert!(!is_error, "{edit}");
    assert_eq!(std::fs::read_to_string(root.join("src/b.rs")).unwrap(), "fn gamma() {}\n");
    // The hook saw absolute paths, not what the model wrote.
    let b = root.join("src/b.rs").display().to_string();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), format!("{b}\n{b}\n"));
    // The model's own words stay as it sent them in the history.
    let sent = &reqs[3].body["messages"][3]["content"][0]["input"]["file_path"];
    assert_eq!(sent, "src/b.rs");
}
