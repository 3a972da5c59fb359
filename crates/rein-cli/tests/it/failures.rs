//! Bad input from the model endpoint: one clear error line, a non-zero exit, no panic,
//! and what the session produced so far kept in the output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, json_lines, serve};
use rein_testkit::{Scenario, Step, reply, text, tool_use_with_id};
use serde_json::json;

/// Run `rein -p` against `scenario`; return (stdout, stderr) after asserting failure.
fn fails(scenario: Scenario, format: &str) -> (String, String) {
    let env = Env::new();
    let server = serve(scenario);
    // These failures are about reporting; retries are tested in recovery.rs.
    let out = env
        .rein_at(&server)
        .env("REIN_MAX_RETRIES", "0")
        .args(["-p", "x", "--verbose", "--output-format", format])
        .assert()
        .failure();
    let o = out.get_output();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let error_lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("rein: error:")).collect();
    assert_eq!(error_lines.len(), 1, "exactly one error line: {stderr}");
    (String::from_utf8_lossy(&o.stdout).into_owned(), error_lines[0].to_string())
}

/// A first turn that succeeds (so there is output to keep), then `step`.
fn after_one_turn(step: impl Into<Step>) -> Scenario {
    Scenario {
        steps: vec![
            reply([text("First turn text."), tool_use_with_id("t", "Glob", json!({"pattern": "*"}))]).into(),
            step.into(),
        ],
        ..Scenario::default()
    }
}

#[test]
fn http_401_with_api_error_json() {
    let (_, err) = fails(Scenario::new([Step::api_error(401, "authentication_error", "invalid x-api-key")]), "text");
    assert_eq!(err, "rein: error: API error 401 authentication_error: invalid x-api-key");
}

#[test]
fn http_400_404_and_500_name_status_and_type() {
    for (status, kind) in [(400, "invalid_request_error"), (404, "not_found_error"), (500, "api_error")] {
        let (_, err) = fails(Scenario::new([Step::api_error(status, kind, "details here")]), "text");
        assert_eq!(err, format!("rein: error: API error {status} {kind}: details here"));
    }
}

#[test]
fn a_non_json_error_body() {
    let (_, err) = fails(Scenario::new([Step::plain_error(502, "<html>upstream\nbroke</html>")]), "text");
    assert_eq!(err, "rein: error: HTTP 502 from the model endpoint: <html>upstream broke</html>");
}

#[test]
fn connection_refused() {
    let env = Env::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let out = env
        .rein()
        .env("ANTHROPIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("ANTHROPIC_API_KEY", "k")
        .env("REIN_MAX_RETRIES", "0")
        .args(["-p", "x"])
        .assert()
        .failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.starts_with(&format!("rein: error: cannot reach the model at http://127.0.0.1:{port}")), "{stderr}");
    assert_eq!(stderr.lines().count(), 1);
}

#[test]
fn malformed_sse_data_keeps_earlier_turns() {
    let raw = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"x\"}}\n\n\
               event: content_block_start\ndata: {this is not json\n\n";
    let (stdout, err) = fails(after_one_turn(Step::RawSse(raw.into())), "stream-json");
    assert!(err.contains("malformed response stream: bad data in a content_block_start event"), "{err}");
    let lines = json_lines(stdout.as_bytes());
    assert_eq!(lines[1]["message"]["content"][0]["text"], "First turn text.", "earlier output kept");
    let result = lines.last().unwrap();
    assert_eq!(result["subtype"], "error_during_execution");
    assert_eq!(result["is_error"], true);
    assert!(result["errors"][0].as_str().unwrap().contains("malformed"));
}

#[test]
fn invalid_partial_json_names_the_tool_call() {
    let raw = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"x\"}}\n\n\
               event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_bad\",\"name\":\"Bash\",\"input\":{}}}\n\n\
               event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"command\\\": \"}}\n\n\
               event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n";
    let (_, err) = fails(Scenario::new([Step::RawSse(raw.into())]), "text");
    assert!(err.contains("toolu_bad (Bash)") && err.contains("not valid JSON"), "{err}");
}

#[test]
fn a_stream_that_ends_without_message_stop_keeps_its_text() {
    let (stdout, err) = fails(Scenario::new([reply([text("Half an answer")]).without_message_stop()]), "text");
    assert_eq!(err, "rein: error: the response stream ended before message_stop");
    assert_eq!(stdout, "Half an answer\n", "the partial text is printed");
}

#[test]
fn a_connection_dropped_mid_stream_keeps_what_arrived() {
    let (stdout, err) = fails(after_one_turn(reply([text("Second turn, cut short")]).drop_after_events(5)), "json");
    assert!(err.contains("stream"), "{err}");
    let r = &json_lines(stdout.as_bytes())[0];
    assert_eq!(r["is_error"], true);
    assert_eq!(r["num_turns"], 2);
    assert!(r["result"].as_str().unwrap().starts_with("Second turn"), "{r}");
}

#[test]
fn an_error_event_after_200() {
    let raw = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"x\"}}\n\n\
               event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
    let (_, err) = fails(Scenario::new([Step::RawSse(raw.into())]), "text");
    assert_eq!(err, "rein: error: API error overloaded_error: Overloaded");
}

#[test]
fn no_credentials_is_a_clear_error() {
    let env = Env::new();
    let out = env.rein().args(["-p", "x"]).assert().failure();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("set ANTHROPIC_API_KEY") && stderr.contains("rein demo"), "{stderr}");
}
