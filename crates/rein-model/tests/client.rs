//! The Anthropic client against the fake server: real HTTP, real SSE.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use futures::StreamExt;
use rein_model::{AnthropicClient, AnthropicConfig, Auth, CachedMessage, Model, ModelError, ModelEvent, ModelRequest};
use rein_protocol::{AssistantMessage, Message};
use rein_testkit::{FakeServer, Scenario, Step, reply, text, thinking, tool_use_with_id};
use serde_json::json;

fn client(url: &str, auth: Auth) -> AnthropicClient {
    AnthropicClient::new(&AnthropicConfig {
        base_url: url.to_string(),
        auth,
        beta: Some("b1,b2".into()),
        key_helper: None,
        custom_headers: vec![("x-team".into(), "core".into()), ("x-api-key".into(), "stolen".into())],
    })
    .unwrap()
}

fn request() -> ModelRequest {
    ModelRequest {
        model: "claude-test".into(),
        max_tokens: 1000,
        system: "sys".into(),
        tools: Arc::new([]),
        messages: vec![Arc::new(CachedMessage::new(Message::user_text("hi")).unwrap())],
        cache: None,
        reasoning: Default::default(),
        web_search: None,
    }
}

async fn collect(model: &dyn Model) -> (Vec<ModelEvent>, Option<ModelError>) {
    let mut s = model.stream(request());
    let mut events = Vec::new();
    while let Some(item) = s.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

fn done(events: &[ModelEvent]) -> &AssistantMessage {
    match events.last() {
        Some(ModelEvent::MessageDone(m)) => m,
        other => panic!("expected MessageDone last, got {other:?}"),
    }
}

#[tokio::test]
async fn streams_a_full_response_and_sends_the_right_headers() {
    let server = FakeServer::start(Scenario::new([reply([
        thinking("consider", "sig-1"),
        text("Listing the files now."),
        tool_use_with_id("toolu_1", "Bash", json!({"command": "ls -la", "description": "List files"})),
    ])]))
    .unwrap();
    let (events, err) = collect(&client(&server.url(), Auth::ApiKey("sk-test".into()))).await;
    assert!(err.is_none(), "{err:?}");
    let m = done(&events);
    assert_eq!(m.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(m.content.len(), 3);
    assert_eq!(m.content[2].as_tool_use().unwrap().input, json!({"command": "ls -la", "description": "List files"}));
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Listing the files now.");
    let req = &server.requests()[0];
    assert_eq!(req.headers["x-api-key"], "sk-test");
    assert_eq!(req.headers["anthropic-version"], "2023-06-01");
    assert_eq!(req.headers["anthropic-beta"], "b1,b2");
    assert_eq!(req.headers["x-team"], "core", "ANTHROPIC_CUSTOM_HEADERS are sent");
    assert_eq!(req.body["stream"], json!(true));
    assert_eq!(req.body["model"], json!("claude-test"));
}

#[tokio::test]
async fn bearer_token_goes_in_authorization() {
    let server = FakeServer::start(Scenario::new([reply([text("ok")])])).unwrap();
    let (_, err) = collect(&client(&server.url(), Auth::Bearer("tok".into()))).await;
    assert!(err.is_none());
    let h = &server.requests()[0].headers;
    assert_eq!(h["authorization"], "Bearer tok");
    assert!(!h.contains_key("x-api-key"));
}

#[tokio::test]
async fn http_errors_are_readable() {
    let server = FakeServer::start(Scenario::new([
        Step::api_error(529, "overloaded_error", "Overloaded").with_retry_after(3),
        Step::plain_error(502, "bad gateway"),
    ]))
    .unwrap();
    let c = client(&server.url(), Auth::ApiKey("k".into()));
    let (_, err) = collect(&c).await;
    match err {
        Some(ModelError::Api { status: Some(529), kind, retry_after, .. }) => {
            assert_eq!(kind, "overloaded_error");
            assert_eq!(retry_after, Some(std::time::Duration::from_secs(3)));
        }
        other => panic!("{other:?}"),
    }
    let (_, err) = collect(&c).await;
    assert_eq!(err.unwrap().to_string(), "HTTP 502 from the model endpoint: bad gateway");
}

#[tokio::test]
async fn a_dropped_connection_keeps_the_events_so_far() {
    let server =
        FakeServer::start(Scenario::new([reply([text("partial answer that goes on")]).drop_after_events(5)])).unwrap();
    let (events, err) = collect(&client(&server.url(), Auth::ApiKey("k".into()))).await;
    assert!(matches!(err, Some(ModelError::Stream(_)) | Some(ModelError::Incomplete)), "{err:?}");
    assert!(events.iter().any(|e| matches!(e, ModelEvent::TextDelta { .. })));
}

#[tokio::test]
async fn a_stream_without_message_stop_is_incomplete() {
    let server = FakeServer::start(Scenario::new([reply([text("hi")]).without_message_stop()])).unwrap();
    let (_, err) = collect(&client(&server.url(), Auth::ApiKey("k".into()))).await;
    assert!(matches!(err, Some(ModelError::Incomplete)), "{err:?}");
}

#[tokio::test]
async fn connection_refused_names_the_endpoint() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (_, err) = collect(&client(&format!("http://127.0.0.1:{port}"), Auth::ApiKey("k".into()))).await;
    let msg = err.unwrap().to_string();
    assert!(msg.contains(&format!("127.0.0.1:{port}")), "{msg}");
}

/// The fake server holds every request to the pairing invariant, as the real API does.
#[tokio::test]
async fn the_fake_server_refuses_a_history_that_breaks_pairing() {
    let server = FakeServer::start(Scenario::new([reply([text("never sent")])])).unwrap();
    let c = client(&server.url(), Auth::ApiKey("k".into()));
    let call = rein_protocol::ContentBlock::ToolUse(rein_protocol::ToolUse {
        id: "toolu_1".into(),
        name: "Read".into(),
        input: json!({}),
    });
    let mut req = request();
    req.messages.push(Arc::new(CachedMessage::new(Message::assistant(vec![call])).unwrap()));
    req.messages.push(Arc::new(CachedMessage::new(Message::user_text("no result")).unwrap()));
    let mut s = c.stream(req);
    let mut error = None;
    while let Some(item) = s.next().await {
        if let Err(e) = item {
            error = Some(e);
            break;
        }
    }
    let error = error.expect("a 400").to_string();
    assert!(error.contains("400") && error.contains("pairing"), "{error}");
    assert_eq!(server.pairing_violations().len(), 1);
    assert_eq!(server.remaining_steps(), 1, "the scripted reply was not spent");
}
