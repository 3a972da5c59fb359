//! What the SDK writes on stdin, one JSON object per line: user messages, control
//! requests and responses, cancellations, keep-alives. The reader hands responses to the
//! [`Peer`] at once (a question waiting inside a turn must not wait for the turn) and
//! everything else to the session loop, in order.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

use crate::Peer;
use crate::requests::ControlRequest;

/// A user message line.
#[derive(Debug, Clone, PartialEq)]
pub struct UserLine {
    /// `message.content`: a string or Messages-API content blocks.
    pub content: Value,
    /// The caller's `uuid`, echoed in the result.
    pub uuid: Option<String>,
}

/// One line from the SDK.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    User(UserLine),
    /// A control request: its id and the request.
    Control {
        id: String,
        request: ControlRequest,
    },
    /// A control request of a known subtype whose fields do not read: answered with
    /// this error.
    BadControl {
        id: String,
        why: String,
    },
    /// The SDK withdrew one of its requests.
    Cancel(String),
    /// A line that is not part of the protocol; said on stderr, never fatal.
    Bad(String),
    /// keep_alive, control_response (already routed), and types rein ignores.
    Ignored,
}

/// Read one line.
pub fn parse_line(line: &str) -> Inbound {
    let line = line.trim();
    if line.is_empty() {
        return Inbound::Ignored;
    }
    let value: Value = match serde_json::from_str(line) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => return Inbound::Bad("a line that is not a JSON object".into()),
        Err(e) => return Inbound::Bad(format!("a line that is not JSON ({e})")),
    };
    match value.get("type").and_then(Value::as_str) {
        Some("user") => {
            let Some(content) = value.get("message").and_then(|m| m.get("content")).cloned() else {
                return Inbound::Bad("a user line without message.content".into());
            };
            if !(content.is_string() || content.is_array()) {
                return Inbound::Bad("a user line whose content is neither text nor blocks".into());
            }
            let uuid = value.get("uuid").and_then(Value::as_str).map(str::to_string);
            Inbound::User(UserLine { content, uuid })
        }
        Some("control_request") => {
            let id = value.get("request_id").and_then(Value::as_str);
            let request = value.get("request").filter(|r| r.get("subtype").and_then(Value::as_str).is_some());
            match (id, request) {
                (Some(id), Some(r)) => match ControlRequest::read(r) {
                    Ok(request) => Inbound::Control { id: id.to_string(), request },
                    Err(why) => Inbound::BadControl { id: id.to_string(), why: why.to_string() },
                },
                _ => Inbound::Bad("a control_request without request_id or request.subtype".into()),
            }
        }
        Some("control_cancel_request") => match value.get("request_id").and_then(Value::as_str) {
            Some(id) => Inbound::Cancel(id.to_string()),
            None => Inbound::Bad("a control_cancel_request without request_id".into()),
        },
        Some(_) => Inbound::Ignored,
        None => Inbound::Bad("a line without a type".into()),
    }
}

/// Read `input` line by line until it ends: control responses go to `peer`, the rest to
/// the returned channel. At the end the peer's pending requests fail (no answer can
/// come) and the channel closes.
pub fn spawn_reader(
    input: impl AsyncRead + Unpin + Send + 'static,
    peer: Arc<Peer>,
) -> mpsc::UnboundedReceiver<Inbound> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut lines = BufReader::new(input).lines();
        loop {
            let line = match lines.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    let _ = tx.send(Inbound::Bad(format!("stdin could not be read: {e}")));
                    break;
                }
            };
            if let Ok(v) = serde_json::from_str::<Value>(line.trim())
                && v.get("type").and_then(Value::as_str) == Some("control_response")
            {
                if let Some(r) = v.get("response") {
                    peer.resolve(r);
                }
                continue;
            }
            let parsed = parse_line(&line);
            if parsed != Inbound::Ignored && tx.send(parsed).is_err() {
                break;
            }
        }
        peer.close_input();
    });
    rx
}

/// The next turn's prompt from what waited: the prompts that arrived while a turn ran go
/// to the model together as one message (texts joined by a new line, blocks in order),
/// as Claude Code sends them. A command (`/…`) is a turn of its own.
pub fn next_prompt(queue: &mut std::collections::VecDeque<UserLine>) -> Option<UserLine> {
    let is_command = |u: &UserLine| u.content.as_str().is_some_and(|t| t.starts_with('/'));
    let mut first = queue.pop_front()?;
    if is_command(&first) {
        return Some(first);
    }
    while queue.front().is_some_and(|u| !is_command(u))
        && let Some(next) = queue.pop_front()
    {
        first.content = match (first.content, next.content) {
            (Value::String(a), Value::String(b)) => Value::String(format!("{a}\n{b}")),
            (a, b) => Value::Array([blocks_of(a), blocks_of(b)].concat()),
        };
    }
    Some(first)
}

/// A prompt's content as content blocks.
fn blocks_of(content: Value) -> Vec<Value> {
    match content {
        Value::Array(blocks) => blocks,
        Value::String(text) => vec![serde_json::json!({"type": "text", "text": text})],
        other => vec![serde_json::json!({"type": "text", "text": other.to_string()})],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_of_both_sdks() {
        let py = r#"{"type": "user", "session_id": "", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": null}"#;
        assert_eq!(parse_line(py), Inbound::User(UserLine { content: json!("hi"), uuid: None }));
        let ts = r#"{"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"uuid":"u1"}"#;
        assert!(matches!(parse_line(ts), Inbound::User(UserLine { uuid: Some(u), .. }) if u == "u1"));
        let ctl =
            r#"{"type":"control_request","request_id":"req_1_ab","request":{"subtype":"initialize","hooks":null}}"#;
        assert!(matches!(parse_line(ctl), Inbound::Control { id, .. } if id == "req_1_ab"));
        assert_eq!(parse_line(r#"{"type":"keep_alive"}"#), Inbound::Ignored);
        assert_eq!(parse_line(r#"{"type":"control_cancel_request","request_id":"x"}"#), Inbound::Cancel("x".into()));
        assert!(matches!(parse_line("not json"), Inbound::Bad(_)));
        assert!(matches!(parse_line(r#"{"type":"control_request","request":{}}"#), Inbound::Bad(_)));
        assert!(matches!(parse_line(r#"{"type":"user","message":{"content":3}}"#), Inbound::Bad(_)));
        assert_eq!(parse_line("   "), Inbound::Ignored);
    }

    #[test]
    fn prompts_that_waited_go_as_one_but_a_command_stays_alone() {
        let line = |c: Value| UserLine { content: c, uuid: None };
        let mut queue: std::collections::VecDeque<UserLine> = [
            line(json!("first")),
            line(json!("second")),
            line(json!("/compact")),
            line(json!([{"type": "text", "text": "x"}])),
        ]
        .into();
        assert_eq!(next_prompt(&mut queue).map(|u| u.content), Some(json!("first\nsecond")));
        assert_eq!(next_prompt(&mut queue).map(|u| u.content), Some(json!("/compact")));
        assert_eq!(next_prompt(&mut queue).map(|u| u.content), Some(json!([{"type": "text", "text": "x"}])));
        assert!(next_prompt(&mut queue).is_none());
        let mut mixed: std::collections::VecDeque<UserLine> =
            [line(json!("a")), line(json!([{"type": "text", "text": "b"}]))].into();
        let merged = next_prompt(&mut mixed).map(|u| u.content);
        assert_eq!(merged, Some(json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}])));
    }
}
