//! The hook events Claude Code raises that rein raised last: FileChanged (files named
//! by the matcher and by `watchPaths`), TaskCreated and TaskCompleted (from the task
//! list, and a hook that refuses a completion), Setup (`--init`, `--init-only`,
//! `--maintenance`), WorktreeCreate / WorktreeRemove (`--worktree` made and removed
//! by hooks, for a folder git does not manage) and MessageDisplay (what is shown).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};

/// The hook inputs appended to `log`, one JSON object a line.
fn inputs(log: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn recorder(log: &std::path::Path) -> String {
    format!("cat >> '{}'; echo >> '{}'", log.display(), log.display())
}

#[test]
fn a_watched_file_a_command_writes_fires_file_changed_and_its_exports_reach_later_commands() {
    let env = Env::new();
    let log = env.cwd().join("changed.jsonl");
    let on_change = format!("{}; echo 'export FROM_VERSIONS=loaded' >> \"$CLAUDE_ENV_FILE\"", recorder(&log));
    let start = r#"echo '{"hookSpecificOutput": {"hookEventName": "SessionStart", "watchPaths": ["conf/app.toml"]}}'"#;
    env.write("conf/app.toml", "a = 1\n");
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": start}]}],
            "FileChanged": [
                {"matcher": "versions.txt|.nvmrc", "hooks": [{"type": "command", "command": on_change}]},
                {"matcher": "app.toml", "hooks": [{"type": "command", "command": recorder(&log)}]},
            ],
        }})
        .to_string(),
    );
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": "echo '20' > versions.txt"}))]),
        reply([call(
            "b",
            "Bash",
            json!({"command": "echo \"$FROM_VERSIONS\" > seen.txt; echo 'a = 2' > conf/app.toml"}),
        )]),
        reply([call("c", "Bash", json!({"command": "rm versions.txt"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Bash"]).assert().success();
    let seen: Vec<(String, String)> = inputs(&log)
        .iter()
        .map(|v| {
            assert_eq!(v["hook_event_name"], "FileChanged");
            (v["file_path"].as_str().unwrap().to_string(), v["event"].as_str().unwrap().to_string())
        })
        .collect();
    let (envrc, toml) =
        (env.cwd().join("versions.txt").display().to_string(), env.cwd().join("conf/app.toml").display().to_string());
    assert_eq!(
        seen,
        vec![(envrc.clone(), "add".into()), (toml, "change".into()), (envrc, "unlink".into())],
        "each change once, in order"
    );
    let exported = std::fs::read_to_string(env.cwd().join("seen.txt")).unwrap();
    assert_eq!(exported, "loaded\n", "what the FileChanged hook exported is set for later commands");
}

#[test]
fn the_task_list_raises_task_created_and_completed_and_a_hook_can_refuse_a_completion() {
    let env = Env::new();
    let log = env.cwd().join("tasks.jsonl");
    // Completing "ship it" is refused until a file says the tests passed.
    let gate = format!(
        "{}; grep -q '\"task_subject\":\"ship it\"' '{}' && [ ! -f passed ] && {{ echo 'run the tests first' >&2; exit 2; }}; exit 0",
        recorder(&log),
        log.display()
    );
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {
            "TaskCreated": [{"hooks": [{"type": "command", "command": recorder(&log)}]}],
            "TaskCompleted": [{"hooks": [{"type": "command", "command": gate}]}],
        }})
        .to_string(),
    );
    let list = |status: &str| json!({"todos": [{"content": "ship it", "status": status, "activeForm": "Shipping it"}]});
    let server = serve(Scenario::new([
        reply([call("a", "TodoWrite", list("in_progress"))]),
        reply([call("b", "TodoWrite", list("completed"))]),
        reply([call("c", "Write", json!({"file_path": env.cwd().join("passed"), "content": "yes"}))]),
        reply([call("d", "TodoWrite", list("completed"))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Write"]).assert().success();
    let messages = server.requests().last().unwrap().body["messages"].as_array().unwrap().clone();
    let (refused, is_error) = tool_result(&messages, "b");
    assert!(is_error && refused.contains("run the tests first"), "{refused}");
    let (accepted, is_error) = tool_result(&messages, "d");
    assert!(!is_error, "{accepted}");
    let events: Vec<(String, String)> = inputs(&log)
        .iter()
        .map(|v| (v["hook_event_name"].as_str().unwrap().into(), v["task_id"].as_str().unwrap().into()))
        .collect();
    let expected = [("TaskCreated", "1"), ("TaskCompleted", "1"), ("TaskCompleted", "1")];
    assert_eq!(events, expected.map(|(e, i)| (e.to_string(), i.to_string())), "created once, completed twice");
    assert_eq!(inputs(&log)[0]["task_subject"], "ship it");
}

#[test]
fn init_and_maintenance_run_setup_hooks_and_init_only_stops_there() {
    let env = Env::new();
    let log = env.cwd().join("setup.jsonl");
    let hook = format!(
        "{}; echo '{{\"hookSpecificOutput\": {{\"hookEventName\": \"Setup\", \"additionalContext\": \"SETUP-CONTEXT\"}}}}'",
        recorder(&log)
    );
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"Setup": [{"matcher": "init|maintenance", "hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).args(["--init-only"]).assert().success();
    assert!(server.requests().is_empty(), "--init-only started a session");
    env.rein_at(&server).args(["-p", "go", "--maintenance"]).assert().success();
    let body = server.requests()[0].body.to_string();
    assert!(body.contains("SETUP-CONTEXT"), "the Setup hook's context is not in the first request");
    let triggers: Vec<Value> = inputs(&log).iter().map(|v| v["trigger"].clone()).collect();
    assert_eq!(triggers, vec![json!("init"), json!("maintenance")]);
    assert!(inputs(&log).iter().all(|v| v["hook_event_name"] == "Setup"));
    // Without a flag, no Setup.
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    assert_eq!(inputs(&log).len(), 2);
}

#[test]
fn a_worktree_create_hook_makes_the_worktree_and_worktree_remove_hears_when_it_is_done() {
    let env = Env::new();
    let log = env.cwd().join("worktree.jsonl");
    let made = tempfile::tempdir().unwrap();
    let place = std::fs::canonicalize(made.path()).unwrap().join("wt-feature");
    let create =
        format!("{}; mkdir -p '{}'; echo 'making it'; echo '{}'", recorder(&log), place.display(), place.display());
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {
            "WorktreeCreate": [{"hooks": [{"type": "command", "command": create}]}],
            "WorktreeRemove": [{"hooks": [{"type": "command", "command": recorder(&log)}]}],
        }})
        .to_string(),
    );
    // Not a git repository: without the hook, --worktree could not work here.
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": "pwd > where.txt"}))]),
        reply([text("done")]),
    ]));
    let out =
        env.rein_at(&server).args(["-p", "go", "--worktree", "feature", "--allowedTools", "Bash"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = inputs(&log);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        (seen[0]["hook_event_name"].as_str(), seen[0]["name"].as_str()),
        (Some("WorktreeCreate"), Some("feature"))
    );
    assert_eq!(seen[1]["hook_event_name"], "WorktreeRemove");
    assert_eq!(seen[1]["worktree_path"], place.display().to_string());
    assert_eq!(seen[0]["session_id"], seen[1]["session_id"]);
    let body = &server.requests()[0].body;
    assert!(body.to_string().contains(&place.display().to_string()), "the session did not work in the hook's folder");
    assert_eq!(std::fs::read_to_string(place.join("where.txt")).unwrap().trim(), place.display().to_string());

    // A hook that fails stops rein before any session.
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "echo 'no space' >&2; exit 1"}]}]}})
            .to_string(),
    );
    let server = serve(Scenario::new([reply([text("hi")])]));
    let out = env.rein_at(&server).args(["-p", "go", "--worktree", "x"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no space"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(server.requests().is_empty());
}

/// MessageDisplay: a hook masks a secret in what the person sees of an answer; the
/// conversation keeps the model's words.
#[test]
fn a_message_display_hook_changes_what_is_shown_and_not_what_is_kept() {
    let env = Env::new();
    let log = env.cwd().join("display.jsonl");
    let hook = format!(
        "input=$(cat); printf '%s\\n' \"$input\" >> '{}'; shown=$(printf '%s' \"$input\" | jq -r .delta | sed 's/hunter2/[masked]/g'); \
         jq -n --arg t \"$shown\" '{{hookSpecificOutput: {{hookEventName: \"MessageDisplay\", displayContent: $t}}}}'",
        log.display()
    );
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"MessageDisplay": [{"hooks": [{"type": "command", "command": hook}]}]}}).to_string(),
    );
    let server =
        serve(Scenario::new([reply([text("The password is hunter2, keep it safe.")]), reply([text("Noted.")])]));
    let pane = crate::tui_pane::Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("what is the password");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("The password is [masked], keep it safe.");
    assert!(!screen.contains("hunter2"), "{screen}");
    pane.type_text("thanks");
    pane.keys(&["Enter"]);
    pane.wait_for("Noted.");
    let kept = server.requests()[1].body["messages"].to_string();
    assert!(kept.contains("The password is hunter2"), "the conversation lost the model's words: {kept}");
    let first = &inputs(&log)[0];
    assert_eq!((first["hook_event_name"].as_str(), first["final"].as_bool()), (Some("MessageDisplay"), Some(true)));
    assert_eq!(first["index"], 0);
    assert!(first["message_id"].as_str().is_some_and(|m| !m.is_empty()), "{first}");
}

/// A background agent with a name is the session's teammate: about to go idle, it
/// raises TeammateIdle, and a hook's exit 2 keeps it working with the hook's words.
#[test]
fn a_named_background_agent_going_idle_raises_teammate_idle_and_a_hook_keeps_it_working() {
    use crate::background_agents::{SCOUT, last_message_text, scout, split};
    let env = Env::new();
    scout(&env);
    let log = env.cwd().join("idle.jsonl");
    // The first time, the teammate is sent back to check the tests.
    let gate =
        format!("{}; [ -f checked ] && exit 0; touch checked; echo 'check the tests too' >&2; exit 2", recorder(&log));
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"TeammateIdle": [{"hooks": [{"type": "command", "command": gate}]}]}}).to_string(),
    );
    let server = serve(
        Scenario::new([
            reply([call(
                "a",
                "Agent",
                json!({"description": "look around", "prompt": "Look around", "subagent_type": "scout",
                       "run_in_background": true, "name": "lookout"}),
            )]),
            reply([text("The lookout is out.")]),
            reply([text("The lookout is back.")]),
        ])
        .with_routed(
            SCOUT,
            [
                rein_testkit::Reply { event_delay_ms: 40, ..reply([text("Looked.")]) },
                reply([text("Looked, and the tests pass.")]),
            ],
        ),
    );
    env.rein_at(&server).args(["-p", "send the lookout"]).assert().success();
    let (main, sub) = split(&server);
    assert_eq!(sub.len(), 2, "the hook kept the teammate working once");
    let fed = last_message_text(&sub[1].body);
    assert!(fed.contains("TeammateIdle hook") && fed.contains("check the tests too"), "{fed}");
    let report = last_message_text(&main.last().unwrap().body);
    assert!(report.contains("Looked, and the tests pass."), "{report}");
    let idle = inputs(&log);
    assert_eq!(idle.len(), 2, "{idle:?}");
    assert_eq!(
        (idle[0]["hook_event_name"].as_str(), idle[0]["teammate_name"].as_str()),
        (Some("TeammateIdle"), Some("lookout"))
    );
    assert!(idle[0]["team_name"].as_str().is_some_and(|t| !t.is_empty()), "{:?}", idle[0]);
}
