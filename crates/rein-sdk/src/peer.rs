//! The other end of the pipe: one JSON object per stdout line (flushed), and control
//! requests rein sends, each waiting for the `control_response` with its id.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::frames::{ControlResponse, Frame, OutRequest, System};

/// Why a request to the SDK got no usable answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PeerError {
    /// The SDK answered with `subtype: "error"`.
    #[error("{0}")]
    Refused(String),
    /// stdin is closed: no answer can come.
    #[error("the SDK's input is closed; no answer can come")]
    Closed,
    /// The answer was cancelled (the request was withdrawn).
    #[error("the request was withdrawn")]
    Withdrawn,
}

type Pending = oneshot::Sender<Result<Value, PeerError>>;

/// The SDK host, seen from rein.
pub struct Peer {
    out: Mutex<Box<dyn Write + Send>>,
    pending: Mutex<HashMap<String, Pending>>,
    closed: AtomicBool,
    next: AtomicU64,
}

impl Peer {
    /// A peer that writes its lines to `out` (stdout in rein).
    pub fn new(out: Box<dyn Write + Send>) -> Self {
        Peer {
            out: Mutex::new(out),
            pending: Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
            next: AtomicU64::new(1),
        }
    }

    /// Write one line: the frame, compact, newline, flushed.
    pub fn send(&self, frame: &impl Serialize) {
        let Ok(line) = serde_json::to_string(frame) else { return };
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    /// Answer the SDK's request `id`.
    pub fn respond<E: std::fmt::Display>(&self, id: &str, answer: Result<Value, E>) {
        let error;
        let response = match &answer {
            Ok(v) => ControlResponse::Success { request_id: id, response: v.clone() },
            Err(e) => {
                error = e.to_string();
                ControlResponse::Error { request_id: id, error: &error }
            }
        };
        self.send(&Frame::ControlResponse { response });
    }

    /// Send a control request and wait for its answer. Fails at once when stdin is
    /// closed, since no answer can come.
    pub async fn request(&self, request: OutRequest<'_>) -> Result<Value, PeerError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(PeerError::Closed);
        }
        let id = format!("rein-{}-{}", self.next.fetch_add(1, Ordering::SeqCst), uuid::Uuid::new_v4().simple());
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), tx);
        // Closed between the check and the insert: nobody would fail this one.
        if self.closed.load(Ordering::SeqCst) {
            self.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
            return Err(PeerError::Closed);
        }
        self.send(&Frame::ControlRequest { request_id: &id, request });
        let guard = Withdraw { peer: self, id: &id };
        let answer = rx.await.unwrap_or(Err(PeerError::Withdrawn));
        std::mem::forget(guard);
        answer
    }

    /// A `control_response` arrived: hand it to the request waiting for it (unknown ids
    /// are ignored, as the SDKs do).
    pub fn resolve(&self, response: &Value) {
        let Some(id) = response.get("request_id").and_then(Value::as_str) else { return };
        let Some(tx) = self.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(id) else { return };
        let answer = match response.get("subtype").and_then(Value::as_str) {
            Some("error") => Err(PeerError::Refused(
                response.get("error").and_then(Value::as_str).unwrap_or("the SDK refused the request").to_string(),
            )),
            _ => Ok(match response.get("response") {
                Some(v @ Value::Object(_)) => v.clone(),
                _ => json!({}),
            }),
        };
        let _ = tx.send(answer);
    }

    /// stdin closed: every waiting request fails now, and every later one at once.
    pub fn close_input(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for (_, tx) in self.pending.lock().unwrap_or_else(|p| p.into_inner()).drain() {
            let _ = tx.send(Err(PeerError::Closed));
        }
    }

    /// Whether stdin is closed.
    pub fn input_closed(&self) -> bool {
        self.closed.load(Ordering::SeqCst)
    }
}

/// `session_state_changed` frames, which the SDKs ask for with
/// `CLAUDE_CODE_SDK_READS_SESSION_STATE=1`: `running` as a turn starts, `requires_action`
/// while a question waits, `idle` after each result (the SDK closes stdin on that).
pub struct SessionState {
    pub peer: std::sync::Arc<Peer>,
    pub session_id: String,
}

impl SessionState {
    pub fn send(&self, state: &str) {
        self.peer.send(&Frame::System {
            system: System::SessionStateChanged { state, sdk_host_only: true },
            uuid: crate::frames::uuid(),
            session_id: &self.session_id,
            written_at: Some(crate::frames::written_at()),
        });
    }
}

/// A request dropped before its answer (the turn was interrupted) is withdrawn: the
/// SDK is told, and its late answer is ignored.
struct Withdraw<'a> {
    peer: &'a Peer,
    id: &'a str,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        if self.peer.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(self.id).is_some() {
            self.peer.send(&Frame::ControlCancelRequest { request_id: self.id });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl Buf {
        fn lines(&self) -> Vec<Value> {
            let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
            text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
        }
    }

    #[tokio::test]
    async fn requests_are_paired_by_id_and_fail_when_input_closes() {
        let buf = Buf::default();
        let peer = Arc::new(Peer::new(Box::new(buf.clone())));
        let p = peer.clone();
        let input = json!({});
        let first = tokio::spawn(async move {
            p.request(OutRequest::McpMessage { server_name: "s", message: &json!({"id": 1}) }).await
        });
        let p = peer.clone();
        let second = tokio::spawn(async move {
            p.request(OutRequest::HookCallback { callback_id: "hook_0", input: &json!({}), tool_use_id: None }).await
        });
        while buf.lines().len() < 2 {
            tokio::task::yield_now().await;
        }
        let ids: Vec<String> = buf.lines().iter().map(|l| l["request_id"].as_str().unwrap().to_string()).collect();
        let hook_id = buf.lines().iter().find(|l| l["request"]["subtype"] == "hook_callback").unwrap()["request_id"]
            .as_str()
            .unwrap()
            .to_string();
        assert_ne!(ids[0], ids[1]);
        peer.resolve(&json!({"subtype": "error", "request_id": hook_id, "error": "nope"}));
        peer.resolve(&json!({"subtype": "success", "request_id": "unknown", "response": {}}));
        assert_eq!(second.await.unwrap(), Err(PeerError::Refused("nope".into())));
        peer.close_input();
        assert_eq!(first.await.unwrap(), Err(PeerError::Closed));
        let late = OutRequest::HookCallback { callback_id: "hook_1", input: &input, tool_use_id: None };
        assert_eq!(peer.request(late).await, Err(PeerError::Closed));
    }
}
