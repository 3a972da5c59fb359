//! What subagents' and skills' own front matter changes, through the real binary: their
//! `hooks` (a subagent's for its run only, its Stop as SubagentStop; a skill's from its
//! first use, `once` handlers once; none when managed settings allow only managed
//! hooks), a skill's `context: fork` (a subagent of its `agent` type runs it), and a
//! skill's `paths:` (named to the model when a matching file is first read).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn logged(env: &Env) -> Vec<Value> {
    let text = std::fs::read_to_string(env.cwd().join("hooks.jsonl")).unwrap_or_default();
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn record(env: &Env) -> String {
    let log = env.cwd().join("hooks.jsonl");
    format!("cat >> '{}'; echo >> '{}'", log.display(), log.display())
}

/// A subagent whose own hooks refuse Bash and log its Stop.
fn guarded_agent(env: &Env) {
    let agent = format!(
        "---\nname: guarded\ndescription: Careful\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"echo no shell here >&2; exit 2\"\n  Stop:\n    - hooks:\n        - type: command\n          command: \"{}\"\n---\nWork carefully.\n",
        record(env).replace('"', "\\\"")
    );
    env.write(".claude/agents/guarded.md", &agent);
}

fn agent_scenario() -> rein_testkit::FakeServer {
    serve(Scenario::new([
        reply([call("a", "Agent", json!({"description": "t", "prompt": "Do it", "subagent_type": "guarded"}))]),
        reply([call("in", "Bash", json!({"command": "echo inside > inside.txt"}))]),
        reply([text("could not")]),
        reply([call("out", "Bash", json!({"command": "echo outside > outside.txt"}))]),
        reply([text("done")]),
    ]))
}

#[test]
fn a_subagents_hooks_run_during_its_run_only() {
    let env = Env::new();
    guarded_agent(&env);
    let server = agent_scenario();
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Bash"]).assert().success();
    assert!(!env.cwd().join("inside.txt").exists(), "the subagent's PreToolUse hook refused its Bash");
    let reqs = server.requests();
    let (result, is_error) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "in");
    assert!(is_error && result.contains("no shell here"), "{result}");
    assert!(env.cwd().join("outside.txt").exists(), "the main session is not under the subagent's hooks");
    let events: Vec<String> = logged(&env).iter().map(|v| v["hook_event_name"].as_str().unwrap().to_string()).collect();
    assert_eq!(events, ["SubagentStop"], "its Stop hook ran as SubagentStop, once");
}

#[test]
fn managed_settings_that_allow_only_managed_hooks_keep_a_subagents_hooks_off() {
    let env = Env::new();
    guarded_agent(&env);
    let managed = tempfile::tempdir().unwrap();
    std::fs::write(managed.path().join("managed-settings.json"), r#"{"allowManagedHooksOnly": true}"#).unwrap();
    let server = agent_scenario();
    env.rein_at(&server)
        .env("REIN_MANAGED_SETTINGS_DIR", managed.path())
        .args(["-p", "go", "--allowedTools", "Bash"])
        .assert()
        .success();
    assert!(env.cwd().join("inside.txt").exists(), "no definition hook runs");
    assert!(logged(&env).is_empty());
}

#[test]
fn a_skills_hooks_start_with_its_first_use_and_once_runs_once() {
    let env = Env::new();
    let skill = format!(
        "---\ndescription: Formats\nhooks:\n  PostToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          once: true\n          command: \"{}\"\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: \"{}\"\n---\nFormat the code.\n",
        record(&env).replace('"', "\\\""),
        record(&env).replace('"', "\\\"")
    );
    env.write(".claude/skills/fmt/SKILL.md", &skill);
    let server = serve(Scenario::new([
        reply([call("b0", "Bash", json!({"command": "true"}))]),
        reply([call("s", "Skill", json!({"skill": "fmt"}))]),
        reply([call("b1", "Bash", json!({"command": "true"}))]),
        reply([call("b2", "Bash", json!({"command": "true"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Bash,Skill"]).assert().success();
    let seen: Vec<(String, String)> = logged(&env)
        .iter()
        .map(|v| (v["hook_event_name"].as_str().unwrap().to_string(), v["tool_use_id"].as_str().unwrap().to_string()))
        .collect();
    let want = [("PreToolUse", "b1"), ("PostToolUse", "b1"), ("PreToolUse", "b2")];
    assert_eq!(seen, want.map(|(a, b)| (a.to_string(), b.to_string())), "nothing before the skill; `once` once");
}

#[test]
fn a_forked_skill_runs_in_a_subagent_of_its_type_whether_the_model_or_the_person_calls_it() {
    let env = Env::new();
    env.write(
        ".claude/skills/survey/SKILL.md",
        "---\ndescription: Surveys the code\ncontext: fork\nagent: Explore\n---\nSurvey the code for $ARGUMENTS.\n",
    );
    // The model calls it.
    let server = serve(Scenario::new([
        reply([call("s", "Skill", json!({"skill": "survey", "args": "TODOs"}))]),
        reply([text("Two TODOs in src/.")]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Skill"]).assert().success();
    let reqs = server.requests();
    assert!(reqs[1].system_text().contains("You change nothing"), "an Explore subagent ran it");
    assert!(reqs[1].body["messages"].to_string().contains("Survey the code for TODOs."));
    let (result, is_error) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "s");
    assert!(!is_error && result.contains("Two TODOs in src/."), "the report is the result: {result}");

    // The person types it.
    let server = serve(Scenario::new([reply([text("Found the TODOs.")]), reply([text("Noted.")])]));
    env.rein_at(&server).args(["-p", "/survey FIXMEs"]).assert().success().stdout("Noted.\n");
    let reqs = server.requests();
    assert!(
        reqs[0].system_text().contains("You change nothing") && reqs[0].body["messages"].to_string().contains("FIXMEs")
    );
    let main = reqs[1].body["messages"].to_string();
    assert!(main.contains("ran in a Explore subagent") && main.contains("Found the TODOs."), "{main}");
}

#[test]
fn a_skill_with_paths_is_named_when_a_matching_file_is_first_read() {
    let env = Env::new();
    env.write(".claude/skills/rusty/SKILL.md", "---\ndescription: Rust conventions\npaths: src/**/*.rs\n---\nUse ?.\n");
    env.write("src/lib.rs", "pub fn f() {}\n");
    env.write("README.md", "hi\n");
    let server = serve(Scenario::new([
        reply([call("r1", "Read", json!({"file_path": "README.md"}))]),
        reply([call("r2", "Read", json!({"file_path": "src/lib.rs"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    let reqs = server.requests();
    let skill_tool = reqs[0].body["tools"].as_array().unwrap().iter().find(|t| t["name"] == "Skill").cloned();
    assert!(!skill_tool.unwrap_or_default().to_string().contains("rusty"), "not listed before its files come up");
    assert!(!reqs[1].body["messages"].to_string().contains("rusty"));
    let last = reqs[2].body["messages"].to_string();
    assert!(last.contains("The skill \\\"rusty\\\" is about this file"), "{last}");
}
