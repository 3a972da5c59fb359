//! Container mode: with `IS_SANDBOX=1` in rein's own environment (a Harbor trial, a CI
//! job: the container is the sandbox), bypassPermissions also writes protected paths,
//! which headless would otherwise refuse. Only when set explicitly: a repository's
//! settings cannot set it, and other modes still ask.

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

/// A session writing `.bashrc` and `.git/hooks/pre-commit` in the project; whether each
/// write happened.
fn writes_protected(env: &Env, args: &[&str], container: bool) -> (bool, bool) {
    std::fs::create_dir_all(env.cwd().join(".git/hooks")).unwrap();
    let rc = env.cwd().join(".bashrc");
    let hook = env.cwd().join(".git/hooks/pre-commit");
    let server = serve(Scenario::new([
        reply([
            call("w", "Write", json!({"file_path": rc, "content": "export X=1\n"})),
            call("b", "Bash", json!({"command": "echo 'exit 0' > .git/hooks/pre-commit"})),
        ]),
        reply([text("done")]),
    ]));
    let mut cmd = env.rein_at(&server);
    if container {
        cmd.env("IS_SANDBOX", "1");
    }
    cmd.args(["-p", "set up"]).args(args).assert().success();
    let reqs = server.requests();
    let messages = reqs.last().unwrap().body["messages"].as_array().unwrap().clone();
    let (w, w_err) = tool_result(&messages, "w");
    let (b, b_err) = tool_result(&messages, "b");
    let wrote = (rc.exists() && !w_err, hook.exists() && !b_err);
    if !wrote.0 {
        assert!(w.contains("protected") || w.contains("permission"), "{w}");
    }
    if !wrote.1 {
        assert!(b.contains("protected") || b.contains("permission") || b.contains("approval"), "{b}");
    }
    let _ = std::fs::remove_file(&rc);
    let _ = std::fs::remove_file(&hook);
    wrote
}

#[test]
fn is_sandbox_lets_bypass_write_protected_paths_and_nothing_else_does() {
    let env = Env::new();
    let bypass = ["--dangerously-skip-permissions"];
    assert_eq!(writes_protected(&env, &bypass, false), (false, false), "bypass alone still protects them");
    assert_eq!(writes_protected(&env, &bypass, true), (true, true), "in a container bypass means it");
    let accept = ["--permission-mode", "acceptEdits"];
    assert_eq!(writes_protected(&env, &accept, true), (false, false), "other modes still ask");
    // A repository cannot declare itself a container.
    env.write(".claude/settings.json", r#"{"env": {"IS_SANDBOX": "1"}}"#);
    assert_eq!(writes_protected(&env, &bypass, false), (false, false));
}
