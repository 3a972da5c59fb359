//! The Agent SDK's stdio protocol spoken directly (lines written by the test): the
//! command line the SDKs build, control requests rein does not handle, the end of
//! stdin and the exit code, flags in both forms.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, json_lines, serve};
use predicates::prelude::PredicateBooleanExt;
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

const SDK: [&str; 6] =
    ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--system-prompt="];

fn lines(values: &[Value]) -> String {
    values.iter().map(|v| format!("{v}\n")).collect()
}

fn init(id: &str) -> Value {
    json!({"type": "control_request", "request_id": id, "request": {"subtype": "initialize", "hooks": null}})
}

pub(crate) fn user(text: &str) -> Value {
    json!({"type": "user", "session_id": "", "message": {"role": "user", "content": text}, "parent_tool_use_id": null})
}

fn response<'a>(out: &'a [Value], id: &str) -> &'a Value {
    out.iter().find(|l| l["type"] == "control_response" && l["response"]["request_id"] == id).expect(id)
}

#[test]
fn dash_v_names_the_claude_code_release_rein_speaks() {
    Env::new().rein().arg("-v").assert().success().stdout("2.1.332 (Claude Code)\n");
}

#[test]
fn unknown_flags_and_both_value_forms_are_accepted() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server)
        .args(["-p", "hi", "--model=claude-sonnet-4-5", "--max-turns=3", "--some-future-flag=-dash", "--betas", "a,b"])
        .args(["--debug-to-stderr", "--allowedTools=Read,Glob", "--setting-sources=user,project"])
        .assert()
        .success()
        .stdout("ok\n")
        .stderr(predicates::str::contains("--some-future-flag").and(predicates::str::contains("--debug-to-stderr")));
    let req = &server.requests()[0];
    assert_eq!(req.body["model"], "claude-sonnet-4-5");
    let beta = req.headers.get("anthropic-beta").cloned().unwrap_or_default();
    assert!(beta.split(',').any(|b| b == "a") && beta.split(',').any(|b| b == "b"), "--betas reach the API: {beta}");
}

#[test]
fn control_requests_rein_does_not_handle_get_an_error_and_the_session_goes_on() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("answer")])]));
    let input = lines(&[
        init("i1"),
        json!({"type": "keep_alive"}),
        json!({"type": "control_request", "request_id": "r2", "request": {"subtype": "no_such_thing"}}),
        json!({"type": "control_request", "request_id": "r3", "request": {"subtype": "set_permission_mode", "mode": "yolo"}}),
        user("hi"),
    ]) + "this line is not json\n";
    let out = env.rein_at(&server).args(SDK).write_stdin(input).assert().success();
    let out = json_lines(&out.get_output().stdout);
    assert_eq!(out[0]["type"], "control_response", "initialize is answered first: {:?}", out[0]);
    assert_eq!(response(&out, "i1")["response"]["response"]["claude_code_version"], "2.1.332");
    let r2 = &response(&out, "r2")["response"];
    assert_eq!(r2["subtype"], "error");
    assert!(r2["error"].as_str().unwrap().contains("Unsupported control request subtype: no_such_thing"));
    assert!(response(&out, "r3")["response"]["error"].as_str().unwrap().contains("must be one of"));
    let result = out.iter().find(|l| l["type"] == "result").unwrap();
    assert_eq!(result["result"], "answer");
}

#[test]
fn stdin_closing_finishes_the_queued_turns_and_an_error_result_exits_1() {
    let env = Env::new();
    let server =
        serve(Scenario::new([reply([text("first")]), reply([tool_use_with_id("t", "Glob", json!({"pattern": "*"}))])]));
    // Both prompts are written before the first turn ends; stdin then closes.
    let input = lines(&[init("i"), user("one"), user("two")]);
    let out = env.rein_at(&server).args(SDK).args(["--max-turns", "1"]).write_stdin(input).assert().code(1);
    let results: Vec<Value> =
        json_lines(&out.get_output().stdout).into_iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["result"], "first");
    assert_eq!(results[1]["subtype"], "error_max_turns");
    assert!(results[1]["errors"][0].as_str().unwrap().contains("maximum number of turns"));
}

#[test]
fn the_tools_flag_chooses_the_built_in_tools() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("a")]), reply([text("b")])]));
    env.rein_at(&server).args(["-p", "x", "--tools", "Read,Glob"]).assert().success();
    env.rein_at(&server).args(["-p", "x", "--tools="]).assert().success();
    let names = |n: usize| -> Vec<String> {
        let body = &server.requests()[n].body;
        body["tools"]
            .as_array()
            .map(|t| t.iter().map(|t| t["name"].as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    assert_eq!(names(0), ["Read", "Glob"]);
    assert!(names(1).is_empty(), "{:?}", names(1));
}

#[test]
fn setting_sources_leave_out_the_files_not_named() {
    let env = Env::new();
    env.write(".claude/settings.json", &json!({"permissions": {"deny": ["Glob"]}}).to_string());
    let server = serve(Scenario::new([reply([text("a")]), reply([text("b")])]));
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    env.rein_at(&server).args(["-p", "x", "--setting-sources="]).assert().success();
    let has_glob = |n: usize| server.requests()[n].body["tools"].to_string().contains("\"Glob\"");
    assert!(!has_glob(0), "the project's deny rule removes Glob");
    assert!(has_glob(1), "with no setting sources the project file is not read");
}

/// `setting_sources` without the project leaves out all of the project's: its memory
/// and rules, subagents, commands, skills and MCP servers — and with it, they are there.
#[test]
fn setting_sources_without_the_project_leave_out_everything_of_the_project() {
    let env = Env::new();
    env.trust();
    env.write("CLAUDE.md", "PROJECT-MEMORY-MARK\n");
    env.write(".claude/rules/style.md", "PROJECT-RULE-MARK\n");
    env.write(".claude/agents/prj-agent.md", "---\nname: prj-agent\ndescription: project agent\n---\nx\n");
    env.write(".claude/commands/prj-cmd.md", "---\ndescription: project command\n---\nx\n");
    env.write(".claude/skills/prj-skill/SKILL.md", "---\nname: prj-skill\ndescription: project skill\n---\nx\n");
    env.write(".mcp.json", &json!({"mcpServers": {"prj": {"command": "true"}}}).to_string());
    env.write(".claude/settings.local.json", &json!({"enableAllProjectMcpServers": true}).to_string());
    std::fs::create_dir_all(env.home.path().join(".claude")).unwrap();
    std::fs::write(env.home.path().join(".claude/CLAUDE.md"), "USER-MEMORY-MARK\n").unwrap();
    let server = serve(Scenario::new([reply([text("a")]), reply([text("b")])]));
    env.rein_at(&server).args(["-p", "x", "--setting-sources=user"]).assert().success();
    env.rein_at(&server).args(["-p", "x", "--setting-sources=user,project,local"]).assert().success();
    let body = |n: usize| server.requests()[n].body.to_string();
    for mark in ["PROJECT-MEMORY-MARK", "PROJECT-RULE-MARK", "prj-agent", "prj-skill"] {
        assert!(!body(0).contains(mark), "{mark} was read with the project left out");
        assert!(body(1).contains(mark), "{mark} was not read with the project in");
    }
    assert!(body(0).contains("USER-MEMORY-MARK") && body(1).contains("USER-MEMORY-MARK"));
}

/// A project inside the home folder (the usual place): `--setting-sources=user` keeps
/// the person's `~/.claude/CLAUDE.md` (it was taken for the memory of a folder above the
/// project and left out) and leaves out a subfolder's; with only the project, Claude
/// Code reads the home folder's `.claude/CLAUDE.md` as such a folder's, and so does rein.
#[test]
fn setting_sources_with_the_project_inside_the_home_folder() {
    let env = Env::new();
    let project = env.home.path().join("work/app");
    std::fs::create_dir_all(project.join("sub")).unwrap();
    std::fs::create_dir_all(env.home.path().join(".claude")).unwrap();
    std::fs::write(env.home.path().join(".claude/CLAUDE.md"), "USER-MEMORY-MARK\n").unwrap();
    std::fs::write(project.join("CLAUDE.md"), "PROJECT-MEMORY-MARK\n").unwrap();
    std::fs::write(project.join("sub/CLAUDE.md"), "NESTED-MARK\n").unwrap();
    std::fs::write(project.join("sub/notes.txt"), "notes\n").unwrap();
    let read = || reply([tool_use_with_id("r", "Read", json!({"file_path": project.join("sub/notes.txt")}))]);
    let server = serve(Scenario::new([read(), reply([text("a")]), read(), reply([text("b")])]));
    for sources in ["user", "project"] {
        env.rein_at(&server)
            .current_dir(&project)
            .args(["-p", "x", &format!("--setting-sources={sources}")])
            .assert()
            .success();
    }
    let body = |n: usize| server.requests()[n].body.to_string();
    assert!(body(0).contains("USER-MEMORY-MARK"), "the person's memory was left out with only the person's source");
    assert!(!body(0).contains("PROJECT-MEMORY-MARK"));
    assert!(!body(1).contains("NESTED-MARK"), "a subfolder's memory was read without the project");
    assert!(body(2).contains("PROJECT-MEMORY-MARK"));
    assert!(
        body(2).contains("USER-MEMORY-MARK"),
        "the home folder's .claude/CLAUDE.md, above the project, was left out"
    );
    assert!(body(3).contains("NESTED-MARK"));
}

/// No one is there to approve the project's `.mcp.json` servers in SDK mode: as under
/// Claude Code, they start as in a headless session (issue 51: with
/// `setting_sources=["project"]` the local approvals are not even read).
#[test]
fn an_sdk_session_starts_the_projects_mcp_json_servers() {
    let env = Env::new();
    env.write("server.py", crate::sdk_sources::MCP_SERVER);
    let server = json!({"command": "python3", "args": [env.cwd().join("server.py")]});
    env.write(".mcp.json", &json!({"mcpServers": {"prj": server}}).to_string());
    let model = serve(Scenario::new([reply([text("a")])]));
    let out = env
        .rein_at(&model)
        .args(SDK)
        .arg("--setting-sources=project")
        .write_stdin(lines(&[init("i"), user("hi")]))
        .assert()
        .success();
    let out = json_lines(&out.get_output().stdout);
    let init = out.iter().find(|l| l["subtype"] == "init").unwrap();
    assert_eq!(init["mcp_servers"], json!([{"name": "prj", "status": "connected", "source": "project"}]), "{init}");
    assert!(model.requests()[0].body["tools"].to_string().contains("mcp__prj__ping"));
}

#[test]
fn the_init_line_lists_commands_and_agents() {
    let env = Env::new();
    env.write(".claude/commands/review.md", "---\ndescription: Review\n---\nReview $ARGUMENTS\n");
    let server = serve(Scenario::new([reply([text("a")])]));
    let agents = json!({"checker": {"description": "Checks", "prompt": "You check."}}).to_string();
    let out = env
        .rein_at(&server)
        .args(SDK)
        .args(["--agents", &agents])
        .write_stdin(lines(&[init("i"), user("hi")]))
        .assert()
        .success();
    let out = json_lines(&out.get_output().stdout);
    let init = out.iter().find(|l| l["subtype"] == "init").unwrap();
    // The project's commands, then rein's own a program can send; agents by name.
    let commands: Vec<&str> = init["slash_commands"].as_array().unwrap().iter().filter_map(|c| c.as_str()).collect();
    assert_eq!(commands[0], "review", "{init}");
    assert!(commands.contains(&"compact") && !commands.contains(&"vim"), "{commands:?}");
    assert!(init["terminal_slash_commands"].as_array().unwrap().contains(&json!("vim")), "{init}");
    assert_eq!(init["agents"], json!(["checker", "Explore", "general-purpose", "Plan"]));
}

#[test]
fn session_state_frames_when_the_sdk_asks_for_them() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("a")])]));
    let out = env
        .rein_at(&server)
        .env("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1")
        .args(SDK)
        .write_stdin(lines(&[init("i"), user("hi")]))
        .assert()
        .success();
    let order: Vec<String> = json_lines(&out.get_output().stdout)
        .iter()
        .filter_map(|l| match (l["type"].as_str(), l["subtype"].as_str()) {
            (Some("system"), Some("session_state_changed")) => {
                assert_eq!(l["sdk_host_only"], true);
                Some(l["state"].as_str().unwrap().to_string())
            }
            (Some("system"), Some("init")) => Some("init".into()),
            (Some("result"), _) => Some("result".into()),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["running", "init", "result", "idle"]);
}

#[test]
fn print_mode_with_stream_json_input_is_the_same_protocol() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("from -p")])]));
    let out = env.rein_at(&server).arg("-p").args(SDK).write_stdin(lines(&[init("i"), user("hi")])).assert().success();
    let out = json_lines(&out.get_output().stdout);
    assert_eq!(out[0]["type"], "control_response");
    assert_eq!(out.iter().find(|l| l["type"] == "result").unwrap()["result"], "from -p");
}

/// A built-in command sent as a prompt is answered by the session, as at the terminal:
/// `/context` gives its figures as the result with no model request, `/model NAME`
/// changes the model the next prompt goes to; `initialize` offers them.
#[test]
fn built_in_commands_sent_as_prompts_are_answered_by_the_session() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("from haiku")])]));
    let input = lines(&[init("i"), user("/context"), user("/model haiku"), user("hi")]);
    let out = env.rein_at(&server).args(SDK).write_stdin(input).assert().success();
    let out = json_lines(&out.get_output().stdout);
    let offered = &response(&out, "i")["response"]["response"]["commands"];
    assert!(offered.as_array().unwrap().iter().any(|c| c["name"] == "context" && c["builtin"] == true), "{offered}");
    let results: Vec<&Value> = out.iter().filter(|l| l["type"] == "result").collect();
    assert_eq!(results.len(), 3, "{out:?}");
    let context = results[0]["result"].as_str().unwrap();
    assert!(context.contains("tokens") && context.contains("Tool definitions"), "{context}");
    assert_eq!(results[0]["num_turns"], 0);
    assert_eq!(results[1]["result"], "The model is now claude-haiku-4-5");
    assert_eq!(results[2]["result"], "from haiku");
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "only the real prompt reached the model");
    assert_eq!(requests[0].body["model"], "claude-haiku-4-5");
}

/// `rein -p /context` prints the figures and asks the model nothing.
#[test]
fn print_mode_answers_a_built_in_command_itself() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("unused")])]));
    let out = env.rein_at(&server).args(["-p", "/context"]).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("Compaction starts at"), "{stdout}");
    assert!(server.requests().is_empty(), "the model was asked");
}
