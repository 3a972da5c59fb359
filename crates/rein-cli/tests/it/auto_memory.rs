//! The persistent memory a user already has from Claude Code (issue 34): the project's
//! memory directory under `~/.claude/projects/` reaches the first request (its
//! `MEMORY.md` index), the model reads and writes memories there without being asked —
//! and nowhere else — and the switches that turn it off or move it hold.

use std::path::PathBuf;

use crate::common::{Env, serve, tool_result};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

/// The project's memory directory, as Claude Code names it, with one memory in it.
fn memory_dir(env: &Env) -> PathBuf {
    let cwd = std::fs::canonicalize(env.cwd()).unwrap();
    let name: String = cwd.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    let dir = env.home.path().join(".claude/projects").join(name).join("memory");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("MEMORY.md"), "- [Build](build.md): the build uses pnpm, never npm\n").unwrap();
    std::fs::write(
        dir.join("build.md"),
        "---\nname: Build\ndescription: the build uses pnpm, never npm\ntype: project\n---\nRun pnpm install.\n",
    )
    .unwrap();
    dir
}

fn system(server: &FakeServer) -> String {
    server.requests()[0].system_text()
}

#[test]
fn claude_codes_memory_reaches_the_first_request_and_new_memories_join_the_index() {
    let env = Env::new();
    let dir = memory_dir(&env);
    let p = |name: &str| dir.join(name).display().to_string();
    let server = serve(Scenario::new([
        reply([
            call("r", "Read", json!({"file_path": p("build.md")})),
            call("ri", "Read", json!({"file_path": p("MEMORY.md")})),
            call(
                "w",
                "Write",
                json!({"file_path": p("testing.md"),
                "content": "---\nname: Testing\ndescription: tests run with pnpm test\ntype: project\n---\npnpm test\n"}),
            ),
        ]),
        reply([call(
            "e",
            "Edit",
            json!({"file_path": p("MEMORY.md"), "old_string": "never npm\n",
            "new_string": "never npm\n- [Testing](testing.md): tests run with pnpm test\n"}),
        )]),
        reply([
            call("out", "Write", json!({"file_path": dir.parent().unwrap().join("settings.json"), "content": "{}"})),
            call("deep", "Write", json!({"file_path": p("sub/x.md"), "content": "x"})),
            call("sh", "Bash", json!({"command": format!("echo hi > {}", p("shell.md"))})),
        ]),
        reply([text("Remembered.")]),
    ]));
    env.rein_at(&server).args(["-p", "remember how to test"]).assert().success();
    let first = system(&server);
    assert!(first.contains("the build uses pnpm, never npm"), "the index reaches the first request: {first}");
    assert!(first.contains(&dir.display().to_string()), "{first}");
    let reqs = server.requests();
    let last = reqs.last().unwrap().body["messages"].as_array().unwrap().clone();
    for id in ["r", "ri", "w", "e"] {
        let (result, is_error) = tool_result(&last, id);
        assert!(!is_error, "{id} was not allowed: {result}");
    }
    assert!(tool_result(&last, "r").0.contains("Run pnpm install."));
    let index = std::fs::read_to_string(dir.join("MEMORY.md")).unwrap();
    assert!(index.contains("- [Testing](testing.md): tests run with pnpm test"), "{index}");
    for id in ["out", "deep", "sh"] {
        let (result, is_error) = tool_result(&last, id);
        assert!(is_error, "{id}: only Markdown files directly in the memory directory go unasked: {result}");
    }
    assert!(!dir.parent().unwrap().join("settings.json").exists() && !dir.join("sub/x.md").exists());
    assert!(!dir.join("shell.md").exists());
    // The memory written mid-session does not change the cached prefix: the system
    // prompt and the tools are the same bytes in every request.
    for r in &reqs[1..] {
        assert_eq!(r.body["system"], reqs[0].body["system"], "the system prompt stays byte-stable");
    }
}

#[test]
fn memory_can_be_turned_off_and_a_repository_cannot_move_it() {
    let env = Env::new();
    let dir = memory_dir(&env);
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).env("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1").args(["-p", "hi"]).assert().success();
    assert!(!system(&server).contains("pnpm"), "off for this session");

    env.write(".claude/settings.local.json", r#"{"autoMemoryEnabled": false}"#);
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    assert!(!system(&server).contains("pnpm"), "off in settings");
    std::fs::remove_file(env.cwd().join(".claude/settings.local.json")).unwrap();

    let elsewhere = tempfile::tempdir().unwrap();
    for file in [".claude/settings.json", ".claude/settings.local.json"] {
        env.write(file, &json!({"autoMemoryDirectory": elsewhere.path()}).to_string());
        let server = serve(Scenario::new([reply([text("ok")])]));
        env.rein_at(&server).args(["-p", "hi"]).assert().success();
        let s = system(&server);
        assert!(s.contains(&dir.display().to_string()) && !s.contains(&elsewhere.path().display().to_string()), "{s}");
        std::fs::remove_file(env.cwd().join(file)).unwrap();
    }
    // The user's own settings may move it, but not to a folder that holds their home.
    let user = env.home.path().join(".claude/settings.json");
    for (wanted, taken) in [(elsewhere.path().display().to_string(), true), ("~".to_string(), false)] {
        std::fs::write(&user, json!({"autoMemoryDirectory": wanted}).to_string()).unwrap();
        let server = serve(Scenario::new([reply([text("ok")])]));
        env.rein_at(&server).args(["-p", "hi"]).assert().success();
        let s = system(&server);
        let home_memory = format!("{}/ (only there", env.home.path().display());
        assert_eq!(s.contains(&format!("{wanted}/: writing Markdown")), taken, "{wanted}: {s}");
        assert!(!s.contains(&home_memory), "{s}");
    }
}

#[test]
fn doctor_says_where_the_memory_lives() {
    let env = Env::new();
    let dir = memory_dir(&env);
    let out = env.rein().arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Persistent memory") && text.contains(&dir.display().to_string()), "{text}");
    assert!(text.contains("1 memories"), "{text}");
}
