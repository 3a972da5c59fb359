//! Claude Code's newer hook events, fired by the real binary with their input fields:
//! InstructionsLoaded, UserPromptExpansion, PreSkillShellCommand, PostToolBatch,
//! SubagentStart, StopFailure, PostCompact, Pre/PostModelSwitch, CwdChanged,
//! ConfigChange — and a hook that blocks where Claude Code lets it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, json_lines, serve};
use rein_testkit::{Scenario, Step, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

const EVENTS: [&str; 9] = [
    "InstructionsLoaded",
    "UserPromptExpansion",
    "PreSkillShellCommand",
    "PostToolBatch",
    "SubagentStart",
    "StopFailure",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
];

/// Every event above logs its input to `events.jsonl`.
fn logging_env() -> Env {
    let env = Env::new();
    let log = env.cwd().join("events.jsonl");
    let handler = json!([{"hooks": [{"type": "command", "command": format!("cat >> '{}'; echo >> '{}'", log.display(), log.display())}]}]);
    let hooks: serde_json::Map<String, Value> = EVENTS.iter().map(|e| (e.to_string(), handler.clone())).collect();
    env.write(".claude/settings.json", &json!({"hooks": hooks}).to_string());
    env
}

fn logged(env: &Env, event: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(env.cwd().join("events.jsonl")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["hook_event_name"] == event)
        .collect()
}

#[test]
fn a_turn_fires_the_newer_events_with_their_fields() {
    let env = logging_env();
    env.write("CLAUDE.md", "Be brief.\n");
    env.write(
        ".claude/skills/greet/SKILL.md",
        "---\ndescription: Greets\n---\nSay hi to $ARGUMENTS. Today: !`echo sunny`\n",
    );
    let server = serve(Scenario::new([
        reply([
            call("a", "Agent", json!({"description": "look", "prompt": "Look around", "subagent_type": "Explore"})),
            call("b", "Bash", json!({"command": "echo batch"})),
        ]),
        reply([text("looked")]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "/greet Ada", "--allowedTools", "Bash(echo *)"]).assert().success();
    let loaded = logged(&env, "InstructionsLoaded");
    assert!(loaded.iter().any(|v| v["file_path"] == env.cwd().join("CLAUDE.md").display().to_string()), "{loaded:?}");
    assert_eq!(loaded[0]["memory_type"], "Project");
    assert_eq!(loaded[0]["load_reason"], "session_start");
    let expansion = &logged(&env, "UserPromptExpansion")[0];
    assert_eq!(expansion["expansion_type"], "slash_command");
    assert_eq!((expansion["command_name"].as_str(), expansion["command_args"].as_str()), (Some("greet"), Some("Ada")));
    assert_eq!(expansion["prompt"], "/greet Ada");
    let shell = &logged(&env, "PreSkillShellCommand")[0];
    assert_eq!((shell["skill_name"].as_str(), shell["command"].as_str()), (Some("greet"), Some("echo sunny")));
    let start = &logged(&env, "SubagentStart")[0];
    assert_eq!(start["agent_type"], "Explore");
    assert!(start["agent_id"].as_str().unwrap().starts_with("agent-"));
    let batches = logged(&env, "PostToolBatch");
    let calls = batches.last().unwrap()["tool_calls"].as_array().unwrap().clone();
    let names: Vec<&str> = calls.iter().map(|c| c["tool_name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Agent", "Bash"], "one batch with both calls: {batches:?}");
    assert_eq!(calls[1]["tool_input"]["command"], "echo batch");
    assert!(calls[1]["tool_response"].to_string().contains("batch"), "{calls:?}");
    assert!(logged(&env, "StopFailure").is_empty());
}

#[test]
fn an_api_error_fires_stop_failure_and_compaction_fires_post_compact() {
    let env = logging_env();
    let server = serve(Scenario::new([Step::api_error(400, "invalid_request_error", "bad thing")]));
    env.rein_at(&server).args(["-p", "hi"]).assert().failure();
    let failure = &logged(&env, "StopFailure")[0];
    assert_eq!(failure["error"], "invalid_request");
    assert!(failure["error_details"].as_str().unwrap().contains("bad thing"));

    let turn = |i: usize| reply([call(&format!("t{i}"), "Bash", json!({"command": "seq 1 2500"}))]);
    let mut steps: Vec<Step> = (0..6).map(|i| Step::from(turn(i))).collect();
    steps.push(reply([text("finished")]).into());
    let server = serve(Scenario::new(steps).with_summary("SUMMARY: six listings."));
    env.rein_at(&server)
        .env("REIN_CONTEXT_WINDOW", "12000")
        .args(["-p", "list", "--allowedTools", "Bash(seq *)"])
        .assert()
        .success();
    let compact = &logged(&env, "PostCompact")[0];
    assert_eq!(compact["trigger"], "auto");
    assert!(compact["compact_summary"].as_str().unwrap().contains("SUMMARY: six listings."));
}

#[test]
fn a_model_switch_fires_its_hooks_and_pre_model_switch_may_refuse_it() {
    let env = logging_env();
    let sdk = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"];
    let set = |id: &str, model: &str| json!({"type": "control_request", "request_id": id, "request": {"subtype": "set_model", "model": model}});
    let init =
        json!({"type": "control_request", "request_id": "i", "request": {"subtype": "initialize", "hooks": null}});
    let user = |t: &str| json!({"type": "user", "message": {"role": "user", "content": t}, "parent_tool_use_id": null});
    let input: String = [init.clone(), set("m1", "haiku"), user("one")].iter().map(|v| format!("{v}\n")).collect();
    let server = serve(Scenario::new([reply([text("1")])]));
    env.rein_at(&server).args(sdk).args(["--model", "claude-opus-5-5"]).write_stdin(input).assert().success();
    let pre = &logged(&env, "PreModelSwitch")[0];
    assert_eq!(
        (pre["current_model"].as_str(), pre["requested_model"].as_str()),
        (Some("claude-opus-5-5"), Some("claude-haiku-4-5"))
    );
    assert_eq!(pre["source"], "sdk");
    let post = &logged(&env, "PostModelSwitch")[0];
    assert_eq!(
        (post["previous_model"].as_str(), post["model"].as_str()),
        (Some("claude-opus-5-5"), Some("claude-haiku-4-5"))
    );
    assert_eq!(server.requests()[0].body["model"], "claude-haiku-4-5");

    // A PreModelSwitch hook that exits 2 keeps the model.
    env.write(
        ".claude/settings.local.json",
        &json!({"hooks": {"PreModelSwitch": [{"hooks": [{"type": "command", "command": "echo no switching >&2; exit 2"}]}]}}).to_string(),
    );
    let input: String = [init, set("m2", "haiku"), user("two")].iter().map(|v| format!("{v}\n")).collect();
    let server = serve(Scenario::new([reply([text("2")])]));
    let out = env.rein_at(&server).args(sdk).args(["--model", "claude-opus-5-5"]).write_stdin(input).output().unwrap();
    assert!(out.status.success());
    assert_eq!(server.requests()[0].body["model"], "claude-opus-5-5", "the hook refused the switch");
    let _ = json_lines(&out.stdout);
}

#[test]
fn a_cd_in_the_shell_fires_cwd_changed_once_and_its_env_file_reaches_later_commands() {
    let env = Env::new();
    let log = env.cwd().join("cwd.jsonl");
    let record = format!("cat >> '{}'; echo >> '{}'", log.display(), log.display());
    let cwd_hook = format!("{record}; echo 'export FROM_CWD_HOOK=moved' >> \"$CLAUDE_ENV_FILE\"");
    let hooks = json!({
        "CwdChanged": [{"hooks": [{"type": "command", "command": cwd_hook}]}],
        "PreToolUse": [{"hooks": [{"type": "command", "command": record}]}],
    });
    env.write(".claude/settings.json", &json!({"hooks": hooks}).to_string());
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": "mkdir -p sub && cd sub"}))]),
        reply([call("b", "Bash", json!({"command": "echo \"$FROM_CWD_HOOK\" > seen.txt"}))]),
        reply([call("c", "Bash", json!({"command": "true"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Bash"]).assert().success();
    let text = std::fs::read_to_string(&log).unwrap();
    let inputs: Vec<Value> = text.lines().filter(|l| !l.is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
    let changed: Vec<&Value> = inputs.iter().filter(|v| v["hook_event_name"] == "CwdChanged").collect();
    let (root, sub) = (env.cwd().display().to_string(), env.cwd().join("sub").display().to_string());
    assert_eq!(changed.len(), 1, "once per move: {changed:?}");
    assert_eq!((changed[0]["old_cwd"].as_str(), changed[0]["new_cwd"].as_str()), (Some(&*root), Some(&*sub)));
    assert_eq!(changed[0]["cwd"], sub, "the common cwd is the shell's");
    let pre: Vec<&Value> = inputs.iter().filter(|v| v["hook_event_name"] == "PreToolUse").collect();
    assert_eq!((pre[0]["cwd"].as_str(), pre[1]["cwd"].as_str()), (Some(&*root), Some(&*sub)));
    let seen = std::fs::read_to_string(env.cwd().join("sub/seen.txt")).unwrap();
    assert_eq!(seen, "moved\n", "what the CwdChanged hook exported is set for later commands");
}

#[test]
fn a_settings_file_changed_between_prompts_fires_config_change_and_a_hook_can_block_it() {
    for block in [false, true] {
        let env = Env::new();
        let log = env.cwd().join("config.jsonl");
        let local = env.cwd().join(".claude/settings.local.json");
        // The first prompt's hook changes the local settings (once).
        let change =
            format!("[ -f done ] || {{ touch done; echo '{{\"model\": \"opus\"}}' > '{}'; }}", local.display());
        let record = format!("cat >> '{}'; echo >> '{}'", log.display(), log.display());
        let on_change = if block { format!("{record}; echo 'keep the old settings' >&2; exit 2") } else { record };
        let hooks = json!({
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": change}]}],
            "ConfigChange": [{"matcher": "local_settings", "hooks": [{"type": "command", "command": on_change}]}],
        });
        env.write(".claude/settings.json", &json!({"hooks": hooks}).to_string());
        let user =
            |t: &str| json!({"type": "user", "message": {"role": "user", "content": t}, "parent_tool_use_id": null});
        let input: String = [user("one"), user("two"), user("three")].iter().map(|v| format!("{v}\n")).collect();
        let server = serve(Scenario::new([reply([text("1")]), reply([text("2")]), reply([text("3")])]));
        let out = env
            .rein_at(&server)
            .args(["-p", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = std::fs::read_to_string(&log).unwrap();
        let inputs: Vec<Value> =
            text.lines().filter(|l| !l.is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(inputs.len(), 1, "one change, one event: {inputs:?}");
        assert_eq!(inputs[0]["hook_event_name"], "ConfigChange");
        assert_eq!(inputs[0]["source"], "local_settings");
        assert_eq!(inputs[0]["file_path"], local.display().to_string());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let said = if block { "blocked the change" } else { "takes effect in the next session" };
        assert!(stderr.contains(said), "the person is told: {stderr}");
    }
}
