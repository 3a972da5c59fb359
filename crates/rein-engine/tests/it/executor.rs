//! The streaming executor: batching, streaming starts, sibling abort, interrupts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rein_engine::{End, Engine, EngineEvent, Gate, Outcome};
use rein_policy::Policy;
use rein_protocol::Message;
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id as call};
use rein_tools::{Effects, Registry, Tool, ToolContext, ToolError, ToolOutput, register_builtins};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Shared observations of the probe tools.
#[derive(Default)]
struct Probe {
    running: AtomicUsize,
    max_running: AtomicUsize,
    starts: Mutex<Vec<(String, Instant)>>,
}

#[derive(Deserialize, JsonSchema)]
struct ProbeInput {
    /// Label recorded at start.
    label: String,
    /// Milliseconds to take.
    ms: u64,
    /// Whether the call may run beside others.
    safe: bool,
}

struct ProbeTool(Arc<Probe>);

impl Tool for ProbeTool {
    type Input = ProbeInput;
    fn name(&self) -> &'static str {
        "Probe"
    }
    fn description(&self) -> String {
        "records concurrency".into()
    }
    fn effects(&self, i: &ProbeInput, _: &ToolContext) -> Effects {
        Effects::session_only(i.safe)
    }
    async fn call(&self, input: ProbeInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let now = self.0.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.0.max_running.fetch_max(now, Ordering::SeqCst);
        self.0.starts.lock().unwrap().push((input.label.clone(), Instant::now()));
        let stopped = tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(input.ms)) => false,
            _ = ctx.abort.cancelled() => true,
        };
        self.0.running.fetch_sub(1, Ordering::SeqCst);
        if stopped {
            return Err(ToolError::new(format!("{} stopped early", input.label)));
        }
        Ok(ToolOutput::text(format!("{} done", input.label)))
    }
}

struct Run {
    server: FakeServer,
    outcome: Outcome,
    events: Vec<(Instant, EngineEvent)>,
    probe: Arc<Probe>,
    _dir: tempfile::TempDir,
}

async fn run(scenario: Scenario, cap: usize, interrupt_after: Option<Duration>) -> Run {
    let server = FakeServer::start(scenario).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let probe = Arc::new(Probe::default());
    let mut registry = Registry::new();
    register_builtins(&mut registry).unwrap();
    registry.register(ProbeTool(probe.clone())).unwrap();
    let client = common::client(&server.url());
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ctx = ToolContext::new(root.clone(), root.clone());
    if let Some(after) = interrupt_after {
        let abort = ctx.abort.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            abort.cancel();
        });
    }
    let config = common::config(None, cap);
    let gate = Gate::new(Arc::new(Policy::allow_all(root)));
    let mut engine = Engine::new(Arc::new(client), Arc::new(registry), gate, ctx, config);
    let mut events = Vec::new();
    let outcome = engine.run(Message::user_text("go"), &mut |e| events.push((Instant::now(), e))).await;
    Run { server, outcome, events, probe, _dir: dir }
}

/// A reply whose tool inputs arrive in one fragment, so that event 5 is the first
/// block's `content_block_stop` (0 message_start, 1 ping, 2 start, 3 "", 4 input).
fn one_chunk(blocks: Vec<rein_protocol::ContentBlock>) -> rein_testkit::Reply {
    let mut r = reply(blocks);
    r.json_chunk = Some(10_000);
    r
}

fn probe(id: &str, ms: u64, safe: bool) -> rein_protocol::ContentBlock {
    call(id, "Probe", json!({"label": id, "ms": ms, "safe": safe}))
}

fn results(r: &Run) -> Vec<Value> {
    let reqs = r.server.requests();
    let m = reqs.last().unwrap().body["messages"].as_array().unwrap().clone();
    m.last().unwrap()["content"].as_array().unwrap().clone()
}

#[tokio::test]
async fn safe_calls_run_together_unsafe_ones_alone_and_results_keep_call_order() {
    let r = run(
        Scenario::new([
            reply([
                probe("a", 200, true),
                probe("b", 200, true),
                probe("c", 200, true),
                probe("x", 50, false),
                probe("d", 10, true),
            ]),
            reply([text("ok")]),
        ]),
        10,
        None,
    )
    .await;
    assert_eq!(r.outcome.end, End::Completed);
    let ids: Vec<String> = results(&r).iter().map(|b| b["tool_use_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["a", "b", "c", "x", "d"]);
    assert_eq!(r.probe.max_running.load(Ordering::SeqCst), 3, "a, b and c together; x alone");
    let starts = r.probe.starts.lock().unwrap().clone();
    let at = |l: &str| starts.iter().find(|(x, _)| x == l).unwrap().1;
    assert!(at("x") >= at("c") + Duration::from_millis(150), "the unsafe call waits for the batch");
    assert!(at("d") >= at("x") + Duration::from_millis(40), "and holds the queue behind it");
}

#[tokio::test]
async fn the_cap_bounds_a_concurrent_batch() {
    let calls: Vec<_> = (0..5).map(|i| probe(&format!("p{i}"), 100, true)).collect();
    let r = run(Scenario::new([reply(calls), reply([text("ok")])]), 2, None).await;
    assert_eq!(r.probe.max_running.load(Ordering::SeqCst), 2);
    assert_eq!(results(&r).len(), 5);
}

#[tokio::test]
async fn a_tool_starts_while_the_model_is_still_streaming() {
    // After the tool_use block the stream pauses for 400 ms before it goes on.
    let r = run(
        Scenario::new([
            one_chunk(vec![probe("early", 50, false), text("and some more text after the call")])
                .pause_after_event(5, 400),
            reply([text("ok")]),
        ]),
        10,
        None,
    )
    .await;
    let complete = r
        .events
        .iter()
        .find(|(_, e)| matches!(e, EngineEvent::Stream(rein_engine::StreamDelta::BlockDone { index: 0, .. })))
        .unwrap()
        .0;
    let started = r.events.iter().find(|(_, e)| matches!(e, EngineEvent::ToolStarted(_))).unwrap().0;
    let finished_tool = r.probe.starts.lock().unwrap()[0].1 + Duration::from_millis(50);
    let done = r.events.iter().find(|(_, e)| matches!(e, EngineEvent::Assistant(_))).unwrap().0;
    assert!(
        started.duration_since(complete) < Duration::from_millis(50),
        "started {:?} after its block",
        started.duration_since(complete)
    );
    assert!(finished_tool < done, "the tool finished before the message did");
}

#[tokio::test]
async fn a_failing_bash_call_cancels_its_running_siblings() {
    let started = Instant::now();
    let r = run(
        Scenario::new([
            reply([
                call("slow", "Bash", json!({"command": "sleep 20"})),
                call("bad", "Bash", json!({"command": "ls /definitely/not/here"})),
                probe("after", 10, false),
            ]),
            reply([text("ok")]),
        ]),
        10,
        None,
    )
    .await;
    assert_eq!(r.outcome.end, End::Completed);
    let res = results(&r);
    // Stopped at once (the `sleep 20` did not run out), and the model is told it was
    // stopped: as the failed sibling's casualty, or, when the shell's own answer to the
    // stop arrives first on a loaded machine, as interrupted.
    let slow = res[0]["content"].as_str().unwrap();
    assert!(slow.contains("the parallel Bash call bad failed") || slow.contains("Interrupted"), "{res:?}");
    assert_eq!(res[0]["is_error"], true);
    assert!(started.elapsed() < Duration::from_secs(10), "the slow sibling ran on");
    assert_eq!(res[1]["is_error"], true);
    assert_eq!(res[2]["content"], "after done", "the turn goes on");
    assert_eq!(rein_tools::live_process_groups(), 0);
}

#[tokio::test]
async fn an_interrupt_answers_every_call_and_stops() {
    let r = run(
        Scenario::new([
            reply([probe("a", 5_000, true), probe("b", 5_000, true), probe("c", 10, false)]),
            reply([text("never")]),
        ]),
        10,
        Some(Duration::from_millis(300)),
    )
    .await;
    assert_eq!(r.outcome.end, End::Interrupted);
    assert_eq!(r.server.requests().len(), 1);
    let last = r
        .events
        .iter()
        .rev()
        .find_map(|(_, e)| if let EngineEvent::ToolResults(m) = e { Some(m.clone()) } else { None })
        .unwrap();
    let ids: Vec<&str> = last.content.iter().map(|b| b.tool_result_id().unwrap()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    for b in &last.content {
        let text = serde_json::to_string(b).unwrap();
        assert!(text.contains("\"is_error\":true"), "{b:?}");
        assert!(text.contains("Interrupted by user") || text.contains("stopped early"), "{b:?}");
    }
}

#[tokio::test]
async fn an_interrupt_mid_stream_answers_the_calls_received_so_far() {
    let r = run(
        Scenario::new([
            one_chunk(vec![probe("first", 5_000, false), text("a long pause follows")]).pause_after_event(5, 3_000),
            reply([text("never")]),
        ]),
        10,
        Some(Duration::from_millis(300)),
    )
    .await;
    assert_eq!(r.outcome.end, End::Interrupted);
    let assistant = r
        .events
        .iter()
        .rev()
        .find_map(|(_, e)| if let EngineEvent::Assistant(m) = e { Some(m.clone()) } else { None })
        .unwrap();
    assert!(assistant.content.iter().any(|b| b.as_tool_use().is_some_and(|t| t.id == "first")));
    let last = r
        .events
        .iter()
        .rev()
        .find_map(|(_, e)| if let EngineEvent::ToolResults(m) = e { Some(m.clone()) } else { None })
        .unwrap();
    assert_eq!(last.content[0].tool_result_id(), Some("first"));
}

#[tokio::test]
async fn a_broken_stream_cancels_and_discards_what_it_started() {
    let r = run(
        Scenario::new([reply([
            call("t", "Bash", json!({"command": "sleep 1; touch late-file"})),
            text("more text to come"),
        ])
        .drop_after_events(7)]),
        10,
        None,
    )
    .await;
    assert!(matches!(r.outcome.end, End::Failed(_)), "{:?}", r.outcome.end);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!r._dir.path().join("late-file").exists(), "the call started from the broken stream was cancelled");
    assert!(!r.events.iter().any(|(_, e)| matches!(e, EngineEvent::ToolResults(_))), "its results were discarded");
}
