//! `rein -p` end to end: the real binary against the fake model server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, json_lines, serve, system_of};
use predicates::prelude::*;
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

#[test]
fn version_prints_and_exits_zero() {
    Env::new().rein().arg("--version").assert().success().stdout(predicate::str::starts_with("rein "));
}

#[test]
fn text_output_prints_the_final_answer_after_running_real_tools() {
    let env = Env::new();
    env.write("notes.txt", "alpha\nbeta\n");
    let server = serve(Scenario::new([
        reply([
            text("Checking."),
            tool_use_with_id("t1", "Bash", json!({"command": "echo from-bash && wc -l < notes.txt"})),
            tool_use_with_id("t2", "Grep", json!({"pattern": "beta", "output_mode": "content"})),
        ]),
        reply([text("notes.txt has two lines.")]),
    ]));
    env.rein_at(&server).args(["-p", "how many lines?"]).assert().success().stdout("notes.txt has two lines.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let results = reqs[1].body["messages"][2]["content"].as_array().unwrap().clone();
    assert_eq!(results[0]["tool_use_id"], "t1");
    assert_eq!(results[0]["content"], "from-bash\n2");
    assert!(results[1]["content"].as_str().unwrap().ends_with("notes.txt:2:beta"), "{results:?}");
    // Sent again in the next turn, the first message no longer carries the newest
    // message's cache breakpoint.
    assert_eq!(
        reqs[1].body["messages"][0],
        json!({"role":"user","content":[{"type":"text","text":"how many lines?"}]})
    );
}

#[test]
fn the_request_carries_tools_with_schemas_model_and_environment() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).env("ANTHROPIC_MODEL", "claude-from-env").args(["-p", "hello"]).assert().success();
    let body = &server.requests()[0].body;
    assert_eq!(body["model"], "claude-from-env");
    assert_eq!(body["stream"], true);
    let names: Vec<&str> = body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, common::SENT_TOOLS);
    assert_eq!(body["tools"][0]["input_schema"]["required"], json!(["file_path"]));
    let system = system_of(&server, 0);
    assert!(system.contains(&format!("Working directory: {}", env.cwd().display())), "{system}");
    assert!(system.contains("Git repository: No"));
    assert!(system.contains("Platform: linux"));

    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server)
        .env("ANTHROPIC_MODEL", "claude-from-env")
        .args(["-p", "x", "--model", "opus"])
        .assert()
        .success();
    assert_eq!(server.requests()[0].body["model"], "claude-opus-5-5", "--model wins and aliases expand");

    // Claude Code's default model and its output limit; the alias follows
    // ANTHROPIC_DEFAULT_SONNET_MODEL.
    let server = serve(Scenario::new([reply([text("hi")]), reply([text("hi")])]));
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    env.rein_at(&server)
        .env("ANTHROPIC_DEFAULT_SONNET_MODEL", "claude-sonnet-4-20250514")
        .args(["-p", "x", "--model", "sonnet"])
        .assert()
        .success();
    let reqs = server.requests();
    assert_eq!((&reqs[0].body["model"], &reqs[0].body["max_tokens"]), (&json!("claude-opus-5-5"), &json!(128_000)));
    assert_eq!(
        (&reqs[1].body["model"], &reqs[1].body["max_tokens"]),
        (&json!("claude-sonnet-4-20250514"), &json!(64_000))
    );
}

#[test]
fn the_prompt_can_come_on_stdin() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("got it")])]));
    env.rein_at(&server).arg("-p").write_stdin("prompt from a pipe\n").assert().success().stdout("got it\n");
    assert_eq!(server.requests()[0].body["messages"][0]["content"][0]["text"], "prompt from a pipe\n");
}

#[test]
fn bearer_token_and_anthropic_headers() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("ok")])]));
    let mut cmd = env.rein();
    cmd.env("ANTHROPIC_BASE_URL", server.url()).env("ANTHROPIC_AUTH_TOKEN", "tok-1");
    cmd.args(["-p", "x"]).assert().success();
    let h = &server.requests()[0].headers;
    assert_eq!(h["authorization"], "Bearer tok-1");
    assert_eq!(h["anthropic-version"], "2023-06-01");
}

#[test]
fn json_output_is_one_result_object() {
    let env = Env::new();
    let server =
        serve(Scenario::new([reply([tool_use_with_id("t", "Glob", json!({"pattern": "*"}))]), reply([text("done")])]));
    let out = env.rein_at(&server).args(["-p", "x", "--output-format", "json"]).assert().success();
    let lines = json_lines(&out.get_output().stdout);
    assert_eq!(lines.len(), 1);
    let r = &lines[0];
    assert_eq!(r["type"], "result");
    assert_eq!(r["subtype"], "success");
    assert_eq!(r["is_error"], false);
    assert_eq!(r["num_turns"], 2);
    assert_eq!(r["result"], "done");
    assert_eq!(r["usage"]["input_tokens"], 20);
    assert!(r["total_cost_usd"].as_f64().unwrap() > 0.0);
    assert!(r["duration_ms"].is_u64() && r["duration_api_ms"].is_u64());
    assert_eq!(r["session_id"].as_str().unwrap().len(), 36);
}

#[test]
fn stream_json_needs_verbose() {
    let env = Env::new();
    env.rein()
        .args(["-p", "x", "--output-format", "stream-json"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--output-format=stream-json requires --verbose"));
}

#[test]
fn stream_json_lines_go_init_assistant_user_result() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([text("Listing."), tool_use_with_id("t1", "Glob", json!({"pattern": "*"}))]),
        reply([text("All done.")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "x", "--output-format", "stream-json", "--verbose"]).assert().success();
    let lines = json_lines(&out.get_output().stdout);
    let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    // One `assistant` line per content block, as Claude Code writes them (same message id).
    assert_eq!(kinds, ["system", "assistant", "assistant", "user", "assistant", "result"]);
    let init = &lines[0];
    assert_eq!(init["subtype"], "init");
    // Every tool the model can call, those waiting behind ToolSearch too, listed as
    // Claude Code lists them: the subagent tool first as `Task`, then by name.
    let mut every: Vec<&str> =
        common::ALL_TOOLS.iter().map(|t| if *t == "Agent" { "Task" } else { t }).collect::<Vec<_>>();
    every.push("ToolSearch");
    every.sort_by_key(|t| (*t != "Task", *t));
    assert_eq!(init["tools"], json!(every));
    assert_eq!(init["cwd"], env.cwd().display().to_string());
    assert_eq!(init["apiKeySource"], "ANTHROPIC_API_KEY");
    let sid = init["session_id"].clone();
    assert!(lines.iter().all(|l| l["session_id"] == sid));
    assert_eq!(lines[1]["message"]["content"], json!([{"type": "text", "text": "Listing."}]));
    assert_eq!(lines[2]["message"]["content"][0]["type"], "tool_use");
    assert_eq!(lines[2]["message"]["content"].as_array().map(Vec::len), Some(1));
    assert_eq!(lines[1]["message"]["id"], lines[2]["message"]["id"]);
    assert_eq!(lines[2]["message"]["stop_reason"], json!(null), "streamed lines carry no stop reason yet");
    assert_eq!(lines[2]["parent_tool_use_id"], json!(null));
    assert_eq!(lines[3]["message"]["content"][0]["tool_use_id"], "t1");
    assert_eq!(lines[5]["subtype"], "success");
    assert_eq!(lines[5]["result"], "All done.");
}

#[test]
fn max_turns_ends_with_error_max_turns() {
    let env = Env::new();
    let glob = || reply([tool_use_with_id("t", "Glob", json!({"pattern": "*"}))]);
    let server = serve(Scenario::new([glob(), glob(), glob()]));
    let out = env
        .rein_at(&server)
        .args(["-p", "x", "--max-turns", "1", "--output-format", "json"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("maximum number of turns"));
    let r = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(r["subtype"], "error_max_turns");
    assert_eq!(r["is_error"], true);
    assert_eq!(r["num_turns"], 1);
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn memory_files_and_prompt_flags_shape_the_system_prompt() {
    let env = Env::new();
    env.write("CLAUDE.md", "Project rule: use tabs.\nSee @docs/extra.md");
    env.write("docs/extra.md", "Imported rule: no emojis.");
    env.write("AGENTS.md", "Agents rule: be terse.");
    std::fs::create_dir_all(env.home.path().join(".claude")).unwrap();
    std::fs::write(env.home.path().join(".claude/CLAUDE.md"), "User rule: British spelling.").unwrap();
    let server = serve(Scenario::new([reply([text("ok")]), reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "x", "--append-system-prompt", "APPENDED-LINE"]).assert().success();
    let system = system_of(&server, 0);
    let pos = |s: &str| system.find(s).unwrap_or_else(|| panic!("missing {s:?} in {system}"));
    assert!(pos("User rule") < pos("Project rule"), "broad to specific");
    assert!(pos("Project rule") < pos("Imported rule"));
    pos("Agents rule");
    assert!(system.trim_end().ends_with("APPENDED-LINE"));
    assert!(system.starts_with("You are rein"));

    env.rein_at(&server).args(["-p", "x", "--system-prompt", "You are a test."]).assert().success();
    let system = system_of(&server, 1);
    assert!(system.starts_with("You are a test."));
    assert!(!system.contains("You are rein"));
}

#[test]
fn without_print_mode_it_says_what_to_do() {
    Env::new().rein().arg("hello").assert().failure().stderr(predicate::str::contains("rein -p"));
}

#[test]
fn opening_a_repository_runs_nothing_of_its_own() {
    // Invariant 10: a repository's git config, hooks and fsmonitor never run because rein
    // looked at the folder; rein finds out that it is a repo without running git.
    let env = Env::new();
    let marker = env.cwd().join("pwned");
    let evil = format!("#!/bin/sh\ntouch {}\n", marker.display());
    env.write(".git/hooks/post-checkout", &evil);
    env.write(".git/fsmonitor.sh", &evil);
    env.write(".git/HEAD", "ref: refs/heads/main\n");
    env.write(
        ".git/config",
        &format!(
            "[core]\n\tfsmonitor = {}\n\tpager = sh {}\n",
            env.cwd().join(".git/fsmonitor.sh").display(),
            env.cwd().join(".git/fsmonitor.sh").display()
        ),
    );
    for f in [".git/hooks/post-checkout", ".git/fsmonitor.sh"] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(env.cwd().join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    assert!(system_of(&server, 0).contains("Git repository: Yes"));
    assert!(!marker.exists(), "rein ran code the repository controls");
}

#[test]
fn the_settings_env_applies_to_the_session() {
    let env = Env::new();
    env.trust();
    let server = serve(Scenario::new([
        reply([tool_use_with_id("b", "Bash", json!({"command": "echo $PROJECT_FLAVOUR-$ANTHROPIC_API_KEY"}))]),
        reply([text("ok")]),
    ]));
    // rein never sets its own environment: the settings' variables are laid over it for
    // the model client, every command and every hook — its credentials for none of them.
    let hook = json!([{"matcher": "Bash", "hooks": [{"type": "command",
        "command": "echo \"$PROJECT_FLAVOUR-$ANTHROPIC_API_KEY\" > hook_saw"}]}]);
    env.write(
        ".claude/settings.json",
        &json!({
            "env": {"ANTHROPIC_MODEL": "claude-from-settings-env", "PROJECT_FLAVOUR": "vanilla",
                    "ANTHROPIC_API_KEY": "sk-from-settings"},
            "hooks": {"PreToolUse": hook},
        })
        .to_string(),
    );
    env.rein_at(&server).args(["-p", "x", "--dangerously-skip-permissions"]).assert().success();
    let reqs = server.requests();
    assert_eq!(reqs[0].body["model"], "claude-from-settings-env");
    assert_eq!(reqs[0].headers.get("x-api-key").map(String::as_str), Some("sk-from-settings"));
    assert_eq!(reqs[1].body["messages"][2]["content"][0]["content"], "vanilla-");
    assert_eq!(std::fs::read_to_string(env.cwd().join("hook_saw")).unwrap().trim(), "vanilla-");
}

/// Libraries not of rein's read the process environment themselves (reqwest its proxy):
/// the person's settings `env` reaches them as it does in Claude Code.
#[test]
fn the_settings_env_reaches_what_reads_the_process_environment_itself() {
    // With the OS sandbox on too: setting it up starts no thread (its network proxy
    // starts at the first command), so the variables still go into the environment.
    for sandbox in [false, true] {
        let env = Env::new();
        let proxy = serve(Scenario::new([reply([text("through the proxy")])]));
        let settings = env.home.path().join(".claude/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        let config = json!({"env": {"HTTP_PROXY": proxy.url()}, "sandbox": {"enabled": sandbox}});
        std::fs::write(&settings, config.to_string()).unwrap();
        env.rein()
            // A host that resolves nowhere: only the proxy can answer.
            .env("ANTHROPIC_BASE_URL", "http://model.invalid")
            .env("ANTHROPIC_API_KEY", "sk-test")
            .args(["-p", "x"])
            .assert()
            .success()
            .stdout("through the proxy\n");
    }
}
