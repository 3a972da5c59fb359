//! Failure injection: random responses — safe and unsafe tools, tool errors, panics,
//! timeouts, a stream dropped at a random event, an interrupt at a random moment — and
//! after each run: every request the server received keeps the pairing invariant, no
//! orphan tool_result exists, the final conversation is valid, and no child survives.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use proptest::prelude::*;
use rein_engine::{Engine, Gate};
use rein_policy::Policy;
use rein_protocol::Message;
use rein_testkit::{FakeServer, Reply, Scenario, Step, check_pairing, reply, text, tool_use_with_id};
use rein_tools::{Registry, ToolContext, register_builtins};
use serde_json::{Value, json};

/// The calls a random response may make.
fn a_call(id: String, kind: u8) -> rein_protocol::ContentBlock {
    let (name, input) = match kind % 9 {
        0 => ("Glob", json!({"pattern": "*"})),
        1 => ("Bash", json!({"command": "ls"})),
        2 => ("Bash", json!({"command": "echo unsafe > out.txt"})),
        3 => ("Bash", json!({"command": "ls /definitely/missing"})),
        4 => ("Explode", json!({})),
        5 => ("Fail", json!({})),
        6 => ("Bash", json!({"command": "sleep 5", "timeout": 50})),
        7 => ("Bash", json!({"command": "sleep 0.2; cat out.txt"})),
        _ => ("NoSuchTool", json!({"x": 1})),
    };
    tool_use_with_id(&id, name, input)
}

fn response() -> impl Strategy<Value = (Vec<u8>, bool, Option<usize>)> {
    (proptest::collection::vec(any::<u8>(), 0..5), any::<bool>(), proptest::option::weighted(0.2, 0usize..30))
}

async fn one_case(responses: Vec<(Vec<u8>, bool, Option<usize>)>, interrupt_ms: Option<u64>) -> Result<(), String> {
    let mut steps: Vec<Step> = Vec::new();
    for (r, (kinds, lie, drop)) in responses.iter().enumerate() {
        let mut blocks = vec![text("working")];
        blocks.extend(kinds.iter().enumerate().map(|(c, k)| a_call(format!("t{r}_{c}"), *k)));
        let mut reply: Reply = reply(blocks);
        if *lie {
            reply = reply.stop_reason("end_turn");
        }
        if let Some(d) = drop {
            reply = reply.drop_after_events(*d);
        }
        steps.push(reply.into());
    }
    steps.push(reply([text("finished")]).into());
    let server = FakeServer::start(Scenario::new(steps)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let mut registry = Registry::new();
    register_builtins(&mut registry).unwrap();
    registry.register(common::Explode).unwrap();
    registry.register(common::Fail).unwrap();
    let client = common::client(&server.url());
    let ctx = ToolContext::new(root.clone(), root.clone());
    if let Some(ms) = interrupt_ms {
        let abort = ctx.abort.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            abort.cancel();
        });
    }
    let config = common::config(Some(10), 4);
    let mut engine =
        Engine::new(Arc::new(client), Arc::new(registry), Gate::new(Arc::new(Policy::allow_all(root))), ctx, config);
    engine.run(Message::user_text("go"), &mut |_| {}).await;
    for (n, req) in server.requests().iter().enumerate() {
        check_pairing(req.body["messages"].as_array().unwrap()).map_err(|e| format!("request {n}: {e}"))?;
    }
    let history: Vec<Value> = engine.conversation().messages().map(|m| serde_json::to_value(m).unwrap()).collect();
    check_pairing(&history).map_err(|e| format!("final conversation: {e}"))?;
    drop(engine);
    for _ in 0..50 {
        if rein_tools::live_process_groups() == 0 {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err(format!("{} process groups survived", rein_tools::live_process_groups()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn pairing_holds_and_nothing_survives_whatever_fails(
        responses in proptest::collection::vec(response(), 1..4),
        interrupt in proptest::option::weighted(0.3, 0u64..400),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let outcome = rt.block_on(one_case(responses, interrupt));
        prop_assert!(outcome.is_ok(), "{}", outcome.unwrap_err());
    }
}
