//! Renders a [`Reply`] as the SSE events the real API would send.

use rein_protocol::{BlockDelta, ContentBlock, MessageDeltaBody, MessageStartBody, StreamEvent, Usage};

use crate::Reply;

const TEXT_CHUNK: usize = 16;
const DEFAULT_JSON_CHUNK: usize = 12;

/// Split `s` into pieces of about `n` bytes on char boundaries.
fn chunks(s: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars() {
        cur.push(c);
        if cur.len() >= n.max(1) {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The events of `reply`, in order, message_start to message_stop.
pub fn reply_events(reply: &Reply, message_id: &str) -> Vec<StreamEvent> {
    let mut ev = vec![
        StreamEvent::MessageStart {
            message: MessageStartBody {
                id: message_id.to_string(),
                model: reply.model.clone(),
                usage: Usage { output_tokens: 1, ..reply.usage },
            },
        },
        StreamEvent::Ping,
    ];
    for (index, block) in reply.blocks.iter().enumerate() {
        let (start, deltas): (ContentBlock, Vec<BlockDelta>) = match block {
            ContentBlock::Text { text } => (
                ContentBlock::text(""),
                chunks(text, TEXT_CHUNK).into_iter().map(|text| BlockDelta::TextDelta { text }).collect(),
            ),
            ContentBlock::ToolUse(t) => {
                let json = t.input.to_string();
                let mut d = vec![BlockDelta::InputJsonDelta { partial_json: String::new() }];
                d.extend(
                    chunks(&json, reply.json_chunk.unwrap_or(DEFAULT_JSON_CHUNK))
                        .into_iter()
                        .map(|partial_json| BlockDelta::InputJsonDelta { partial_json }),
                );
                let mut start = t.clone();
                start.input = serde_json::json!({});
                (ContentBlock::ToolUse(start), d)
            }
            ContentBlock::Thinking { thinking, signature } => {
                let mut d: Vec<BlockDelta> = chunks(thinking, TEXT_CHUNK)
                    .into_iter()
                    .map(|thinking| BlockDelta::ThinkingDelta { thinking })
                    .collect();
                d.push(BlockDelta::SignatureDelta { signature: signature.clone() });
                (ContentBlock::Thinking { thinking: String::new(), signature: String::new() }, d)
            }
            // A server tool's call streams its input as the real API does.
            ContentBlock::Other(v) if v["type"] == "server_tool_use" => {
                let mut start = v.clone();
                start["input"] = serde_json::json!({});
                let json = v["input"].to_string();
                let deltas = chunks(&json, DEFAULT_JSON_CHUNK)
                    .into_iter()
                    .map(|partial_json| BlockDelta::InputJsonDelta { partial_json })
                    .collect();
                (ContentBlock::Other(start), deltas)
            }
            other => (other.clone(), Vec::new()),
        };
        ev.push(StreamEvent::ContentBlockStart { index, content_block: start });
        ev.extend(deltas.into_iter().map(|delta| StreamEvent::ContentBlockDelta { index, delta }));
        ev.push(StreamEvent::ContentBlockStop { index });
    }
    ev.push(StreamEvent::MessageDelta {
        delta: MessageDeltaBody { stop_reason: Some(reply.claimed_stop_reason()), stop_sequence: None },
        usage: Usage {
            output_tokens: reply.usage.output_tokens,
            server_tool_use: reply.usage.server_tool_use,
            ..Usage::default()
        },
    });
    if !reply.omit_message_stop {
        ev.push(StreamEvent::MessageStop);
    }
    ev
}

/// One event in wire form: `event: NAME\ndata: JSON\n\n`.
pub(crate) fn encode(event: &StreamEvent) -> String {
    let data = serde_json::to_string(event).unwrap_or_else(|_| "{}".to_string());
    format!("event: {}\ndata: {}\n\n", event.name(), data)
}
