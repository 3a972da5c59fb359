//! Claude Code's safety flags, honoured: `--safe-mode` (the person's and the project's
//! customisations off, the settings' model and rules kept, the organisation's hooks
//! kept) and `--restricted` / `CLAUDE_CODE_RESTRICTED=1` (no tool that runs programs
//! or fetches pages unless `--tools` names it, only managed and `--settings` settings,
//! reads kept to the working directories, bypassPermissions refused).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str().map(str::to_string)).collect()
}

/// A folder with a memory file, a subagent, a command, a hook that leaves a mark, a
/// model and a deny rule in its settings.
fn customised(env: &Env) -> std::path::PathBuf {
    env.trust();
    env.write("CLAUDE.md", "SAFE-MEMORY-MARK\n");
    env.write(".claude/agents/safe-agent.md", "---\nname: safe-agent\ndescription: d\n---\nx\n");
    env.write(".claude/skills/safe-skill/SKILL.md", "---\nname: safe-skill\ndescription: SAFE-SKILL-MARK\n---\nx\n");
    let marker = env.cwd().join("hook-ran");
    let hook = format!("touch '{}'", marker.display());
    env.write(
        ".claude/settings.json",
        &json!({
            "model": "claude-opus-4-5",
            "permissions": {"deny": ["WebFetch"]},
            "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]},
        })
        .to_string(),
    );
    marker
}

#[test]
fn safe_mode_leaves_customisations_out_and_keeps_the_model_and_rules() {
    let env = Env::new();
    let marker = customised(&env);
    let managed = tempfile::tempdir().unwrap();
    let managed_mark = env.cwd().join("managed-hook-ran");
    let managed_hook = format!("touch '{}'", managed_mark.display());
    std::fs::write(
        managed.path().join("managed-settings.json"),
        json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": managed_hook}]}]}}).to_string(),
    )
    .unwrap();
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server)
        .env("REIN_MANAGED_SETTINGS_DIR", managed.path())
        .args(["-p", "go", "--safe-mode"])
        .assert()
        .success();
    let body = &server.requests()[0].body;
    let sent = body.to_string();
    assert!(!sent.contains("SAFE-MEMORY-MARK"), "the memory file was read");
    assert!(!sent.contains("safe-agent") && !sent.contains("SAFE-SKILL-MARK"), "the folder's definitions were read");
    assert!(!marker.exists(), "the folder's hook ran");
    assert!(managed_mark.exists(), "the organisation's hook did not run");
    assert_eq!(body["model"], "claude-opus-4-5", "the settings' model");
    assert!(!tool_names(body).contains(&"WebFetch".to_string()), "the settings' deny rule");

    // Without the flag, the same folder is read whole.
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    assert!(server.requests()[0].body.to_string().contains("SAFE-MEMORY-MARK"));
    assert!(marker.exists());
}

#[test]
fn restricted_runs_no_programs_reads_only_the_workspace_and_ignores_the_folders_settings() {
    let env = Env::new();
    let marker = customised(&env);
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "OUTSIDE-SECRET").unwrap();
    env.write("inside.txt", "INSIDE-TEXT");
    let server = serve(Scenario::new([
        reply([
            call("o", "Read", json!({"file_path": secret})),
            call("i", "Read", json!({"file_path": env.cwd().join("inside.txt")})),
        ]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--restricted"]).assert().success();
    let first = &server.requests()[0].body;
    let names = tool_names(first);
    assert!(!names.contains(&"Bash".to_string()) && !names.contains(&"WebFetch".to_string()), "{names:?}");
    assert!(names.contains(&"Read".to_string()), "{names:?}");
    assert_ne!(first["model"], "claude-opus-4-5", "the folder's settings were applied");
    assert!(!marker.exists(), "the folder's hook ran");
    let messages = server.requests()[1].body["messages"].as_array().unwrap().clone();
    let (outside_result, refused) = tool_result(&messages, "o");
    assert!(refused && !outside_result.contains("OUTSIDE-SECRET"), "{outside_result}");
    let (inside_result, failed) = tool_result(&messages, "i");
    assert!(!failed && inside_result.contains("INSIDE-TEXT"), "{inside_result}");

    // `--tools` naming the shell gives it back; the environment variable is the flag.
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server)
        .env("CLAUDE_CODE_RESTRICTED", "1")
        .args(["-p", "go", "--tools", "Read,Bash"])
        .assert()
        .success();
    assert_eq!(tool_names(&server.requests()[0].body).iter().filter(|n| *n == "Bash").count(), 1);
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).env("CLAUDE_CODE_RESTRICTED", "1").args(["-p", "go"]).assert().success();
    assert!(!tool_names(&server.requests()[0].body).contains(&"Bash".to_string()));
}

#[test]
fn restricted_refuses_bypass_permissions() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("hi")])]));
    for flags in [&["--dangerously-skip-permissions"][..], &["--permission-mode", "bypassPermissions"]] {
        let out = env.rein_at(&server).args(["-p", "go", "--restricted"]).args(flags).output().unwrap();
        assert!(!out.status.success(), "{flags:?} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--restricted refuses bypassPermissions"), "{stderr}");
    }
    assert!(server.requests().is_empty(), "a session started");
}

/// Found by reading the code: `--restricted` refuses bypassPermissions from a settings
/// file too; the project's subagents, skills and MCP servers (programs all) are not
/// taken; the person's deny rules still hold.
#[test]
fn restricted_takes_no_programs_from_the_folder_and_keeps_the_persons_walls() {
    let env = Env::new();
    let marker = env.cwd().join("ran");
    let server = serve(Scenario::new([reply([text("hi")])]));
    let out = env
        .rein_at(&server)
        .args(["-p", "go", "--restricted", "--settings", r#"{"permissions":{"defaultMode":"bypassPermissions"}}"#])
        .output()
        .unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("refuses bypassPermissions"));

    let hook = format!("touch '{}'", marker.display());
    env.write(
        ".claude/agents/helper.md",
        &format!("---\nname: helper\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: \"{hook}\"\n---\nx\n"),
    );
    env.write(".mcp.json", &json!({"mcpServers": {"x": {"command": "sh", "args": ["-c", hook]}}}).to_string());
    let secret = env.write("prod-credentials.txt", "PROD-SECRET");
    let home_settings = env.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(home_settings.parent().unwrap()).unwrap();
    std::fs::write(&home_settings, json!({"permissions": {"deny": ["Read(**/prod-credentials.txt)"]}}).to_string())
        .unwrap();
    let server =
        serve(Scenario::new([reply([call("r", "Read", json!({"file_path": secret}))]), reply([text("done")])]));
    env.rein_at(&server).args(["-p", "go", "--restricted"]).assert().success();
    let first = server.requests()[0].body.to_string();
    assert!(!first.contains("helper"), "the folder's subagent was offered");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!marker.exists(), "a program of the folder ran");
    let messages = server.requests()[1].body["messages"].as_array().unwrap().clone();
    let (result, refused) = tool_result(&messages, "r");
    assert!(refused && !result.contains("PROD-SECRET"), "the person's deny rule was dropped: {result}");
}

/// A project's command or memory file that is a link out of the project is not read:
/// its target never reaches the model.
#[test]
fn a_projects_link_out_of_the_project_is_never_read() {
    let env = Env::new();
    env.trust();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("credentials");
    std::fs::write(&secret, "aws_secret_access_key = LINKED-SECRET\nmore\n").unwrap();
    std::fs::create_dir_all(env.cwd().join(".claude/commands")).unwrap();
    std::os::unix::fs::symlink(&secret, env.cwd().join(".claude/commands/leak.md")).unwrap();
    std::fs::create_dir_all(env.cwd().join("sub")).unwrap();
    std::os::unix::fs::symlink(&secret, env.cwd().join("sub/CLAUDE.md")).unwrap();
    env.write("sub/x.txt", "plain");
    let server = serve(Scenario::new([
        reply([
            call("s", "Skill", json!({"skill": "leak"})),
            call("x", "Read", json!({"file_path": env.cwd().join("sub/x.txt")})),
        ]),
        reply([text("done")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "go"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (i, r) in server.requests().iter().enumerate() {
        assert!(!r.body.to_string().contains("LINKED-SECRET"), "request {i} carries the link's target");
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("leak.md") && stderr.contains("outside the project"), "{stderr}");
}
