//! The loop against the fake server, through the real Anthropic client.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use rein_engine::{Answer, Approver, End, Engine, EngineEvent, Gate, Outcome};
use rein_policy::{Policy, PolicyInputs};
use rein_protocol::Message;
use rein_settings::Settings;
use rein_testkit::{FakeServer, Scenario, Step, reply, text, thinking, tool_use_with_id};
use rein_tools::{Registry, ToolContext, register_builtins};
use serde_json::{Value, json};

struct Run {
    server: FakeServer,
    outcome: Outcome,
    events: Vec<EngineEvent>,
    _dir: tempfile::TempDir,
}

async fn run(scenario: Scenario, max_turns: Option<u32>) -> Run {
    run_with(scenario, max_turns, None, None).await
}

/// Run with `settings` (a JSON settings object) as the project's policy, and an approver.
async fn run_with(
    scenario: Scenario,
    max_turns: Option<u32>,
    settings: Option<Value>,
    approver: Option<Arc<dyn Approver>>,
) -> Run {
    let server = FakeServer::start(scenario).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hello\n").unwrap();
    let mut registry = Registry::new();
    register_builtins(&mut registry).unwrap();
    registry.register(common::Explode).unwrap();
    registry.register(common::Undeclared).unwrap();
    registry.register(common::Fail).unwrap();
    let client = common::client(&server.url());
    let ctx = ToolContext::new(dir.path().to_path_buf(), dir.path().to_path_buf());
    let config = common::config(max_turns, 10);
    let policy = match settings {
        None => Policy::allow_all(dir.path().to_path_buf()),
        Some(v) => {
            let json = v.to_string();
            let settings = Settings::load(&rein_settings::Locations {
                cwd: dir.path().to_path_buf(),
                local_root: dir.path().to_path_buf(),
                cli: Some(json),
                ..Default::default()
            })
            .unwrap();
            let tools = registry.rule_kinds();
            Policy::new(&PolicyInputs { settings, cwd: dir.path().to_path_buf(), tools, ..Default::default() }).unwrap()
        }
    };
    let mut gate = Gate::new(Arc::new(policy));
    gate.approver = approver;
    let mut engine = Engine::new(Arc::new(client), Arc::new(registry), gate, ctx, config);
    let mut events = Vec::new();
    let outcome = engine.run(Message::user_text("go"), &mut |e| events.push(e)).await;
    Run { server, outcome, events, _dir: dir }
}

/// The `messages` of request `n`.
fn messages(r: &Run, n: usize) -> Vec<Value> {
    r.server.requests()[n].body["messages"].as_array().unwrap().clone()
}

/// The tool_result blocks of the last message of request `n`.
fn results(r: &Run, n: usize) -> Vec<Value> {
    let m = messages(r, n);
    let last = m.last().unwrap();
    assert_eq!(last["role"], "user");
    last["content"].as_array().unwrap().clone()
}

#[tokio::test]
/// Seed experiment D1: the loop must not trust `stop_reason`.
async fn seed_d1_a_tool_use_runs_even_when_stop_reason_says_end_turn() {
    let r = run(
        Scenario::new([
            reply([text("Looking."), tool_use_with_id("t1", "Glob", json!({"pattern": "*.txt"}))])
                .stop_reason("end_turn"),
            reply([text("Found hello.txt.")]),
        ]),
        None,
    )
    .await;
    assert_eq!(r.outcome.end, End::Completed);
    assert_eq!(r.server.requests().len(), 2, "the tool_use must lead to a second request");
    let res = results(&r, 1);
    assert_eq!(res[0]["tool_use_id"], "t1");
    assert!(res[0]["content"].as_str().unwrap().ends_with("hello.txt"), "{res:?}");
    assert_eq!(r.outcome.result_text, "Found hello.txt.");
    assert_eq!(r.outcome.num_turns, 2);
}

#[tokio::test]
async fn stop_reason_tool_use_without_a_tool_use_block_ends_the_turn() {
    let r = run(
        Scenario::new([reply([text("I would use a tool.")]).stop_reason("tool_use"), reply([text("never")])]),
        None,
    )
    .await;
    assert_eq!(r.outcome.end, End::Completed);
    assert_eq!(r.server.requests().len(), 1);
    assert_eq!(r.outcome.result_text, "I would use a tool.");
}

#[tokio::test]
async fn max_turns_stops_after_answering_the_last_calls() {
    let glob = || reply([tool_use_with_id("t", "Glob", json!({"pattern": "*"}))]);
    let r = run(Scenario::new([glob(), glob(), glob()]), Some(2)).await;
    assert_eq!(r.outcome.end, End::MaxTurns);
    assert_eq!(r.server.requests().len(), 2);
    assert_eq!(r.outcome.num_turns, 2);
}

#[tokio::test]
/// Seed experiment D3: the pairing protection holds whatever the tool does.
async fn seed_d3_failing_panicking_unknown_and_malformed_calls_are_all_answered_in_order() {
    let r = run(
        Scenario::new([
            reply([
                tool_use_with_id("a", "Explode", json!({})),
                tool_use_with_id("b", "Fail", json!({})),
                tool_use_with_id("c", "NoSuchTool", json!({})),
                tool_use_with_id("d", "Glob", json!({"pattern": 42})),
                tool_use_with_id("e", "Grep", json!({"pattern": "unclosed("})),
                tool_use_with_id("f", "Glob", json!({"pattern": "*.txt"})),
            ]),
            reply([text("recovered")]),
        ]),
        None,
    )
    .await;
    assert_eq!(r.outcome.end, End::Completed);
    let res = results(&r, 1);
    let ids: Vec<_> = res.iter().map(|b| b["tool_use_id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);
    let content = |i: usize| res[i]["content"].as_str().unwrap().to_string();
    for (i, r) in res.iter().enumerate().take(5) {
        assert_eq!(r["is_error"], json!(true), "{}", content(i));
    }
    assert!(content(0).contains("crashed: boom inside the tool"), "{}", content(0));
    assert_eq!(content(1), "Error: disk on fire");
    assert_eq!(content(2), "No such tool available: NoSuchTool");
    assert!(content(3).contains("`pattern`") && content(3).contains("string"), "{}", content(3));
    assert!(content(4).contains("Grep refused this input") && content(4).contains("regex"), "{}", content(4));
    assert!(res[5].get("is_error").is_none());
}

#[tokio::test]
async fn thinking_blocks_go_back_unchanged() {
    let r = run(
        Scenario::new([
            reply([
                thinking("I should list files", "sig-abc=="),
                tool_use_with_id("t", "Glob", json!({"pattern": "*"})),
            ]),
            reply([text("ok")]),
        ]),
        None,
    )
    .await;
    let m = messages(&r, 1);
    assert_eq!(m[1]["role"], "assistant");
    assert_eq!(m[1]["content"][0], json!({"type":"thinking","thinking":"I should list files","signature":"sig-abc=="}));
}

#[tokio::test]
async fn a_failed_request_keeps_the_partial_text() {
    let r = run(
        Scenario::new([
            reply([text("first answer"), tool_use_with_id("t", "Glob", json!({"pattern": "*"}))]),
            reply([text("the second answer was cut short")]).drop_after_events(4),
        ]),
        None,
    )
    .await;
    let End::Failed(msg) = &r.outcome.end else { panic!("{:?}", r.outcome.end) };
    assert!(!msg.to_string().contains('\n'), "one line: {msg}");
    assert!(!r.outcome.result_text.is_empty());
    let last_assistant = r
        .events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::Assistant(m) => Some(m),
            _ => None,
        })
        .next_back()
        .unwrap();
    assert!(last_assistant.to_message().text().starts_with("the second"), "{last_assistant:?}");
}

#[tokio::test]
async fn api_errors_end_the_run_with_one_line() {
    let r = run(Scenario::new([Step::api_error(400, "invalid_request_error", "messages: bad")]), None).await;
    let End::Failed(rein_engine::EngineError::Model(e)) = &r.outcome.end else { panic!("{:?}", r.outcome.end) };
    assert_eq!(e.to_string(), "API error 400 invalid_request_error: messages: bad");
    assert!(matches!(e, rein_model::ModelError::Api { status: Some(400), .. }), "the error stays typed: {e:?}");
}

#[tokio::test]
async fn a_denied_call_is_answered_recorded_and_never_runs() {
    let r = run_with(
        Scenario::new([
            reply([tool_use_with_id("b", "Bash", json!({"command": "touch made-by-bash"}))]),
            reply([text("ok")]),
        ]),
        None,
        Some(json!({"permissions": {"deny": ["Bash(touch:*)"]}})),
        None,
    )
    .await;
    let res = results(&r, 1);
    assert_eq!(res[0]["is_error"], json!(true));
    assert!(res[0]["content"].as_str().unwrap().contains("denied by rule `Bash(touch:*)`"), "{res:?}");
    assert!(!r._dir.path().join("made-by-bash").exists());
    assert_eq!(r.outcome.permission_denials.len(), 1);
    let audited = r.events.iter().any(|e| matches!(e, EngineEvent::Permission { verdict, .. } if !verdict.allowed()));
    assert!(audited, "the denial reaches the audit events");
}

#[tokio::test]
async fn the_chain_checks_schema_and_validation_before_permission() {
    // Bash is denied outright, yet malformed input is reported as such: cheap checks first.
    let r = run_with(
        Scenario::new([
            reply([
                tool_use_with_id("s", "Bash", json!({"command": 5})),
                tool_use_with_id("v", "Grep", json!({"pattern": "(("})),
                tool_use_with_id("d", "Bash", json!({"command": "ls"})),
            ]),
            reply([text("ok")]),
        ]),
        None,
        Some(json!({"permissions": {"deny": ["Bash(ls:*)", "Grep"]}})),
        None,
    )
    .await;
    let res = results(&r, 1);
    assert!(res[0]["content"].as_str().unwrap().starts_with("InputValidationError"), "{res:?}");
    assert!(res[1]["content"].as_str().unwrap().contains("refused this input"), "{res:?}");
    assert!(res[2]["content"].as_str().unwrap().contains("denied"), "{res:?}");
    // A bare deny removes the tool from the list the model sees.
    let reqs = r.server.requests();
    let tools: Vec<&str> =
        reqs[0].body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(!tools.contains(&"Grep") && tools.contains(&"Bash"), "{tools:?}");
}

struct Yes;
impl Approver for Yes {
    fn approve<'a>(&'a self, _: rein_engine::PermissionQuestion<'a>) -> futures::future::BoxFuture<'a, Answer> {
        Box::pin(async { Answer::yes() })
    }
}

#[tokio::test]
async fn questions_go_to_the_approver_and_headless_means_no() {
    let scenario = || {
        Scenario::new([
            reply([
                tool_use_with_id("w", "Write", json!({"file_path": "/dev/null/never", "content": "x"})),
                tool_use_with_id("b", "Bash", json!({"command": "touch asked"})),
            ]),
            reply([text("ok")]),
        ])
    };
    let settings = json!({"permissions": {"ask": ["Bash(touch:*)"]}});
    let headless = run_with(scenario(), None, Some(settings.clone()), None).await;
    let res = results(&headless, 1);
    assert!(res[1]["content"].as_str().unwrap().contains("has not granted"), "{res:?}");
    assert!(!headless._dir.path().join("asked").exists());
    let approved = run_with(scenario(), None, Some(settings), Some(Arc::new(Yes))).await;
    assert!(approved._dir.path().join("asked").exists(), "{:?}", results(&approved, 1));
}

/// Counts the questions it is asked and says yes to all.
struct CountingYes(std::sync::atomic::AtomicUsize);
impl Approver for CountingYes {
    fn approve<'a>(&'a self, _: rein_engine::PermissionQuestion<'a>) -> futures::future::BoxFuture<'a, Answer> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Answer::yes() })
    }
}

/// Seed experiment D4: the human's approval comes after the deny list, never before it.
#[tokio::test]
async fn seed_d4_an_approver_that_says_yes_cannot_open_a_deny() {
    let yes = Arc::new(CountingYes(std::sync::atomic::AtomicUsize::new(0)));
    let r = run_with(
        Scenario::new([
            reply([
                tool_use_with_id("d", "Bash", json!({"command": "touch denied-file"})),
                tool_use_with_id("a", "Bash", json!({"command": "touch asked-file"})),
            ]),
            reply([text("ok")]),
        ]),
        None,
        Some(json!({"permissions": {"deny": ["Bash(touch denied-file)"]}})),
        Some(yes.clone()),
    )
    .await;
    let res = results(&r, 1);
    assert!(res[0]["content"].as_str().unwrap().contains("denied by rule"), "{res:?}");
    assert!(!r._dir.path().join("denied-file").exists());
    assert!(r._dir.path().join("asked-file").exists(), "the approver answers questions the deny list left open");
    assert_eq!(yes.0.load(std::sync::atomic::Ordering::SeqCst), 1, "the denied call never reached the approver");
}

/// Invariant 6: a tool that declares nothing is treated as writing everything — asked in
/// every mode (bypassPermissions and acceptEdits included), never allowed on its own.
#[tokio::test]
async fn a_tool_that_declares_no_effects_is_asked_never_allowed() {
    let scenario = || {
        Scenario::new([
            reply([tool_use_with_id("u", "Undeclared", json!({"name": "forgotten.txt"}))]),
            reply([text("ok")]),
        ])
    };
    for settings in [None, Some(json!({"permissions": {"defaultMode": "acceptEdits"}}))] {
        let r = run_with(scenario(), None, settings.clone(), None).await;
        let res = results(&r, 1);
        assert_eq!(res[0]["is_error"], json!(true), "{settings:?}");
        assert!(res[0]["content"].as_str().unwrap().contains("does not declare"), "{res:?}");
        assert!(!r._dir.path().join("forgotten.txt").exists(), "{settings:?}");
        assert_eq!(r.outcome.permission_denials.len(), 1);
    }
    // It is a question, not a denial: a person who says yes lets it run.
    let yes = Arc::new(CountingYes(std::sync::atomic::AtomicUsize::new(0)));
    let r = run_with(scenario(), None, Some(json!({})), Some(yes.clone())).await;
    assert!(r._dir.path().join("forgotten.txt").exists());
    assert_eq!(yes.0.load(std::sync::atomic::Ordering::SeqCst), 1);
}

/// An answer that remembers a rule: the next call it covers is not asked again.
struct Remembering(std::sync::atomic::AtomicUsize);
impl Approver for Remembering {
    fn approve<'a>(&'a self, _: rein_engine::PermissionQuestion<'a>) -> futures::future::BoxFuture<'a, Answer> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Box::pin(async { Answer { remember: vec!["Bash(touch:*)".into()], ..Answer::yes() } })
    }
}

/// A refusal with a message: the model reads what to do instead.
struct NoWithMessage;
impl Approver for NoWithMessage {
    fn approve<'a>(&'a self, _: rein_engine::PermissionQuestion<'a>) -> futures::future::BoxFuture<'a, Answer> {
        Box::pin(async { Answer { message: Some("use the Write tool".into()), ..Answer::no() } })
    }
}

#[tokio::test]
async fn an_answer_can_remember_a_rule_and_carry_a_message() {
    let scenario = || {
        Scenario::new([
            reply([tool_use_with_id("a", "Bash", json!({"command": "touch one"}))]),
            reply([tool_use_with_id("b", "Bash", json!({"command": "touch two"}))]),
            reply([text("ok")]),
        ])
    };
    let remembering = Arc::new(Remembering(std::sync::atomic::AtomicUsize::new(0)));
    let r = run_with(scenario(), None, Some(json!({})), Some(remembering.clone())).await;
    assert!(r._dir.path().join("one").exists() && r._dir.path().join("two").exists());
    assert_eq!(remembering.0.load(std::sync::atomic::Ordering::SeqCst), 1, "the second call was not asked");
    let refused = run_with(scenario(), None, Some(json!({})), Some(Arc::new(NoWithMessage))).await;
    let res = results(&refused, 1);
    assert!(res[0]["content"].as_str().unwrap().contains("use the Write tool"), "{res:?}");
}
