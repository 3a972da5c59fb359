//! Read deny rules hold in a real session: Grep and Glob leave protected files out
//! (by path and by identity), an earlier call's shell state makes later commands asked,
//! and rein's own credentials never reach a command.

use crate::common::{Env, serve};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

/// The text of the tool result `id` in the last request.
fn result(server: &FakeServer, id: &str) -> (String, bool) {
    let reqs = server.requests();
    crate::common::tool_result(reqs.last().unwrap().body["messages"].as_array().unwrap(), id)
}

/// A project in `proj/` of the test directory (so that its parent holds nothing else).
fn project() -> (Env, std::path::PathBuf) {
    let env = Env::new();
    env.write("proj/.env", "API_KEY=secret-value-123\n");
    env.write("proj/app/config.txt", "API_KEY=placeholder\n");
    let root = env.cwd().join("proj");
    std::fs::hard_link(root.join(".env"), root.join("app/notes.txt")).unwrap();
    env.write(
        "proj/.claude/settings.json",
        r#"{"permissions": {"allow": ["Read", "Grep", "Glob"], "deny": ["Read(./.env)"]}}"#,
    );
    (env, root)
}

#[test]
fn grep_and_glob_leave_protected_files_out_by_any_name() {
    let (env, root) = project();
    let parent = env.cwd().display().to_string();
    let server = serve(Scenario::new([
        reply([
            call("content", "Grep", json!({"pattern": "API_KEY", "output_mode": "content"})),
            call("files", "Grep", json!({"pattern": "API_KEY"})),
            call("count", "Grep", json!({"pattern": "API_KEY", "output_mode": "count"})),
            call("hidden", "Grep", json!({"pattern": "secret", "glob": ".env*"})),
            call("parent", "Grep", json!({"pattern": "secret-value", "path": parent, "output_mode": "content"})),
            call("glob", "Glob", json!({"pattern": "**/*"})),
        ]),
        reply([text("done")]),
    ]));
    let out = env.rein_at(&server).current_dir(&root).args(["-p", "go"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for id in ["content", "files", "count", "hidden", "parent"] {
        let (text, _) = result(&server, id);
        assert!(!text.contains("secret-value"), "{id}: {text}");
        assert!(!text.contains(".env") && !text.contains("notes.txt"), "{id}: {text}");
    }
    let (content, _) = result(&server, "content");
    assert!(content.contains("config.txt"), "the other files are still searched: {content}");
    let (glob, _) = result(&server, "glob");
    assert!(glob.contains("config.txt") && !glob.contains(".env") && !glob.contains("notes.txt"), "{glob}");
}

#[test]
fn reading_a_protected_file_by_another_name_is_denied() {
    let (env, root) = project();
    let dir = root.clone();
    let root = root.display().to_string();
    let server = serve(Scenario::new([
        reply([
            call("link", "Read", json!({"file_path": format!("{root}/app/notes.txt")})),
            call("proc", "Read", json!({"file_path": format!("/proc/self/root{root}/.env")})),
            call("dots", "Read", json!({"file_path": format!("{root}/app/../.env")})),
        ]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).current_dir(&dir).args(["-p", "go"]).output().unwrap();
    for id in ["link", "proc", "dots"] {
        let (text, is_error) = result(&server, id);
        assert!(is_error && text.contains("Read(./.env)"), "{id}: {text}");
    }
}

/// A hook lets a shell-state change run (hooks may skip a question the rules did not
/// ask explicitly); the changed shell then makes even a read-only `ls` a question (on a
/// host with no sandbox tier: elsewhere it is tried first, see `tried_first.rs`).
fn later_ls_after(change: &str, reason: &str) {
    let env = Env::new();
    env.write("README.md", "hi\n");
    let hook = "jq -r .tool_input.command | grep -q -e '^export' -e '()' && echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}' || true";
    let settings =
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]}});
    env.write(".claude/settings.json", &settings.to_string());
    let server = serve(Scenario::new([
        reply([call("before", "Bash", json!({"command": "ls"}))]),
        reply([call("change", "Bash", json!({"command": change}))]),
        reply([call("after", "Bash", json!({"command": "ls"}))]),
        reply([text("done")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "go"]).env("REIN_SANDBOX_TIER", "C").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    let find = |n: usize, id: &str| crate::common::tool_result(reqs[n].body["messages"].as_array().unwrap(), id);
    assert!(!find(1, "before").1, "ls runs before: {:?}", find(1, "before"));
    assert!(!find(2, "change").1, "the hook let the change run: {:?}", find(2, "change"));
    let (after, denied) = find(3, "after");
    assert!(denied && after.contains(reason), "{after}");
}

#[test]
fn an_earlier_export_makes_later_commands_asked() {
    later_ls_after("export PATH=/tmp/evil-bin:$PATH", "PATH");
}

#[test]
fn an_earlier_function_shadowing_a_program_makes_it_asked() {
    later_ls_after("ls() { cat README.md; }", "shell function");
}

#[test]
fn reins_credentials_never_reach_a_command() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("env", "Bash", json!({"command": "echo key=[$ANTHROPIC_API_KEY] token=[$ANTHROPIC_AUTH_TOKEN]"}))]),
        reply([text("done")]),
    ]));
    let out = env
        .rein_at(&server)
        .env("ANTHROPIC_AUTH_TOKEN", "tok-secret")
        .args(["-p", "go", "--allowedTools", "Bash(echo:*)"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (text, _) = result(&server, "env");
    assert_eq!(text, "key=[] token=[]");
}

/// Paths are resolved where the session shell is when the command runs: after an
/// earlier call's `cd`, even one in the same response.
#[test]
fn a_shell_reader_is_judged_in_the_shells_current_directory() {
    let (env, root) = project();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    let server = serve(Scenario::new([
        reply([
            call("cd", "Bash", json!({"command": "cd sub"})),
            call("cat", "Bash", json!({"command": "cat ../.env"})),
        ]),
        reply([text("done")]),
    ]));
    let out =
        env.rein_at(&server).current_dir(&root).args(["-p", "go", "--allowedTools", "Bash(cat:*)"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (cd, cd_failed) = result(&server, "cd");
    assert!(!cd_failed, "{cd}");
    let (cat, denied) = result(&server, "cat");
    assert!(denied && cat.contains("Read(./.env)"), "{cat}");
    assert!(!cat.contains("secret-value"));
}

#[test]
fn reins_credentials_never_reach_a_hook() {
    let env = Env::new();
    let out_file = env.cwd().join("hook-saw.txt");
    let hook = format!("echo \"key=[$ANTHROPIC_API_KEY]\" > '{}'", out_file.display());
    let settings = json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]}});
    env.write(".claude/settings.json", &settings.to_string());
    let server = serve(Scenario::new([reply([text("done")])]));
    let out = env.rein_at(&server).args(["-p", "go"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "key=[]\n");
}
