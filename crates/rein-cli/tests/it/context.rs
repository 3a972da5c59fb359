//! Context management through the real binary: autocompact and reactive compaction.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, json_lines, serve};
use rein_testkit::{Scenario, Step, check_pairing, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn has_tools(body: &Value) -> bool {
    body["tools"].as_array().is_some_and(|t| !t.is_empty())
}

#[test]
fn a_long_session_is_compacted_before_it_overflows() {
    let env = Env::new();
    env.write("notes.md", "REMEMBER-THIS-LINE\n");
    let turn = |i: usize| reply([call(&format!("t{i}"), "Bash", json!({"command": "seq 1 2500"}))]);
    let mut steps: Vec<Step> =
        vec![reply([call("r", "Read", json!({"file_path": env.cwd().join("notes.md")}))]).into()];
    steps.extend((0..6).map(|i| Step::from(turn(i))));
    steps.push(reply([text("finished")]).into());
    let server = serve(Scenario::new(steps).with_summary("SUMMARY: the user asked for six listings; all ran."));
    let out = env
        .rein_at(&server)
        .env("REIN_CONTEXT_WINDOW", "12000")
        .args(["-p", "list numbers six times", "--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = json_lines(&out.stdout);
    assert!(lines.iter().any(|l| l["subtype"] == "compact_boundary"), "no compaction reported");
    assert_eq!(lines.last().unwrap()["result"], "finished");
    let reqs = server.requests();
    let summaries: Vec<usize> = reqs.iter().enumerate().filter(|(_, r)| !has_tools(&r.body)).map(|(i, _)| i).collect();
    assert!(!summaries.is_empty());
    let after = &reqs[summaries[0] + 1].body["messages"];
    let summary = after[0]["content"][0]["text"].as_str().unwrap();
    assert!(summary.contains("SUMMARY: the user asked"), "{after}");
    assert!(
        summary.contains("recently-read-file") && summary.contains("REMEMBER-THIS-LINE"),
        "read files are re-attached: {summary}"
    );
    for (i, r) in reqs.iter().enumerate() {
        let msgs = r.body["messages"].as_array().unwrap();
        assert!(check_pairing(msgs).is_ok(), "request {i}: {:?}", check_pairing(msgs));
        if has_tools(&r.body) {
            let tokens = r.body.to_string().len() / 4;
            assert!(tokens < 12_000, "request {i} is {tokens} tokens, over the window");
        }
    }
    // The transcript has the boundary, and resuming starts after it.
    let server2 = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server2).args(["-p", "and now?", "--continue"]).assert().success();
    let first = server2.requests()[0].body["messages"][0]["content"][0]["text"].as_str().unwrap().to_string();
    assert!(first.contains("SUMMARY"), "{first}");
}

#[test]
fn prompt_too_long_compacts_once_and_tries_again() {
    let env = Env::new();
    let server = serve(
        Scenario::new([
            reply([text("earlier answer")]).into(),
            Step::api_error(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"),
            reply([text("after compaction")]).into(),
        ])
        .with_summary("SUMMARY of the earlier work"),
    );
    env.rein_at(&server).args(["-p", "first"]).assert().success();
    let server2 = serve(
        Scenario::new([
            Step::api_error(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"),
            reply([text("after compaction")]).into(),
        ])
        .with_summary("SUMMARY of the earlier work"),
    );
    let out = env.rein_at(&server2).args(["-p", "second", "--continue"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "after compaction\n");
    let reqs = server2.requests();
    assert_eq!(reqs.len(), 3, "the failed request, the summary, the request again");
    assert!(!has_tools(&reqs[1].body));
    let again = reqs[2].body["messages"].as_array().unwrap();
    assert_eq!(again.len(), 1, "history replaced by the summary with the prompt");
    assert!(again[0].to_string().contains("SUMMARY of the earlier work") && again[0].to_string().contains("second"));

    // If it is still too long after one compaction, a clear error.
    let server3 = serve(
        Scenario::new([
            Step::api_error(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"),
            Step::api_error(400, "invalid_request_error", "prompt is too long: 240000 tokens > 200000 maximum"),
        ])
        .with_summary("S"),
    );
    let out = env.rein_at(&server3).args(["-p", "third", "--continue"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("prompt is too long"));
}
