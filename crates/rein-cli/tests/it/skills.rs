//! Skills through the real binary: listed by name and description only, loaded when
//! invoked, their files read on demand, their allowed-tools granting nothing when the
//! model calls them (and holding for the turn of the person's `/name`), `Skill(name)`
//! rules, and `/name args` from the user.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

fn greet_skill(env: &Env) -> std::path::PathBuf {
    env.write(
        ".claude/skills/greet/SKILL.md",
        "---\nname: greet\ndescription: Greets people warmly\nallowed-tools: Bash(touch:*)\n---\nGREETING INSTRUCTIONS: use the wording in template.txt.\n",
    );
    env.write(".claude/skills/greet/template.txt", "TEMPLATE: Hello there, friend!\n");
    env.cwd().join(".claude/skills/greet")
}

fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().unwrap().clone()
}

#[test]
fn a_skill_is_listed_then_loaded_and_its_files_read_on_demand() {
    let env = Env::new();
    let dir = greet_skill(&env);
    let server = serve(Scenario::new([
        reply([tool_use_with_id("s", "Skill", json!({"skill": "greet"}))]),
        reply([tool_use_with_id("r", "Read", json!({"file_path": dir.join("template.txt")}))]),
        reply([text("Hello there, friend!")]),
    ]));
    env.rein_at(&server).args(["-p", "greet me"]).assert().success().stdout("Hello there, friend!\n");
    let reqs = server.requests();
    let first = reqs[0].body.to_string();
    assert!(first.contains("greet: Greets people warmly"), "the skill is listed");
    assert!(!first.contains("GREETING INSTRUCTIONS"), "the body is not in the first request");
    let (loaded, err) = tool_result(&messages(&reqs[1].body), "s");
    assert!(!err && loaded.contains("GREETING INSTRUCTIONS"), "{loaded}");
    assert!(loaded.contains(&dir.display().to_string()), "the base directory is given: {loaded}");
    let (read, _) = tool_result(&messages(&reqs[2].body), "r");
    assert!(read.contains("TEMPLATE: Hello there"), "{read}");
}

/// As Claude Code: a skill the model calls cannot allow its own tools (a cloned
/// repository's skill would otherwise grant the model whatever it names); the person
/// typing `/greet` grants them for that turn only.
#[test]
fn a_skill_the_model_calls_grants_nothing_and_the_persons_call_grants_its_turn() {
    let env = Env::new();
    greet_skill(&env);
    let server = serve(Scenario::new([
        reply([tool_use_with_id("s", "Skill", json!({"skill": "greet"}))]),
        reply([tool_use_with_id("b1", "Bash", json!({"command": "touch by-model.txt"}))]),
        reply([text("done")]),
        reply([tool_use_with_id("b2", "Bash", json!({"command": "touch by-person.txt"}))]),
        reply([text("done too")]),
        reply([tool_use_with_id("b3", "Bash", json!({"command": "touch after.txt"}))]),
        reply([text("done again")]),
    ]));
    // Three turns in one process (stream-json input): rules live in the session.
    let line = |text: &str| json!({"type": "user", "message": {"role": "user", "content": text}}).to_string() + "\n";
    env.rein_at(&server)
        .args(["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"])
        .write_stdin(line("go") + &line("/greet Bob") + &line("again"))
        .assert()
        .success();
    let (loaded, _) = tool_result(&messages(&server.requests()[1].body), "s");
    assert!(loaded.contains("GREETING INSTRUCTIONS"), "the skill loaded: {loaded}");
    assert!(!env.cwd().join("by-model.txt").exists(), "the model's skill call granted its allowed-tools");
    assert!(env.cwd().join("by-person.txt").exists(), "the person's /greet allows its tools for that turn");
    assert!(!env.cwd().join("after.txt").exists(), "the next turn asks again");
}

#[test]
fn skill_rules_and_the_users_slash_call() {
    let env = Env::new();
    greet_skill(&env);
    let server = serve(Scenario::new([
        reply([tool_use_with_id("s", "Skill", json!({"skill": "greet"}))]),
        reply([text("ok")]),
        reply([text("Hello, Bob!")]),
    ]));
    env.rein_at(&server).args(["-p", "greet", "--disallowedTools", "Skill(greet)"]).assert().success();
    let (denied, err) = tool_result(&messages(&server.requests()[1].body), "s");
    assert!(err && !denied.contains("GREETING INSTRUCTIONS"), "{denied}");
    env.rein_at(&server).args(["-p", "/greet Bob"]).assert().success();
    let prompt = messages(&server.requests()[2].body)[0].to_string();
    assert!(prompt.contains("GREETING INSTRUCTIONS") && prompt.contains("ARGUMENTS: Bob"), "{prompt}");
}

#[test]
fn the_model_runs_a_command_through_the_skill_tool_and_it_grants_nothing() {
    let env = crate::common::Env::new();
    env.write(
        ".claude/commands/changelog.md",
        "---\ndescription: Write the changelog\nallowed-tools: Bash(touch:*)\n---\nWrite the changelog for $ARGUMENTS.\n",
    );
    env.write(".claude/commands/status.md", "---\ndescription: Status\n---\nNow: !`git status`\n");
    env.write(".claude/commands/mine.md", "---\ndescription: Mine\ndisable-model-invocation: true\n---\nMine.\n");
    let call = rein_testkit::tool_use_with_id;
    let server = crate::common::serve(rein_testkit::Scenario::new([
        rein_testkit::reply([call("c", "Skill", serde_json::json!({"skill": "changelog", "args": "v2"}))]),
        rein_testkit::reply([call("t", "Bash", serde_json::json!({"command": "touch granted"}))]),
        rein_testkit::reply([call("s", "Skill", serde_json::json!({"skill": "status"}))]),
        rein_testkit::reply([rein_testkit::text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "release"]).assert().success();
    let reqs = server.requests();
    let tools = reqs[0].body["tools"].to_string();
    assert!(tools.contains("- changelog: Write the changelog"), "{tools}");
    assert!(!tools.contains("- status:") && !tools.contains("- mine:"), "shell lines and opt-outs stay the person's");
    let (result, _) = crate::common::tool_result(reqs[1].body["messages"].as_array().unwrap(), "c");
    assert_eq!(result, "Write the changelog for v2.\n");
    assert!(!env.cwd().join("granted").exists(), "a command the model runs grants nothing");
    let (result, is_error) = crate::common::tool_result(reqs[3].body["messages"].as_array().unwrap(), "s");
    assert!(is_error && result.contains("unknown skill"), "{result}");
}

const RULES: &str = "Bash(printf:*),Bash(tee:*)";

fn status_skill(env: &Env) {
    env.write(
        ".claude/skills/status/SKILL.md",
        "---\ndescription: Reports the branch\nallowed-tools: Bash(printf:*), Bash(tee:*)\n---\nThe state: !`printf BRANCH-IS-%s 42 | tee state.txt`\nFor $ARGUMENTS.\n",
    );
}

/// As Claude Code: a skill's `` !`cmd` `` lines run when the model loads it, each asked
/// like a call of the model's (the skill's own allowed-tools grant nothing); a line that
/// is refused or blocked stops the skill.
#[test]
fn a_skills_shell_lines_run_when_the_model_loads_it_under_the_persons_rules() {
    let env = Env::new();
    status_skill(&env);
    let script = || {
        serve(Scenario::new([
            reply([tool_use_with_id("s", "Skill", json!({"skill": "status", "args": "the `release`"}))]),
            reply([text("done")]),
        ]))
    };
    let allowed = script();
    env.rein_at(&allowed).args(["-p", "go", "--allowedTools", RULES]).assert().success();
    let (loaded, err) = tool_result(&messages(&allowed.requests()[1].body), "s");
    assert!(!err && loaded.contains("The state: BRANCH-IS-42"), "the line ran and its output is in place: {loaded}");
    assert!(loaded.contains("For the `release`."), "arguments are filled, never run: {loaded}");

    assert!(env.cwd().join("state.txt").exists());
    std::fs::remove_file(env.cwd().join("state.txt")).unwrap();
    let refused = script();
    env.rein_at(&refused).args(["-p", "go"]).assert().success();
    let (loaded, err) = tool_result(&messages(&refused.requests()[1].body), "s");
    assert!(err && loaded.contains("was not loaded"), "not allowed by the person's rules: {loaded}");
    assert!(!loaded.contains("The state: BRANCH-IS-42"), "{loaded}");
    assert!(!env.cwd().join("state.txt").exists(), "the skill's allowed-tools granted nothing");

    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"PreSkillShellCommand": [{"matcher": "status", "hooks": [{"type": "command", "command": "echo no shell for skills >&2; exit 2"}]}]}}).to_string(),
    );
    let blocked = script();
    env.rein_at(&blocked).args(["-p", "go", "--allowedTools", RULES]).assert().success();
    let (loaded, err) = tool_result(&messages(&blocked.requests()[1].body), "s");
    assert!(err && loaded.contains("no shell for skills"), "the hook blocked it: {loaded}");
    assert!(!env.cwd().join("state.txt").exists());
}
