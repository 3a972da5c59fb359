//! The HTTP server: binds 127.0.0.1:0 on its own thread and runtime, so that both
//! blocking tests (which run the rein binary) and async tests can use it.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{OriginalUri, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use serde_json::Value;
use tokio::sync::oneshot;

use crate::sse::{encode, reply_events};
use crate::{Scenario, Step};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// The JSON body (`Value::Null` when the body was not JSON).
    pub body: Value,
    /// Header names lower-cased.
    pub headers: BTreeMap<String, String>,
    pub received_at: Instant,
    /// When the last byte of the response was handed to the connection.
    pub response_done_at: Option<Instant>,
    /// The same, as wall-clock time (to compare with file times).
    pub response_done_wall: Option<std::time::SystemTime>,
    /// When the response body was ended (its chunked terminator handed over).
    pub body_ended_at: Option<Instant>,
    /// The size of the request body in bytes, as sent.
    pub body_len: usize,
    /// The request path (`/v1/messages`, or a Vertex AI model's `…:streamRawPredict`).
    pub path: String,
}

impl RecordedRequest {
    /// Whether this is a session-title request (rein-judge's title rubric).
    pub fn is_title(&self) -> bool {
        let system = self.system_text();
        system.contains(TITLE_MARK) || system.contains(CLAUDE_CODE_TITLE_MARK)
    }

    /// Whether this is an auto-mode judge request.
    pub fn is_judge(&self) -> bool {
        let system = self.system_text();
        JUDGE_MARKS.iter().any(|m| system.contains(m))
    }

    /// The system prompt's text, whether sent as a string or as blocks.
    pub fn system_text(&self) -> String {
        match &self.body["system"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect(),
            _ => String::new(),
        }
    }
}

/// What the system prompt of a side request says: the auto-mode judge's, prompt hooks'
/// and agent hooks' (rein-judge's and rein-session's rubrics). The scenario's `judge`
/// steps answer them.
pub(crate) const JUDGE_MARKS: [&str; 3] = ["rein's permission judge", "rein's hook judge", "rein's hook verifier"];

/// What the system prompt of a session-title request says. Such requests are answered
/// with the scenario's title (or "Fake session title") without consuming a step, and
/// kept apart from [`FakeServer::requests`] (in [`FakeServer::titles`]), since they run
/// in the background while the session goes on.
pub(crate) const TITLE_MARK: &str = "You name coding sessions";
/// What Claude Code's own session-title request says (its recordings are made against
/// this server: scripts/record-claude-code-sdk).
const CLAUDE_CODE_TITLE_MARK: &str = "naming a coding session";

#[derive(Default)]
struct Shared {
    steps: Mutex<VecDeque<Step>>,
    summary: Option<crate::Reply>,
    judge: Mutex<VecDeque<Step>>,
    routed: Mutex<Vec<(String, VecDeque<Step>)>>,
    title: Option<crate::Reply>,
    requests: Mutex<Vec<RecordedRequest>>,
    titles: Mutex<Vec<RecordedRequest>>,
    record_to: Option<std::path::PathBuf>,
    /// Requests that broke the pairing invariant (answered 400, as the real API does).
    pairing_violations: Mutex<Vec<String>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running fake server. Dropping it stops the server.
pub struct FakeServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FakeServer {
    /// Start serving `scenario` on an ephemeral loopback port.
    pub fn start(scenario: Scenario) -> std::io::Result<FakeServer> {
        Self::start_on(scenario, 0, None)
    }

    /// Start on `port` (0 = any), appending each request as a JSON line to `record_to`.
    pub fn start_on(
        scenario: Scenario,
        port: u16,
        record_to: Option<std::path::PathBuf>,
    ) -> std::io::Result<FakeServer> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            steps: Mutex::new(scenario.steps.into()),
            summary: scenario.summary,
            judge: Mutex::new(scenario.judge.into()),
            routed: Mutex::new(scenario.routed.into_iter().map(|(m, s)| (m, s.into())).collect()),
            title: scenario.title,
            titles: Mutex::new(Vec::new()),
            record_to,
            ..Shared::default()
        });
        let (stop, stopped) = oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let app = axum::Router::new()
            .route("/v1/messages", post(messages))
            .route("/v1/chat/completions", post(chat_completions))
            .route("/v1/responses", post(responses))
            .route("/model/{model}/invoke-with-response-stream", post(bedrock))
            // Vertex AI: the Messages API at the model's own URL (`{model}:streamRawPredict`).
            .route("/v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}", post(messages))
            // The Messages API takes requests up to 32 MB (images and PDFs make them large).
            .layer(axum::extract::DefaultBodyLimit::max(32 * 1024 * 1024))
            .with_state(shared.clone());
        let thread = std::thread::Builder::new().name("rein-fake-server".into()).spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        })?;
        Ok(FakeServer { addr, shared, stop: Some(stop), thread: Some(thread) })
    }

    /// `http://127.0.0.1:PORT`, for `ANTHROPIC_BASE_URL`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// The session-title requests (see [`TITLE_MARK`]), apart from the others.
    pub fn titles(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.titles).clone()
    }

    /// Every request whose `messages` broke the pairing invariant, with how. The server
    /// answers such a request 400 `invalid_request_error`, as the real API does.
    pub fn pairing_violations(&self) -> Vec<String> {
        lock(&self.shared.pairing_violations).clone()
    }

    /// How many scripted steps have not been served.
    pub fn remaining_steps(&self) -> usize {
        lock(&self.shared.steps).len()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The wire format a request came in.
#[derive(Clone, Copy)]
enum Wire {
    Messages,
    ChatCompletions,
    Responses,
    /// Amazon Bedrock: the Messages events in AWS event-stream frames.
    Bedrock,
}

async fn messages(state: State<Arc<Shared>>, uri: OriginalUri, headers: HeaderMap, body: Bytes) -> Response {
    respond(state, uri, headers, body, Wire::Messages).await
}

async fn bedrock(state: State<Arc<Shared>>, uri: OriginalUri, headers: HeaderMap, body: Bytes) -> Response {
    respond(state, uri, headers, body, Wire::Bedrock).await
}

async fn chat_completions(state: State<Arc<Shared>>, uri: OriginalUri, headers: HeaderMap, body: Bytes) -> Response {
    respond(state, uri, headers, body, Wire::ChatCompletions).await
}

async fn responses(state: State<Arc<Shared>>, uri: OriginalUri, headers: HeaderMap, body: Bytes) -> Response {
    respond(state, uri, headers, body, Wire::Responses).await
}

async fn respond(
    State(shared): State<Arc<Shared>>,
    OriginalUri(uri): OriginalUri,
    headers: HeaderMap,
    body: Bytes,
    wire: Wire,
) -> Response {
    let received_at = Instant::now();
    let body_len = body.len();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let headers = headers
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    if let Some(path) = &shared.record_to {
        append_line(path, &body);
    }
    let recorded = RecordedRequest {
        body,
        headers,
        received_at,
        response_done_at: None,
        response_done_wall: None,
        body_ended_at: None,
        path: uri.path().to_string(),
        body_len,
    };
    if recorded.is_title() {
        lock(&shared.titles).push(recorded);
        let answer = shared.title.clone().unwrap_or_else(|| crate::reply([crate::text("Fake session title")]));
        let events: Vec<Bytes> = wire_events(wire, &answer, "msg_fake_title");
        return sse_response(Body::from(events.concat()));
    }
    let index = {
        let mut reqs = lock(&shared.requests);
        reqs.push(recorded);
        reqs.len() - 1
    };
    let broken = match lock(&shared.requests)[index].body.get("messages").and_then(Value::as_array) {
        Some(msgs) => crate::check_pairing(msgs).err(),
        None => None,
    };
    if let Some(why) = broken {
        lock(&shared.pairing_violations).push(format!("request {index}: {why}"));
        mark_done(&shared, index);
        let body = serde_json::json!({"type": "error", "error": {"type": "invalid_request_error",
            "message": format!("fake server: the pairing invariant is broken: {why}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.")}});
        return error_response(400, body.to_string(), None);
    }
    let is_summary = shared.summary.is_some() && body_has_no_tools(&lock(&shared.requests)[index].body);
    let is_judge = lock(&shared.requests)[index].is_judge();
    let system = lock(&shared.requests)[index].system_text();
    let route = lock(&shared.routed).iter().position(|(mark, _)| system.contains(mark.as_str()));
    let step = if let Some(i) = route {
        lock(&shared.routed).get_mut(i).and_then(|(_, steps)| steps.pop_front())
    } else if is_judge {
        lock(&shared.judge).pop_front()
    } else if is_summary {
        shared.summary.clone().map(Step::Respond)
    } else {
        lock(&shared.steps).pop_front()
    };
    match step {
        None => error_response(
            500,
            "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"fake server: scenario exhausted\"}}"
                .into(),
            None,
        ),
        Some(Step::HttpError { status, body, retry_after }) => {
            let text = match body {
                Value::String(s) => s,
                other => other.to_string(),
            };
            mark_done(&shared, index);
            error_response(status, text, retry_after)
        }
        Some(Step::RawSse(text)) => {
            mark_done(&shared, index);
            sse_response(Body::from(text))
        }
        Some(Step::Respond(reply)) => {
            let message_id = format!("msg_fake_{index:05}");
            let events: Vec<Bytes> = wire_events(wire, &reply, &message_id);
            let delay = Duration::from_millis(reply.event_delay_ms);
            let pause = reply.pause_after_event;
            let drop_after = reply.drop_after_events;
            let end_after = Duration::from_millis(reply.end_body_after_ms);
            let stream = futures::stream::unfold(0usize, move |i| {
                let events = events.clone();
                let shared = shared.clone();
                async move {
                    if drop_after == Some(i) {
                        // Let what was sent reach the client first: a drop *mid*-stream.
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        return Some((Err(std::io::Error::other("fake server: connection dropped")), usize::MAX));
                    }
                    if i == events.len() {
                        // A zero sleep still waits for the timer's next tick (≈ 1 ms).
                        if !end_after.is_zero() {
                            tokio::time::sleep(end_after).await;
                        }
                        if let Some(r) = lock(&shared.requests).get_mut(index) {
                            r.body_ended_at = Some(Instant::now());
                        }
                        return None;
                    }
                    let event = events.get(i)?;
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    if let Some((after, ms)) = pause
                        && i == after + 1
                    {
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                    }
                    if i + 1 == events.len() {
                        mark_done(&shared, index);
                    }
                    Some((Ok::<_, std::io::Error>(event.clone()), i + 1))
                }
            });
            sse_response(Body::from_stream(stream))
        }
    }
}

/// `reply` as the events of `wire`, each one chunk of the body.
fn wire_events(wire: Wire, reply: &crate::Reply, message_id: &str) -> Vec<Bytes> {
    match wire {
        Wire::Messages => reply_events(reply, message_id).iter().map(|e| encode(e).into()).collect(),
        Wire::ChatCompletions => crate::chat::chat_chunks(reply, message_id).into_iter().map(Bytes::from).collect(),
        Wire::Responses => crate::responses::responses_events(reply, message_id).into_iter().map(Bytes::from).collect(),
        Wire::Bedrock => reply_events(reply, message_id)
            .iter()
            .map(|e| crate::bedrock::chunk(&serde_json::to_string(e).unwrap_or_default()).into())
            .collect(),
    }
}

fn body_has_no_tools(body: &Value) -> bool {
    body.get("tools").and_then(Value::as_array).is_none_or(|t| t.is_empty())
}

fn mark_done(shared: &Shared, index: usize) {
    if let Some(r) = lock(&shared.requests).get_mut(index) {
        r.response_done_at = Some(Instant::now());
        r.response_done_wall = Some(std::time::SystemTime::now());
    }
}

fn sse_response(body: Body) -> Response {
    let mut r = Response::new(body);
    r.headers_mut().insert("content-type", axum::http::HeaderValue::from_static("text/event-stream"));
    r.headers_mut().insert("request-id", axum::http::HeaderValue::from_static("req_fake"));
    r
}

fn error_response(status: u16, body: String, retry_after: Option<u64>) -> Response {
    let json = body.trim_start().starts_with('{');
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let ct = if json { "application/json" } else { "text/plain" };
    r.headers_mut().insert("content-type", axum::http::HeaderValue::from_static(ct));
    if let Some(s) = retry_after {
        r.headers_mut().insert("retry-after", axum::http::HeaderValue::from(s));
    }
    r
}

fn append_line(path: &std::path::Path, body: &Value) {
    use std::io::Write;
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = writeln!(f, "{body}");
    }
}
