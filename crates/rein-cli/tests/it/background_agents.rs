//! Background subagents through the real binary (issue 55): the Agent tool's
//! `run_in_background` returns at once with the agent's id; headless waits for the agent
//! and hands its report to the model as another turn; TaskOutput waits for an agent's
//! report and TaskStop stops one, as they do for background commands.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve};
use rein_testkit::{RecordedRequest, Reply, Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

/// The scout's system prompt: its requests are answered from their own steps, so the
/// order in which its requests and the session's arrive does not matter.
pub(crate) const SCOUT: &str = "You scout the project quietly.";

pub(crate) fn scout(env: &Env) {
    env.write(".claude/agents/scout.md", &format!("---\nname: scout\ndescription: Looks around\n---\n{SCOUT}\n"));
}

/// The scout's answer, slow enough (≈ 0.5 s) that the session's own next request
/// goes first.
fn slow_report(words: &str) -> Reply {
    Reply { event_delay_ms: 80, ..reply([text(words)]) }
}

fn start_scout(id: &str) -> Reply {
    reply([call(
        id,
        "Agent",
        json!({"description": "look around", "prompt": "Look around src", "subagent_type": "scout",
               "run_in_background": true, "name": "lookout"}),
    )])
}

/// The session's requests and the scout's, each in the order they arrived.
pub(crate) fn split(server: &rein_testkit::FakeServer) -> (Vec<RecordedRequest>, Vec<RecordedRequest>) {
    server.requests().into_iter().partition(|r| !r.system_text().contains(SCOUT))
}

/// The text of every tool result and text block of a request's last message.
pub(crate) fn last_message_text(body: &serde_json::Value) -> String {
    let messages = body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"].to_string()
}

#[test]
fn a_background_agent_returns_at_once_and_its_report_starts_another_headless_turn() {
    let env = Env::new();
    scout(&env);
    let server = serve(
        Scenario::new([
            start_scout("a"),
            reply([text("The scout is on its way.")]),
            reply([text("The scout found nothing amiss.")]),
        ])
        .with_routed(SCOUT, [slow_report("Scout report: src is tidy.")]),
    );
    env.rein_at(&server).args(["-p", "send a scout"]).assert().success().stdout("The scout found nothing amiss.\n");
    let (main, sub) = split(&server);
    assert_eq!((main.len(), sub.len()), (3, 1), "three turns of the session, one request of the agent");
    // The call returned before the agent had answered: with the agent's id.
    let started = last_message_text(&main[1].body);
    assert!(started.contains("in the background") && started.contains("lookout"), "{started}");
    assert!(!started.contains("tidy"), "the call did not wait for the report: {started}");
    let id = started.split("agent ").nth(1).and_then(|s| s.split_whitespace().next()).unwrap().to_string();
    assert!(id.starts_with("agent-"), "{started}");
    // The turn after the session's own ended tells the model how the agent ended.
    let told = last_message_text(&main[2].body);
    assert!(told.contains(&format!("{id} (lookout: look around) finished")), "{told}");
    assert!(told.contains("Scout report: src is tidy."), "{told}");
    assert_eq!(sub[0].body["messages"][0]["content"][0]["text"], "Look around src");
}

#[test]
fn task_output_waits_for_an_agents_report_and_task_stop_stops_one() {
    let env = Env::new();
    scout(&env);
    let server = serve(
        Scenario::new([
            start_scout("a"),
            reply([call("b", "TaskOutput", json!({"task_id": "agent-1"}))]),
            reply([text("Read it.")]),
        ])
        .with_routed(SCOUT, [slow_report("Scout report: two TODOs.")]),
    );
    env.rein_at(&server)
        .env("ENABLE_TOOL_SEARCH", "false")
        .args(["-p", "send a scout and wait"])
        .assert()
        .success()
        .stdout("Read it.\n");
    let (main, _) = split(&server);
    assert_eq!(main.len(), 3, "no further turn: the report was read already");
    let read = last_message_text(&main[2].body);
    assert!(read.contains("<status>completed</status>") && read.contains("Scout report: two TODOs."), "{read}");

    // Stopped: the agent never reports, the model is told it was stopped.
    let env = Env::new();
    scout(&env);
    let never = Reply { event_delay_ms: 2_000, ..reply([text("too late")]) };
    let server = serve(
        Scenario::new([
            start_scout("a"),
            reply([call("b", "TaskStop", json!({"task_id": "agent-1"}))]),
            reply([text("Stopped it.")]),
        ])
        .with_routed(SCOUT, [never]),
    );
    let started = std::time::Instant::now();
    env.rein_at(&server)
        .env("ENABLE_TOOL_SEARCH", "false")
        .args(["-p", "send a scout, then call it back"])
        .assert()
        .success()
        .stdout("Stopped it.\n");
    let (main, _) = split(&server);
    let stopped = last_message_text(&main[2].body);
    assert!(stopped.contains("agent-1: stopped"), "{stopped}");
    assert!(stopped.contains("agent-1 (lookout: look around) was stopped"), "the model is told: {stopped}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "the stopped agent was not waited for");
}

pub(crate) fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The folder of `env` as a repository: a README and whatever `env` holds already,
/// committed on `main`; its canonical path.
pub(crate) fn committed_repository(env: &Env) -> std::path::PathBuf {
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "user.email", "t@example.com"]);
    git(&root, &["config", "user.name", "T"]);
    std::fs::write(root.join("README.md"), "hello\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "start"]);
    root
}

#[test]
fn an_agent_in_a_worktree_works_there_with_a_shell_of_its_own_and_its_changes_are_kept() {
    let env = Env::new();
    std::fs::create_dir(env.cwd().join("src")).unwrap();
    std::fs::write(env.cwd().join("src/.keep"), "").unwrap();
    let root = committed_repository(&env);
    scout(&env);
    let server = serve(
        Scenario::new([
            // The session's shell moves first: the agent's must not follow it.
            reply([call("c", "Bash", json!({"command": "cd src"}))]),
            reply([call(
                "a",
                "Agent",
                json!({"description": "note", "prompt": "Leave a note", "subagent_type": "scout", "isolation": "worktree"}),
            )]),
            reply([text("The scout left a note.")]),
        ])
        .with_routed(
            SCOUT,
            [
                reply([call("s", "Bash", json!({"command": "pwd"}))]),
                reply([call("w", "Write", json!({"file_path": "note.txt", "content": "seen\n"}))]),
                reply([text("Left note.txt.")]),
            ],
        ),
    );
    let out = env
        .rein_at(&server)
        .args([
            "-p",
            "send a scout to a worktree",
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            "Bash(cd:*)",
            "Bash(pwd)",
        ])
        .env("ENABLE_TOOL_SEARCH", "false")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (main, sub) = split(&server);
    let tree = root.join(".claude/worktrees/agent-1");
    let moved = last_message_text(&main[1].body);
    assert!(!moved.contains("is_error\":true"), "the session's shell moved to src: {moved}");
    let pwd = last_message_text(&sub[1].body);
    assert!(pwd.contains(&tree.display().to_string()), "its commands run in its worktree: {pwd}");
    let report = last_message_text(&main[2].body);
    assert!(report.contains("Left note.txt.") && report.contains("changes are in the worktree"), "{report}");
    assert_eq!(std::fs::read_to_string(tree.join("note.txt")).unwrap(), "seen\n");
    assert!(!root.join("note.txt").exists(), "the main checkout is untouched");
    assert!(git(&root, &["branch", "--list", "worktree-agent-1"]).contains("worktree-agent-1"));
    let task = sub[0].body["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(task.contains(".claude/worktrees/agent-1") && task.ends_with("Leave a note"), "{task}");
}

#[test]
fn a_background_agents_shell_is_its_own_and_headless_waits_no_longer_than_the_deadline() {
    // The agent's `cd` does not move the session's shell (a call decided for one place
    // never runs in another).
    let env = Env::new();
    std::fs::create_dir(env.cwd().join("src")).unwrap();
    scout(&env);
    let server = serve(
        Scenario::new([
            start_scout("a"),
            reply([call("b", "TaskOutput", json!({"task_id": "agent-1"}))]),
            reply([call("c", "Bash", json!({"command": "pwd"}))]),
            reply([text("Still at the top.")]),
        ])
        .with_routed(SCOUT, [reply([call("s", "Bash", json!({"command": "cd src"}))]), reply([text("In src.")])]),
    );
    env.rein_at(&server)
        .env("ENABLE_TOOL_SEARCH", "false")
        .args(["-p", "scout", "--allowedTools", "Bash(cd:*)", "Bash(pwd)"])
        .assert()
        .success()
        .stdout("Still at the top.\n");
    let (main, _) = split(&server);
    let pwd = last_message_text(&main[3].body);
    let root = std::fs::canonicalize(env.cwd()).unwrap().display().to_string();
    assert!(pwd.contains(&format!("{root}\\n")) || pwd.contains(&format!("{root}\"")), "{pwd}");
    assert!(!pwd.contains(&format!("{root}/src")), "{pwd}");

    // An agent that never ends is stopped at the run's deadline; no further turn starts.
    let env = Env::new();
    scout(&env);
    let never = Reply { event_delay_ms: 3_000, ..reply([text("too late")]) };
    let server =
        serve(Scenario::new([start_scout("a"), reply([text("Waiting for the scout.")])]).with_routed(SCOUT, [never]));
    let started = std::time::Instant::now();
    env.rein_at(&server)
        .env("CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS", "300")
        .args(["-p", "scout"])
        .assert()
        .success()
        .stdout("Waiting for the scout.\n");
    assert!(started.elapsed() < std::time::Duration::from_secs(3), "the deadline held");
    assert_eq!(split(&server).0.len(), 2, "no turn after the deadline");
}

#[test]
fn a_background_agents_question_reaches_the_person_with_its_name() {
    let env = Env::new();
    scout(&env);
    let server = serve(Scenario::new([start_scout("a"), reply([text("Sent the scout.")])]).with_routed(
        SCOUT,
        [reply([call("s", "Bash", json!({"command": "touch made.txt"}))]), reply([text("Made it.")])],
    ));
    let pane = crate::tui_pane::Pane::start(&env, &server, &["'send a scout'"]);
    // The session's turn has ended; the agent's question comes after, with its name.
    let screen = pane.wait_for("The background agent lookout (agent-1) asks");
    assert!(screen.contains("touch made.txt"), "{screen}");
    pane.keys(&["1"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while !env.cwd().join("made.txt").exists() {
        assert!(std::time::Instant::now() < deadline, "the approved command ran:\n{}", pane.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn no_more_background_agents_run_at_once_than_the_session_allows() {
    let env = Env::new();
    scout(&env);
    let two = |id: &str| {
        call(
            id,
            "Agent",
            json!({"description": "look", "prompt": "Look", "subagent_type": "scout", "run_in_background": true}),
        )
    };
    let server = serve(
        Scenario::new([reply([two("a"), two("b")]), reply([text("One went.")]), reply([text("The scout is back.")])])
            .with_routed(SCOUT, [slow_report("Back.")]),
    );
    env.rein_at(&server)
        .env("REIN_MAX_BACKGROUND_AGENTS", "1")
        .args(["-p", "send two scouts"])
        .assert()
        .success()
        .stdout("The scout is back.\n");
    let (main, _) = split(&server);
    let results = last_message_text(&main[1].body);
    assert_eq!(results.matches("in the background").count(), 1, "{results}");
    assert_eq!(results.matches("as many as this session allows").count(), 1, "{results}");
}

#[test]
fn in_the_terminal_an_agent_that_ends_while_the_person_waits_reports_at_once() {
    let env = Env::new();
    scout(&env);
    let server = serve(
        Scenario::new([
            start_scout("a"),
            reply([text("Sent the scout.")]),
            reply([text("The scout came back: src is tidy.")]),
        ])
        .with_routed(SCOUT, [slow_report("Scout report: src is tidy.")]),
    );
    let pane = crate::tui_pane::Pane::start(&env, &server, &["'send a scout'"]);
    pane.wait_for("Sent the scout.");
    // Nobody types: the agent's end starts the next turn by itself.
    let screen = pane.wait_for("The scout came back: src is tidy.");
    assert!(screen.contains("⎿  The background agent lookout (agent-1) completed"), "{screen}");
    assert!(!screen.contains("⎿    ⎿"), "one mark before the line:\n{screen}");
    let (main, _) = split(&server);
    let told = last_message_text(&main[2].body);
    assert!(told.contains("Scout report: src is tidy."), "{told}");
}

/// An agent defined with `background: true` (in a file, or by an SDK program's
/// `--agents`) runs in the background when the call does not say; a call that says
/// `run_in_background: false` waits for it.
#[test]
fn an_agent_defined_to_run_in_the_background_does_so_unless_the_call_says_otherwise() {
    for (given, waited) in [(json!(null), false), (json!(false), true)] {
        let env = Env::new();
        let agents = json!({"scout": {"description": "Looks around", "prompt": SCOUT, "background": true}});
        let mut input = json!({"description": "look around", "prompt": "Look around src", "subagent_type": "scout"});
        if !given.is_null() {
            input["run_in_background"] = given.clone();
        }
        let server = serve(
            Scenario::new([
                reply([call("a", "Agent", input)]),
                reply([text("Sent.")]),
                reply([text("The scout came back.")]),
            ])
            .with_routed(SCOUT, [slow_report("Scout report: src is tidy.")]),
        );
        env.rein_at(&server).args(["-p", "send a scout", "--agents", &agents.to_string()]).assert().success();
        let (main, _) = split(&server);
        let result = last_message_text(&main[1].body);
        assert_eq!(result.contains("Scout report: src is tidy."), waited, "run_in_background {given}: {result}");
        assert_eq!(result.contains("in the background"), !waited, "run_in_background {given}: {result}");
    }
}

/// What a subagent's requests cost counts in the session's usage and cost, in the
/// foreground and in the background alike.
#[test]
fn what_subagents_cost_counts_in_the_sessions_result() {
    for background in [false, true] {
        let env = Env::new();
        scout(&env);
        let mut input = json!({"description": "look around", "prompt": "Look around src", "subagent_type": "scout"});
        input["run_in_background"] = json!(background);
        let mut steps = vec![reply([call("a", "Agent", input)]), reply([text("Sent.")])];
        if background {
            steps.push(reply([text("It came back.")]));
        }
        let scout_answer = reply([text("Scout report.")]).usage(rein_protocol::Usage {
            input_tokens: 1000,
            output_tokens: 500,
            ..Default::default()
        });
        let server = serve(Scenario::new(steps).with_routed(SCOUT, [scout_answer]));
        let out = env.rein_at(&server).args(["-p", "send a scout", "--output-format", "json"]).output().unwrap();
        let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let (main, _) = split(&server);
        let own = 5 * main.len() as u64;
        assert_eq!(result["usage"]["output_tokens"], own + 500, "background {background}: {result}");
        assert_eq!(result["num_turns"], main.len(), "every request of the session's, follow-ups too: {result}");
    }
}

/// An Agent SDK session: a background agent that ends while the program waits (stdin
/// open) reports at once, as another turn with its own result; once stdin has closed,
/// the session still waits for it before it ends.
#[test]
fn an_sdk_session_gets_a_background_agents_report_as_another_turn() {
    use std::io::{BufRead, Write};
    let sdk = ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--system-prompt="];
    for keep_open in [true, false] {
        let env = Env::new();
        scout(&env);
        let server = serve(
            Scenario::new([start_scout("a"), reply([text("Sent the scout.")]), reply([text("The scout came back.")])])
                .with_routed(SCOUT, [slow_report("Scout report: src is tidy.")]),
        );
        let mut child = env
            .spawnable_at(&server)
            .args(sdk)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let init = json!({"type": "control_request", "request_id": "i", "request": {"subtype": "initialize"}});
        let user = json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "send a scout"},
                          "parent_tool_use_id": null});
        writeln!(stdin, "{init}\n{user}").unwrap();
        let mut stdin = Some(stdin);
        if !keep_open {
            stdin = None;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut results = Vec::new();
        while results.len() < 2 {
            let line = rx.recv_timeout(std::time::Duration::from_secs(30)).expect("two results");
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["type"] == "result" {
                results.push(v["result"].as_str().unwrap_or_default().to_string());
            }
        }
        drop(stdin);
        assert!(child.wait().unwrap().success());
        assert_eq!(results, ["Sent the scout.", "The scout came back."], "stdin open: {keep_open}");
        let (main, _) = split(&server);
        assert!(last_message_text(&main[2].body).contains("Scout report: src is tidy."));
    }
}
