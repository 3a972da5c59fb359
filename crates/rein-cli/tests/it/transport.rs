//! The end of a response is `message_stop`, not the end of the HTTP body: against a
//! server that writes its chunked terminator late, every next turn starts before the
//! previous body has ended.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

#[test]
fn the_next_turn_starts_at_message_stop_not_at_the_late_end_of_the_body() {
    let env = Env::new();
    let held = 3_000;
    let server = serve(Scenario::new([
        reply([tool_use_with_id("g1", "Glob", json!({"pattern": "*"}))]).end_body_after_ms(held),
        reply([tool_use_with_id("g2", "Glob", json!({"pattern": "*.rs"}))]).end_body_after_ms(held),
        reply([text("done")]).end_body_after_ms(held),
    ]));
    env.rein_at(&server).args(["-p", "look around"]).assert().success().stdout("done\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    for (n, pair) in reqs.windows(2).enumerate() {
        let sent = pair[0].response_done_at.unwrap();
        let next = pair[1].received_at;
        assert!(next >= sent);
        // Either the body was still open when the next request came, or rein let go of it.
        if let Some(ended) = pair[0].body_ended_at {
            assert!(next < ended, "turn {n}: the next request waited for the body's end");
        }
    }
}
