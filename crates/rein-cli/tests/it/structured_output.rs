//! `--json-schema`: the model answers through the StructuredOutput tool (its input
//! checked against the schema), the result carries `structured_output`, and a model
//! that ends without calling it is reminded, then the run fails with Claude Code's
//! subtype.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, json_lines, serve, tool_result};
use rein_testkit::{Scenario, Step, reply, text, tool_use_with_id};
use serde_json::json;

const SCHEMA: &str = r#"{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"],"additionalProperties":false}"#;

#[test]
fn the_answer_arrives_as_structured_output_after_a_schema_mismatch_is_refused() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([tool_use_with_id("s1", "StructuredOutput", json!({"answer": "forty-two"}))]),
        reply([tool_use_with_id("s2", "StructuredOutput", json!({"answer": 42}))]),
        reply([text("done")]),
    ]));
    let out = env
        .rein_at(&server)
        .args(["-p", "what is the answer?", "--output-format", "json", "--json-schema", SCHEMA])
        .assert()
        .success();
    let result = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(result["structured_output"], json!({"answer": 42}), "{result}");
    assert_eq!(result["subtype"], "success");
    let reqs = server.requests();
    let tool = reqs[0].body["tools"].as_array().unwrap().iter().find(|t| t["name"] == "StructuredOutput").cloned();
    assert_eq!(tool.unwrap()["input_schema"]["required"], json!(["answer"]));
    let messages = reqs[1].body["messages"].as_array().unwrap().clone();
    let (first, is_error) = tool_result(&messages, "s1");
    assert!(is_error, "a mismatching input is refused: {first}");
}

#[test]
fn a_model_that_never_calls_it_is_reminded_then_the_run_fails() {
    let env = Env::new();
    let steps: Vec<Step> = (0..6).map(|_| reply([text("just text")]).into()).collect();
    let server = serve(Scenario::new(steps));
    let out = env
        .rein_at(&server)
        .args(["-p", "answer", "--output-format", "json", "--json-schema", SCHEMA])
        .assert()
        .failure();
    let result = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(result["subtype"], "error_max_structured_output_retries", "{result}");
    assert_eq!(result["is_error"], true);
    assert!(result["errors"][0].as_str().unwrap().contains("StructuredOutput"));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 6);
    assert!(reqs[1].body["messages"].to_string().contains("You must call the StructuredOutput tool"));
}

#[test]
fn a_schema_that_is_not_json_stops_rein_with_a_clear_error() {
    let env = Env::new();
    env.rein()
        .env("ANTHROPIC_API_KEY", "k")
        .args(["-p", "x", "--json-schema", "{not json"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("--json-schema"));
}
