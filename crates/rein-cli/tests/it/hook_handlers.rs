//! The other hook handlers, through the real binary: `async` command hooks, `http`
//! hooks (a local server here), `prompt` hooks (the fake server judging), PostToolUse
//! `updatedToolOutput`, and hook text too long for the context saved to a file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn settings(env: &Env, hooks: Value) {
    env.write(".claude/settings.json", &json!({"hooks": hooks}).to_string());
}

fn messages(server: &rein_testkit::FakeServer, n: usize) -> Vec<Value> {
    let main: Vec<Value> = server.requests().into_iter().filter(|r| !r.is_judge()).map(|r| r.body).collect();
    main[n]["messages"].as_array().unwrap().clone()
}

/// Each request a test server saw: its head and its body.
type Seen = Arc<Mutex<Vec<(String, String)>>>;

/// A one-route HTTP server: records each request's headers and body, answers `reply`.
fn hook_server(reply: &'static str) -> (u16, Seen) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let mut reader = BufReader::new(conn.try_clone().unwrap());
            let (mut head, mut length) = (String::new(), 0usize);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body = vec![0u8; length];
            let _ = reader.read_exact(&mut body);
            record.lock().unwrap().push((head, String::from_utf8_lossy(&body).into_owned()));
            let mut conn = conn;
            let _ = write!(
                conn,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                reply.len()
            );
        }
    });
    (port, seen)
}

#[test]
fn an_async_hook_never_delays_the_turn() {
    let env = Env::new();
    let log = env.cwd().join("async.log");
    let cmd = format!("echo started >> '{}'; sleep 4; echo finished >> '{}'", log.display(), log.display());
    settings(
        &env,
        json!({"PreToolUse": [{"matcher": "Glob", "hooks": [{"type": "command", "command": cmd, "async": true}]}]}),
    );
    let server = serve(Scenario::new([reply([call("g", "Glob", json!({"pattern": "*"}))]), reply([text("done")])]));
    let started = Instant::now();
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    assert!(started.elapsed() < Duration::from_secs(3), "the turn waited for the async hook");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !std::fs::read_to_string(&log).unwrap_or_default().contains("started") {
        assert!(Instant::now() < deadline, "the async hook never ran");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A hook that answers `{"async": true}` first goes on by itself: the turn does not wait
/// for it (a real plugin's hooks made every session 20-34 s where 6 were needed), and
/// what it prints after is not its decision.
#[test]
fn a_hook_that_answers_async_is_not_waited_for() {
    let env = Env::new();
    let cmd =
        r#"echo '{"async": true, "asyncTimeout": 30000}'; sleep 4; echo '{"decision": "block", "reason": "late"}'"#;
    settings(&env, json!({"PreToolUse": [{"matcher": "Glob", "hooks": [{"type": "command", "command": cmd}]}]}));
    env.write("a.txt", "x");
    let server = serve(Scenario::new([reply([call("g", "Glob", json!({"pattern": "*.txt"}))]), reply([text("done")])]));
    let started = Instant::now();
    env.rein_at(&server).args(["-p", "go", "--allowedTools", "Glob"]).assert().success();
    assert!(started.elapsed() < Duration::from_secs(3), "the turn waited for a hook that answered async");
    let (result, is_error) = tool_result(&messages(&server, 1), "g");
    assert!(!is_error && result.contains("a.txt"), "{result}");
}

#[test]
fn an_http_hook_gets_the_input_and_its_answer_blocks() {
    let answer = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the web hook says no"}}"#;
    let (port, seen) = hook_server(answer);
    let env = Env::new();
    settings(
        &env,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{
        "type": "http", "url": format!("http://127.0.0.1:{port}/hook"),
        "headers": {"Authorization": "Bearer ${HOOK_TOKEN}", "X-Other": "[${NOT_ALLOWED}]"},
        "allowedEnvVars": ["HOOK_TOKEN"]}]}]}),
    );
    let server =
        serve(Scenario::new([reply([call("b", "Bash", json!({"command": "touch x.txt"}))]), reply([text("ok")])]));
    env.rein_at(&server)
        .env("HOOK_TOKEN", "s3cret")
        .env("NOT_ALLOWED", "leak")
        .args(["-p", "go", "--allowedTools", "Bash"])
        .assert()
        .success();
    assert!(!env.cwd().join("x.txt").exists());
    let (result, err) = tool_result(&messages(&server, 1), "b");
    assert!(err && result.contains("the web hook says no"), "{result}");
    let seen = seen.lock().unwrap();
    let (head, body) = &seen[0];
    let body: Value = serde_json::from_str(body).unwrap();
    assert_eq!((body["hook_event_name"].as_str(), body["tool_name"].as_str()), (Some("PreToolUse"), Some("Bash")));
    let head = head.to_ascii_lowercase();
    assert!(head.contains("authorization: bearer s3cret"), "{head}");
    assert!(head.contains("x-other: []"), "a variable not allowed stays out: {head}");
}

#[test]
fn a_prompt_hook_is_judged_by_the_small_model() {
    let env = Env::new();
    settings(&env, json!({"Stop": [{"hooks": [{"type": "prompt", "prompt": "Were the tests run? $ARGUMENTS"}]}]}));
    let server =
        serve(Scenario::new([reply([text("I am done.")]), reply([text("Ran the tests; done.")])]).with_judge([
            reply([text(r#"{"ok": false, "reason": "the tests were not run"}"#)]),
            reply([text(r#"{"ok": true}"#)]),
        ]));
    env.rein_at(&server).args(["-p", "fix it"]).assert().success().stdout("Ran the tests; done.\n");
    let judged: Vec<Value> = server.requests().into_iter().filter(|r| r.is_judge()).map(|r| r.body).collect();
    assert_eq!(judged.len(), 2);
    assert_eq!(judged[0]["model"], "claude-haiku-4-5");
    assert!(judged[0]["messages"].to_string().contains("Were the tests run?"));
    assert!(judged[0]["messages"].to_string().contains("Stop"), "$ARGUMENTS is the hook's input");
    assert!(messages(&server, 1).iter().any(|m| m.to_string().contains("the tests were not run")));
}

#[test]
fn post_tool_use_can_replace_the_result_and_long_hook_text_is_saved_to_a_file() {
    let env = Env::new();
    let replace =
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"REPLACED BY A HOOK"}}'"#;
    let long = "python3 -c \"print('x' * 12000)\"";
    settings(
        &env,
        json!({
            "PostToolUse": [{"matcher": "Glob", "hooks": [{"type": "command", "command": replace}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": long}]}],
        }),
    );
    let server = serve(Scenario::new([reply([call("g", "Glob", json!({"pattern": "*"}))]), reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    let (result, _) = tool_result(&messages(&server, 1), "g");
    assert_eq!(result, "REPLACED BY A HOOK");
    let first = messages(&server, 0)[0].to_string();
    assert!(
        first.contains("12000 characters") || first.contains("12001 characters"),
        "{}",
        &first[..first.len().min(400)]
    );
    assert!(first.len() < 6_000, "the long text is not in the context");
    let path = first.split("whole text is in ").nth(1).unwrap().split(" (read").next().unwrap();
    assert!(std::fs::read_to_string(path).unwrap().trim().len() >= 12_000);
    assert!(path.contains("/tool-results/"), "beside the other saved outputs, which Read opens unasked: {path}");
}

#[test]
fn session_start_hooks_set_the_environment_of_commands_through_claude_env_file() {
    let env = Env::new();
    settings(
        &env,
        json!({"SessionStart": [{"hooks": [{"type": "command",
        "command": "echo 'export GREETING=hello-from-the-env-file' >> \"$CLAUDE_ENV_FILE\""}]}]}),
    );
    let server = serve(Scenario::new([
        reply([call("e", "Bash", json!({"command": "echo $GREETING"}))]),
        reply([call("f", "Bash", json!({"command": "echo still allowed"}))]),
        reply([text("ok")]),
    ]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    let (first, _) = tool_result(&messages(&server, 1), "e");
    assert!(first.contains("hello-from-the-env-file"), "{first}");
    let (second, err) = tool_result(&messages(&server, 2), "f");
    assert!(!err && second.contains("still allowed"), "the env file is not a command's change: {second}");
}
