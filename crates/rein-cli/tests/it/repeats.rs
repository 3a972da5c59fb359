//! A Read, Glob or Grep whose result is byte-identical to what the same call got earlier
//! reaches the model as a pointer to that earlier result (as Claude Code answers a
//! re-Read of an unchanged file), so a long session does not send it again with every
//! request. Anything that changes the result — an edit, a new file — gives a whole answer;
//! hooks always see the whole result; a resumed session still points at what it holds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

const SOURCE: &str = "fn alpha() {\n    println!(\"one\");\n}\n\nfn beta() {\n    println!(\"two\");\n}\n";

fn project(env: &Env) {
    env.write("src/lib.rs", SOURCE);
    for i in 0..8 {
        env.write(&format!("src/mod{i}.rs"), &format!("// module {i}\nfn f{i}() {{}}\n"));
    }
}

fn messages(server: &rein_testkit::FakeServer) -> Vec<Value> {
    server.requests().last().unwrap().body["messages"].as_array().unwrap().clone()
}

#[test]
fn an_unchanged_repeat_is_a_pointer_and_a_changed_one_is_whole() {
    let env = Env::new();
    project(&env);
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    // A PostToolUse hook logs the size of every result it is shown.
    let log = root.join("sizes.log");
    let hook = env.write(
        ".claude/hooks/size.sh",
        &format!("#!/bin/sh\njq -c '[.tool_name, (.tool_response | tostring | length)]' >> {}\n", log.display()),
    );
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"PostToolUse": [{"matcher": "Read|Glob", "hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    let read = json!({"file_path": "src/lib.rs"});
    let glob = json!({"pattern": "src/*.rs"});
    let grep = json!({"pattern": "fn", "output_mode": "content"});
    let server = serve(Scenario::new([
        reply([call("read1", "Read", read.clone()), call("glob1", "Glob", glob.clone())]),
        reply([call("grep1", "Grep", grep.clone())]),
        reply([call("read2", "Read", read.clone()), call("glob2", "Glob", glob.clone())]),
        reply([call("grep2", "Grep", grep), call("read3", "Read", read.clone())]),
        reply([call(
            "edit",
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": "\"two\"", "new_string": "\"three\""}),
        )]),
        reply([call("touch", "Write", json!({"file_path": "src/new.rs", "content": "fn new() {}\n"}))]),
        reply([call("read4", "Read", read), call("glob3", "Glob", glob.clone())]),
        reply([call("glob4", "Glob", glob), call("other", "Glob", json!({"pattern": "**/*.rs"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--dangerously-skip-permissions"]).assert().success();

    let messages = messages(&server);
    let result = |id: &str| {
        let (out, is_error) = tool_result(&messages, id);
        assert!(!is_error, "{id}: {out}");
        out
    };
    for (id, first) in [("read1", "read1"), ("glob1", "glob1"), ("grep1", "grep1")] {
        assert!(rein_engine::pointed_at(&result(id)).is_none(), "a first answer is whole: {}", result(id));
        assert!(result(first).len() > 100);
    }
    // Unchanged: each repeat points at the whole original (a third too).
    assert_eq!(result("read2"), rein_engine::pointer("read1"));
    assert_eq!(result("read3"), rein_engine::pointer("read1"));
    assert_eq!(result("glob2"), rein_engine::pointer("glob1"));
    assert_eq!(result("grep2"), rein_engine::pointer("grep1"));
    // Changed by an edit and a new file: whole again, with the change.
    assert!(result("read4").contains("three"), "{}", result("read4"));
    assert!(result("glob3").contains("src/new.rs"), "{}", result("glob3"));
    // The repeat of the changed result points at the newest whole one; another input is whole.
    assert_eq!(result("glob4"), rein_engine::pointer("glob3"));
    assert!(result("other").contains("src/new.rs"));

    // Hooks were shown the whole result every time.
    let sizes: Vec<Value> =
        std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(sizes.len(), 9, "{sizes:?}");
    assert!(sizes.iter().all(|s| s[1].as_u64().unwrap() > 100), "{sizes:?}");
}

#[test]
fn a_resumed_session_points_at_what_its_history_holds() {
    let env = Env::new();
    project(&env);
    let glob = json!({"pattern": "src/*.rs"});
    let server = serve(Scenario::new([reply([call("g1", "Glob", glob.clone())]), reply([text("listed")])]));
    let out = env.rein_at(&server).args(["-p", "list", "--output-format", "json"]).output().unwrap();
    assert!(out.status.success());
    let id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["session_id"].as_str().unwrap().to_string();

    let resumed = serve(Scenario::new([reply([call("g2", "Glob", glob)]), reply([text("same")])]));
    env.rein_at(&resumed).args(["-p", "again", "--resume", &id]).assert().success();
    let messages = messages(&resumed);
    assert_eq!(tool_result(&messages, "g2").0, rein_engine::pointer("g1"));
    assert!(tool_result(&messages, "g1").0.contains("src/lib.rs"), "the original is still whole");
}
