//! `--include-partial-messages`: each streaming event of a response as a `stream_event`
//! line wrapping the Messages API event it stands for (`message_start`,
//! `content_block_start`, `content_block_delta`, `content_block_stop`,
//! `message_delta`, `message_stop`), as Claude Code writes them for the Agent SDK.

use rein_model::{BlockKind, ModelEvent};
use rein_protocol::ContentBlock;
use serde_json::{Value, json};

/// The API events one model event stands for.
pub fn api_events(event: &ModelEvent) -> Vec<Value> {
    match event {
        ModelEvent::MessageStart { id, model, usage } => vec![json!({
            "type": "message_start",
            "message": {"id": id, "type": "message", "role": "assistant", "model": model, "content": [],
                        "stop_reason": null, "stop_sequence": null, "usage": usage},
        })],
        ModelEvent::BlockStart { index, kind } => {
            let block = match kind {
                BlockKind::Text => json!({"type": "text", "text": ""}),
                BlockKind::Thinking => json!({"type": "thinking", "thinking": "", "signature": ""}),
                BlockKind::RedactedThinking => json!({"type": "redacted_thinking", "data": ""}),
                // The tool's id, name and input come with the complete block.
                BlockKind::ToolUse | BlockKind::Other => return Vec::new(),
            };
            vec![json!({"type": "content_block_start", "index": index, "content_block": block})]
        }
        ModelEvent::TextDelta { index, text } => {
            vec![json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}})]
        }
        ModelEvent::ThinkingDelta { index, thinking } => vec![json!({
            "type": "content_block_delta", "index": index, "delta": {"type": "thinking_delta", "thinking": thinking},
        })],
        ModelEvent::BlockComplete { index, block } => {
            let mut out = Vec::new();
            if let ContentBlock::ToolUse(t) = block {
                out.push(json!({"type": "content_block_start", "index": index,
                                "content_block": {"type": "tool_use", "id": t.id, "name": t.name, "input": {}}}));
                out.push(json!({"type": "content_block_delta", "index": index,
                                "delta": {"type": "input_json_delta", "partial_json": t.input.to_string()}}));
            }
            out.push(json!({"type": "content_block_stop", "index": index}));
            out
        }
        ModelEvent::MessageDone(m) => vec![
            json!({"type": "message_delta", "delta": {"stop_reason": m.stop_reason, "stop_sequence": m.stop_sequence},
                   "usage": m.usage}),
            json!({"type": "message_stop"}),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_response_is_the_api_sequence() {
        let events = [
            ModelEvent::MessageStart { id: "m".into(), model: "x".into(), usage: Default::default() },
            ModelEvent::BlockStart { index: 0, kind: BlockKind::Text },
            ModelEvent::TextDelta { index: 0, text: "hi".into() },
            ModelEvent::BlockComplete { index: 0, block: ContentBlock::text("hi") },
        ];
        let kinds: Vec<String> =
            events.iter().flat_map(api_events).map(|e| e["type"].as_str().unwrap_or_default().to_string()).collect();
        assert_eq!(kinds, ["message_start", "content_block_start", "content_block_delta", "content_block_stop"]);
    }
}
