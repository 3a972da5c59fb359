//! Workflow scripts through the real binary: the Workflow tool runs a script whose
//! agents are subagents on the fake model (a schema makes one answer through
//! StructuredOutput), a named workflow is a `/name` command, the run is saved, and a
//! workflow is asked about like any tool that declares nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn tool_result(req: &rein_testkit::RecordedRequest, id: &str) -> String {
    let messages = req.body["messages"].as_array().unwrap();
    for m in messages {
        for block in m["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" && block["tool_use_id"] == id {
                return match &block["content"] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
            }
        }
    }
    panic!("no result for {id}");
}

const SCRIPT: &str = r#"export const meta = { name: 'count', description: 'Count things', phases: [{ title: 'Count' }] }
phase('Count')
const counted = await agent(`count the files in ${args.dir}`, {
  label: 'counter',
  schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
})
const said = await agent('say hello')
log(`counted ${counted.n}`)
return { n: counted.n, said }
"#;

#[test]
fn the_model_runs_a_workflow_whose_agents_answer_in_their_schema() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("w", "Workflow", json!({"script": SCRIPT, "args": {"dir": "src"}, "runInBackground": false}))]),
        // The first agent answers through StructuredOutput, which ends it (no request
        // after the answer, as Claude Code's structured output).
        reply([call("s", "StructuredOutput", json!({"n": 3}))]),
        reply([text("hello there")]),
        reply([text("The workflow counted 3.")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "count with a workflow", "--allowedTools", "Workflow"])
        .assert()
        .success()
        .stdout("The workflow counted 3.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    let first_agent = &reqs[1].body;
    assert_eq!(first_agent["messages"][0]["content"][0]["text"], "count the files in src");
    let tools: Vec<&str> =
        first_agent["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(tools.contains(&"StructuredOutput"), "the schema's answer tool is offered: {tools:?}");
    assert!(!tools.contains(&"Workflow") && !tools.contains(&"Agent"), "agents start no workflow: {tools:?}");
    let second_agent = &reqs[2].body;
    assert_eq!(second_agent["messages"][0]["content"][0]["text"], "say hello");
    let result = tool_result(&reqs[3], "w");
    assert!(result.contains("Workflow \"count\" finished: 2 agents"), "{result}");
    assert!(result.contains("\"n\": 3") && result.contains("\"said\": \"hello there\""), "{result}");
    assert!(result.contains("## Count") && result.contains("counted 3"), "progress is reported: {result}");
    let path = result.lines().find_map(|l| l.strip_prefix("scriptPath: ")).expect("the saved script's path");
    assert_eq!(std::fs::read_to_string(path).unwrap(), SCRIPT, "the run's script is saved");
}

#[test]
fn a_named_workflow_is_a_command_and_its_parallel_agents_all_answer() {
    let env = Env::new();
    env.write(
        ".claude/workflows/fan.js",
        "export const meta = { name: 'fan', description: 'Fan out over two parts' }\n\
         const parts = await parallel(['a', 'b'].map((p) => () => agent(`part ${p} of ${args}`)))\n\
         return parts.sort()\n",
    );
    let server = serve(Scenario::new([
        reply([call("w", "Workflow", json!({"name": "fan", "args": "the docs", "runInBackground": false}))]),
        reply([text("beta")]),
        reply([text("alpha")]),
        reply([text("Both parts are done.")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "/fan the docs", "--allowedTools", "Workflow"])
        .assert()
        .success()
        .stdout("Both parts are done.\n");
    let reqs = server.requests();
    let asked = reqs[0].body["messages"][0]["content"].to_string();
    assert!(asked.contains("Workflow tool") && asked.contains("\\\"fan\\\"") && asked.contains("the docs"), "{asked}");
    let mut prompts: Vec<String> =
        reqs[1..3].iter().map(|r| r.body["messages"][0]["content"][0]["text"].as_str().unwrap().to_string()).collect();
    prompts.sort();
    assert_eq!(prompts, ["part a of the docs", "part b of the docs"]);
    let result = tool_result(&reqs[3], "w");
    assert!(result.contains("\"alpha\",\n  \"beta\""), "{result}");
}

#[test]
fn a_workflow_nobody_allowed_is_refused_headless_and_none_of_its_agents_run() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("w", "Workflow", json!({"script": SCRIPT, "args": {"dir": "src"}}))]),
        reply([text("It was not allowed.")]),
    ]));
    env.rein_at(&server).args(["-p", "count"]).assert().success().stdout("It was not allowed.\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "no agent ran");
    let result = tool_result(&reqs[1], "w");
    assert!(!result.contains("finished"), "{result}");
}

#[test]
fn a_script_that_breaks_the_rules_is_refused_before_it_runs() {
    let env = Env::new();
    let bad = "export const meta = { name: 'x', description: 'stamps' }\nreturn await agent(`at ${Date.now()}`)\n";
    let server =
        serve(Scenario::new([reply([call("w", "Workflow", json!({"script": bad}))]), reply([text("fixed nothing")])]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Workflow"]).assert().success();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "no agent ran");
    let result = tool_result(&reqs[1], "w");
    assert!(result.contains("Date.now") && result.contains("line 2"), "{result}");
}

#[test]
fn disable_workflows_turns_off_the_tool_and_the_commands() {
    let env = Env::new();
    env.write(".claude/settings.json", &json!({"disableWorkflows": true}).to_string());
    env.write(".claude/workflows/fan.js", "export const meta = { name: 'fan', description: 'Fan out' }\nreturn 1\n");
    let server = serve(Scenario::new([reply([call("w", "Workflow", json!({"name": "fan"}))]), reply([text("off")])]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Workflow"]).assert().success();
    let reqs = server.requests();
    let result = tool_result(&reqs[1], "w");
    assert!(result.contains("turned off"), "{result}");
    // `/fan` is no command now: the text goes to the model as written.
    let server = serve(Scenario::new([reply([text("plain")])]));
    env.rein_at(&server).args(["-p", "/fan now"]).assert().success();
    let asked = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(!asked.contains("Workflow tool"), "{asked}");
}

#[test]
fn ultracode_in_a_prompt_asks_for_a_workflow_unless_the_setting_is_off() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "clean up the docs, ultracode"]).assert().success();
    let asked = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(asked.contains("do this task as a workflow"), "{asked}");
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "ultracodes are not the word"]).assert().success();
    assert!(!server.requests()[0].body["messages"][0]["content"].to_string().contains("as a workflow"));
    env.write(".claude/settings.json", &json!({"workflowKeywordTriggerEnabled": false}).to_string());
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "clean up the docs, ultracode"]).assert().success();
    assert!(!server.requests()[0].body["messages"][0]["content"].to_string().contains("as a workflow"));
}

#[test]
fn a_script_path_is_a_read_that_read_deny_rules_hold() {
    let env = Env::new();
    env.write("secret.js", "export const meta = { name: 's', description: 'secret' }\nreturn 'TOKEN-123'\n");
    env.write(".claude/settings.json", &json!({"permissions": {"deny": ["Read(./secret.js)"]}}).to_string());
    let server = serve(Scenario::new([
        reply([call("w", "Workflow", json!({"scriptPath": "secret.js"}))]),
        reply([text("denied")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Workflow"]).assert().success();
    let result = tool_result(&server.requests()[1], "w");
    assert!(!result.contains("TOKEN-123") && !result.contains("finished"), "{result}");
}

#[test]
fn a_script_cannot_run_a_denied_file_as_a_nested_workflow() {
    let env = Env::new();
    env.write("secret.js", "export const meta = { name: 's', description: 'secret' }\nreturn 'TOKEN-123'\n");
    env.write(".claude/settings.json", &json!({"permissions": {"deny": ["Read(./secret.js)"]}}).to_string());
    let outer =
        "export const meta = { name: 'o', description: 'outer' }\nreturn await workflow({ scriptPath: 'secret.js' })\n";
    let server = serve(Scenario::new([
        reply([call("w", "Workflow", json!({"script": outer, "runInBackground": false}))]),
        reply([text("denied")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Workflow"]).assert().success();
    let result = tool_result(&server.requests()[1], "w");
    assert!(!result.contains("TOKEN-123") && result.contains("denied"), "{result}");
}

const DANGER: &str = "export const meta = { name: 'danger', description: 'Dangerous' }\nreturn 'DANGER RAN'\n";

#[test]
fn a_rule_on_a_named_workflow_holds_for_its_file_and_from_inside_a_script() {
    let env = Env::new();
    env.write(".claude/workflows/danger.js", DANGER);
    let outer = "export const meta = { name: 'o', description: 'outer' }\nreturn await workflow('danger')\n";
    let server = serve(Scenario::new([
        reply([call("a", "Workflow", json!({"scriptPath": ".claude/workflows/danger.js"}))]),
        reply([call("b", "Workflow", json!({"script": outer, "runInBackground": false}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "Workflow", "--disallowedTools", "Workflow(danger)"])
        .assert()
        .success();
    let reqs = server.requests();
    for (i, id) in [(1, "a"), (2, "b")] {
        let result = tool_result(&reqs[i], id);
        assert!(!result.contains("DANGER RAN"), "{id}: {result}");
    }
}

#[test]
fn workflow_agents_are_held_to_the_rules_on_agent() {
    let env = Env::new();
    let script = "export const meta = { name: 'x', description: 'y' }\nreturn await agent('look around', { agentType: 'Explore' })\n";
    let server = serve(Scenario::new([
        reply([call("w", "Workflow", json!({"script": script, "runInBackground": false}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "Workflow", "--disallowedTools", "Agent(Explore)"])
        .assert()
        .success();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "no subagent ran");
    let result = tool_result(&reqs[1], "w");
    assert!(result.contains("failed") && result.contains("Explore"), "{result}");
}

#[test]
fn a_nested_script_outside_the_workspace_or_a_fifo_is_refused_without_waiting() {
    let env = Env::new();
    let outside = tempfile::tempdir().unwrap();
    let far = outside.path().join("far.js");
    std::fs::write(
        &far,
        "export const meta = { name: 'far', description: 'far' }\n// SECRET-OUTSIDE\nreturn 'FAR RAN'\n",
    )
    .unwrap();
    let fifo = env.cwd().join("pipe.js");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let nested = |p: &std::path::Path| {
        format!(
            "export const meta = {{ name: 'o', description: 'outer' }}\nreturn await workflow({{ scriptPath: {:?} }})\n",
            p.display().to_string()
        )
    };
    let server = serve(Scenario::new([
        reply([call("a", "Workflow", json!({"script": nested(&far), "runInBackground": false}))]),
        reply([call("b", "Workflow", json!({"script": nested(&fifo), "runInBackground": false}))]),
        reply([call("c", "Workflow", json!({"scriptPath": "pipe.js"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "Workflow"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .success();
    let reqs = server.requests();
    let a = tool_result(&reqs[1], "a");
    assert!(!a.contains("FAR RAN") && a.contains("cannot stop to ask"), "{a}");
    let b = tool_result(&reqs[2], "b");
    assert!(b.contains("not a regular file"), "{b}");
    let c = tool_result(&reqs[3], "c");
    assert!(c.contains("not a regular file"), "{c}");
}

/// By default a workflow runs in the background, as in Claude Code: the call returns its
/// run id at once, and the model is told of its end, with its result, at its next step
/// (headless, another turn).
#[test]
fn a_workflow_runs_in_the_background_and_its_result_starts_another_turn() {
    let env = Env::new();
    crate::background_agents::scout(&env);
    let script = "export const meta = { name: 'look', description: 'Look around' }\n\
                  const seen = await agent('look at src', { agentType: 'scout' })\n\
                  return { seen }\n";
    let server = serve(
        Scenario::new([
            reply([call("w", "Workflow", json!({"script": script}))]),
            reply([text("The workflow is running.")]),
            reply([text("The workflow saw two files.")]),
        ])
        .with_routed(
            crate::background_agents::SCOUT,
            [rein_testkit::Reply { event_delay_ms: 80, ..reply([text("two files in src")]) }],
        ),
    );
    env.rein_at(&server)
        .args(["-p", "look with a workflow", "--allowedTools", "Workflow"])
        .assert()
        .success()
        .stdout("The workflow saw two files.\n");
    let (main, sub) = crate::background_agents::split(&server);
    assert_eq!((main.len(), sub.len()), (3, 1), "three turns of the session, one request of the agent");
    let started = tool_result(&main[1], "w");
    assert!(started.contains("Started the workflow \"look\" in the background (runId: wf_"), "{started}");
    assert!(!started.contains("two files"), "the call did not wait: {started}");
    let id = started.split("runId: ").nth(1).and_then(|s| s.split([',', ')']).next()).unwrap().to_string();
    let told = crate::background_agents::last_message_text(&main[2].body);
    assert!(told.contains(&format!("The background workflow {id} (look: workflow) finished")), "{told}");
    assert!(told.contains("two files in src") && told.contains("Workflow \\\"look\\\" finished"), "{told}");
}

/// A script's agent may work in a git worktree of its own, kept when it changed
/// something.
#[test]
fn a_workflow_agent_works_in_a_worktree_of_its_own() {
    use crate::background_agents::{SCOUT, committed_repository, scout};
    let env = Env::new();
    let root = committed_repository(&env);
    scout(&env);
    let script = "export const meta = { name: 'note', description: 'Leave a note' }\n\
                  return await agent('leave a note', { agentType: 'scout', isolation: 'worktree' })\n";
    let server = serve(
        Scenario::new([
            reply([call("w", "Workflow", json!({"script": script, "runInBackground": false}))]),
            reply([text("noted")]),
        ])
        .with_routed(
            SCOUT,
            [
                reply([call("n", "Write", json!({"file_path": "note.txt", "content": "seen\n"}))]),
                reply([text("Left note.txt.")]),
            ],
        ),
    );
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "Workflow", "--permission-mode", "acceptEdits"])
        .assert()
        .success();
    let result = tool_result(&server.requests().last().unwrap().clone(), "w");
    assert!(result.contains("finished") && result.contains("changes are in the worktree"), "{result}");
    let trees: Vec<_> =
        std::fs::read_dir(root.join(".claude/worktrees")).unwrap().flatten().map(|e| e.path()).collect();
    let tree = trees.iter().find(|p| p.is_dir()).expect("the agent's worktree is kept");
    assert_eq!(std::fs::read_to_string(tree.join("note.txt")).unwrap(), "seen\n");
    assert!(!root.join("note.txt").exists(), "the main checkout is untouched");
}
