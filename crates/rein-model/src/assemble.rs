//! Turns the SSE events of one response into typed [`ModelEvent`]s and the final message.

use std::collections::BTreeMap;

use rein_protocol::{AssistantMessage, BlockDelta, ContentBlock, StreamEvent, ToolUse};
use serde_json::Value;

use crate::{BlockKind, ModelError, ModelEvent};

/// A block still receiving deltas.
enum Partial {
    Text(String),
    Thinking {
        thinking: String,
        signature: String,
    },
    ToolUse {
        id: String,
        name: String,
        start_input: Value,
        json: String,
    },
    Verbatim(ContentBlock),
    /// A block rein does not interpret whose input streams in as JSON fragments (a
    /// server tool's call, such as `server_tool_use` for web search).
    ServerCall {
        block: Value,
        json: String,
    },
}

/// Assembles one streamed response. Feed it every SSE event; it yields model events and,
/// at `message_stop`, the complete message. A tool's input is concatenated from its
/// `partial_json` fragments and parsed once, when its block stops.
#[derive(Default)]
pub struct Assembler {
    message: Option<AssistantMessage>,
    open: BTreeMap<usize, Partial>,
    done: BTreeMap<usize, ContentBlock>,
    finished: bool,
    /// A tool input that was not valid JSON: an error unless the response turns out to
    /// have been cut by max_tokens.
    bad_json: Option<ModelError>,
}

impl Assembler {
    pub fn new() -> Self {
        Self::default()
    }

    /// An error held back while the stream could still explain it (a tool input cut by
    /// max_tokens); reported when the stream ends early instead.
    pub fn take_error(&mut self) -> Option<ModelError> {
        self.bad_json.take()
    }

    /// True once `message_stop` has been seen.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Feed one raw SSE event. Unknown event names are ignored.
    pub fn on_sse(&mut self, event_name: &str, data: &str) -> Result<Vec<ModelEvent>, ModelError> {
        let name = if event_name.is_empty() || event_name == "message" {
            // No `event:` line: fall back on the payload's own type.
            match serde_json::from_str::<Value>(data) {
                Ok(v) => v.get("type").and_then(Value::as_str).unwrap_or_default().to_string(),
                Err(e) => return Err(ModelError::Protocol(format!("SSE data is not JSON: {e}"))),
            }
        } else {
            event_name.to_string()
        };
        if !StreamEvent::is_known_name(&name) {
            tracing::debug!(event = %name, "ignoring unknown SSE event");
            return Ok(Vec::new());
        }
        let event: StreamEvent =
            serde_json::from_str(data).map_err(|e| ModelError::Protocol(format!("bad data in a {name} event: {e}")))?;
        self.on_event(event)
    }

    /// Feed one parsed event.
    pub fn on_event(&mut self, event: StreamEvent) -> Result<Vec<ModelEvent>, ModelError> {
        if self.finished {
            return Ok(Vec::new());
        }
        match event {
            StreamEvent::MessageStart { message } => {
                let mut m = AssistantMessage::new(&message.id, &message.model);
                m.usage = message.usage;
                self.message = Some(m);
                Ok(vec![ModelEvent::MessageStart { id: message.id, model: message.model, usage: message.usage }])
            }
            StreamEvent::ContentBlockStart { index, content_block } => {
                self.started()?;
                let (partial, kind) = match content_block {
                    ContentBlock::Text { text } => (Partial::Text(text), BlockKind::Text),
                    ContentBlock::Thinking { thinking, signature } => {
                        (Partial::Thinking { thinking, signature }, BlockKind::Thinking)
                    }
                    ContentBlock::ToolUse(t) => (
                        Partial::ToolUse { id: t.id, name: t.name, start_input: t.input, json: String::new() },
                        BlockKind::ToolUse,
                    ),
                    b @ ContentBlock::RedactedThinking { .. } => (Partial::Verbatim(b), BlockKind::RedactedThinking),
                    ContentBlock::Other(block) if block.get("input").is_some() => {
                        (Partial::ServerCall { block, json: String::new() }, BlockKind::Other)
                    }
                    other => (Partial::Verbatim(other), BlockKind::Other),
                };
                self.open.insert(index, partial);
                Ok(vec![ModelEvent::BlockStart { index, kind }])
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                self.started()?;
                let partial = self
                    .open
                    .get_mut(&index)
                    .ok_or_else(|| ModelError::Protocol(format!("delta for block {index}, which is not open")))?;
                match (partial, delta) {
                    (Partial::Text(s), BlockDelta::TextDelta { text }) => {
                        s.push_str(&text);
                        Ok(vec![ModelEvent::TextDelta { index, text }])
                    }
                    (
                        Partial::ToolUse { json, .. } | Partial::ServerCall { json, .. },
                        BlockDelta::InputJsonDelta { partial_json },
                    ) => {
                        json.push_str(&partial_json);
                        Ok(Vec::new())
                    }
                    (Partial::Thinking { thinking: t, .. }, BlockDelta::ThinkingDelta { thinking }) => {
                        t.push_str(&thinking);
                        Ok(vec![ModelEvent::ThinkingDelta { index, thinking }])
                    }
                    (Partial::Thinking { signature: s, .. }, BlockDelta::SignatureDelta { signature }) => {
                        s.push_str(&signature);
                        Ok(Vec::new())
                    }
                    (_, BlockDelta::Other(_)) => Ok(Vec::new()),
                    (_, d) => Err(ModelError::Protocol(format!("delta {d:?} does not fit block {index}"))),
                }
            }
            StreamEvent::ContentBlockStop { index } => {
                self.started()?;
                let partial = self
                    .open
                    .remove(&index)
                    .ok_or_else(|| ModelError::Protocol(format!("stop for block {index}, which is not open")))?;
                let block = self.finish(partial);
                self.done.insert(index, block.clone());
                Ok(vec![ModelEvent::BlockComplete { index, block }])
            }
            StreamEvent::MessageDelta { delta, usage } => {
                let m = self.started()?;
                m.stop_reason = delta.stop_reason;
                m.stop_sequence = delta.stop_sequence;
                m.usage.update_cumulative(&usage);
                Ok(Vec::new())
            }
            StreamEvent::MessageStop => {
                let mut out = Vec::new();
                // Blocks never stopped are completed here rather than lost.
                for (index, partial) in std::mem::take(&mut self.open) {
                    let block = self.finish(partial);
                    self.done.insert(index, block.clone());
                    out.push(ModelEvent::BlockComplete { index, block });
                }
                let cut = self.message.as_ref().and_then(|m| m.stop_reason.as_deref()) == Some("max_tokens");
                if let Some(e) = self.bad_json.take()
                    && !cut
                {
                    return Err(e);
                }
                let mut m = self
                    .message
                    .take()
                    .ok_or_else(|| ModelError::Protocol("message_stop before message_start".into()))?;
                m.content = std::mem::take(&mut self.done).into_values().collect();
                self.finished = true;
                out.push(ModelEvent::MessageDone(m));
                Ok(out)
            }
            StreamEvent::Ping => Ok(Vec::new()),
            StreamEvent::Error { error } => {
                Err(ModelError::Api { status: None, kind: error.kind, message: error.message, retry_after: None })
            }
        }
    }

    /// Complete a block. A tool input that does not parse is kept under
    /// [`INCOMPLETE_INPUT_KEY`] (a response cut by max_tokens), and the error is held.
    fn finish(&mut self, partial: Partial) -> ContentBlock {
        match finish(partial) {
            Ok(b) => b,
            Err(cut) => {
                let (block, e) = *cut;
                self.bad_json.get_or_insert(e);
                block
            }
        }
    }

    fn started(&mut self) -> Result<&mut AssistantMessage, ModelError> {
        self.message.as_mut().ok_or_else(|| ModelError::Protocol("content before message_start".into()))
    }
}

/// The input key of a tool call whose JSON was cut off (by max_tokens).
pub const INCOMPLETE_INPUT_KEY: &str = "_rein_incomplete_input";

fn finish(partial: Partial) -> Result<ContentBlock, Box<(ContentBlock, ModelError)>> {
    Ok(match partial {
        Partial::Text(text) => ContentBlock::Text { text },
        Partial::Thinking { thinking, signature } => ContentBlock::Thinking { thinking, signature },
        Partial::Verbatim(b) => b,
        Partial::ServerCall { mut block, json } => {
            // The provider ran the call already: an input that does not parse is kept
            // as the text it was, and nothing waits on it.
            if !json.trim().is_empty() {
                block["input"] = serde_json::from_str(&json).unwrap_or(Value::String(json));
            }
            ContentBlock::Other(block)
        }
        Partial::ToolUse { id, name, start_input, json } => {
            let input = if json.trim().is_empty() {
                if start_input.is_null() { Value::Object(Default::default()) } else { start_input }
            } else {
                match serde_json::from_str(&json) {
                    Ok(v) => v,
                    Err(e) => {
                        let error =
                            ModelError::Protocol(format!("the input of tool_use {id} ({name}) is not valid JSON: {e}"));
                        let mut kept = serde_json::Map::new();
                        kept.insert(INCOMPLETE_INPUT_KEY.into(), Value::String(json));
                        return Err(Box::new((
                            ContentBlock::ToolUse(ToolUse { id, name, input: Value::Object(kept) }),
                            error,
                        )));
                    }
                }
            };
            ContentBlock::ToolUse(ToolUse { id, name, input })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_server_tool_call_keeps_its_streamed_input_and_its_results() {
        let mut a = Assembler::new();
        let out = feed(
            &mut a,
            &[
                ("message_start", json!({"type": "message_start", "message": {"id": "m", "model": "x", "usage": {}}})),
                (
                    "content_block_start",
                    json!({"type": "content_block_start", "index": 0, "content_block":
                        {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {}}}),
                ),
                (
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0, "delta":
                        {"type": "input_json_delta", "partial_json": "{\"query\": \"rust"}}),
                ),
                (
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0, "delta":
                        {"type": "input_json_delta", "partial_json": " 2026\"}"}}),
                ),
                ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
                (
                    "content_block_start",
                    json!({"type": "content_block_start", "index": 1, "content_block":
                        {"type": "web_search_tool_result", "tool_use_id": "srv", "content":
                            [{"type": "web_search_result", "url": "https://a.example", "title": "A"}]}}),
                ),
                ("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
                (
                    "message_delta",
                    json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": 5, "server_tool_use": {"web_search_requests": 1}}}),
                ),
                ("message_stop", json!({"type": "message_stop"})),
            ],
        )
        .unwrap();
        let Some(ModelEvent::MessageDone(m)) = out.last() else { panic!("{out:?}") };
        let ContentBlock::Other(call) = &m.content[0] else { panic!("{:?}", m.content) };
        assert_eq!(call["input"], json!({"query": "rust 2026"}));
        let ContentBlock::Other(results) = &m.content[1] else { panic!("{:?}", m.content) };
        assert_eq!(results["content"][0]["url"], "https://a.example");
        assert_eq!(m.usage.web_searches(), 1);
    }

    fn feed(a: &mut Assembler, events: &[(&str, Value)]) -> Result<Vec<ModelEvent>, ModelError> {
        let mut out = Vec::new();
        for (name, data) in events {
            out.extend(a.on_sse(name, &data.to_string())?);
        }
        Ok(out)
    }

    fn start() -> (&'static str, Value) {
        (
            "message_start",
            json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":7,"output_tokens":1}}}),
        )
    }

    #[test]
    fn tool_input_is_joined_from_fragments_and_parsed_at_stop() {
        let mut a = Assembler::new();
        let out = feed(
            &mut a,
            &[
                start(),
                ("content_block_start", json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"Bash","input":{}}})),
                ("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}})),
                ("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"l"}})),
                ("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"s\"}"}})),
                ("content_block_stop", json!({"type":"content_block_stop","index":0})),
                ("message_delta", json!({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":41}})),
                ("message_stop", json!({"type":"message_stop"})),
            ],
        )
        .unwrap();
        let ModelEvent::MessageDone(m) = out.last().unwrap() else { panic!("no MessageDone") };
        assert_eq!(m.content[0].as_tool_use().unwrap().input, json!({"command":"ls"}));
        assert_eq!(m.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!((m.usage.input_tokens, m.usage.output_tokens), (7, 41));
    }

    #[test]
    fn thinking_keeps_its_signature() {
        let mut a = Assembler::new();
        let out = feed(
            &mut a,
            &[
                start(),
                ("content_block_start", json!({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}})),
                ("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me"}})),
                ("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB=="}})),
                ("content_block_stop", json!({"type":"content_block_stop","index":0})),
                ("message_stop", json!({"type":"message_stop"})),
            ],
        )
        .unwrap();
        let ModelEvent::MessageDone(m) = out.last().unwrap() else { panic!() };
        assert_eq!(m.content, vec![ContentBlock::Thinking { thinking: "let me".into(), signature: "EqQB==".into() }]);
    }

    #[test]
    fn unknown_events_are_ignored_and_bad_json_is_an_error() {
        let mut a = Assembler::new();
        feed(&mut a, &[start()]).unwrap();
        assert!(a.on_sse("brand_new_event", "{\"type\":\"brand_new_event\"}").unwrap().is_empty());
        assert!(matches!(a.on_sse("content_block_delta", "{not json"), Err(ModelError::Protocol(_))));
    }

    #[test]
    fn invalid_partial_json_names_the_tool() {
        let mut a = Assembler::new();
        let err = feed(
            &mut a,
            &[
                start(),
                ("content_block_start", json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t9","name":"Glob","input":{}}})),
                ("content_block_delta", json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\": "}})),
                ("content_block_stop", json!({"type":"content_block_stop","index":0})),
                ("message_stop", json!({"type":"message_stop"})),
            ],
        )
        .unwrap_err();
        assert!(err.to_string().contains("t9 (Glob)"), "{err}");
    }

    #[test]
    fn error_event_after_200_is_an_api_error() {
        let mut a = Assembler::new();
        let err = feed(
            &mut a,
            &[start(), ("error", json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}))],
        )
        .unwrap_err();
        assert!(matches!(err, ModelError::Api { ref kind, .. } if kind == "overloaded_error"));
    }
}
