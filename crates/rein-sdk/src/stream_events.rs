//! `--include-partial-messages`: each streaming event of a response as a `stream_event`
//! line wrapping the Messages API event it stands for (`message_start`,
//! `content_block_start`, `content_block_delta`, `content_block_stop`,
//! `message_delta`, `message_stop`), as Claude Code writes them for the Agent SDK.

use rein_protocol::{AssistantMessage, ContentBlock, Usage};
use rein_session::events::{BlockType, StreamDelta};
use serde::Serialize;
use serde_json::Value;

/// One Messages API streaming event.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApiEvent<'a> {
    MessageStart { message: StartedMessage<'a> },
    ContentBlockStart { index: usize, content_block: OpenBlock<'a> },
    ContentBlockDelta { index: usize, delta: Delta<'a> },
    ContentBlockStop { index: usize },
    MessageDelta { delta: StopDelta<'a>, usage: Usage },
    MessageStop,
}

/// The message as Claude Code's `message_start` shows it: its id, model and usage.
#[derive(Debug, Serialize)]
pub struct StartedMessage<'a> {
    pub id: &'a str,
    pub model: &'a str,
    pub usage: &'a Usage,
}

/// A block as it opens.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OpenBlock<'a> {
    Text { text: &'static str },
    Thinking { thinking: &'static str, signature: &'static str },
    RedactedThinking { data: &'static str },
    ToolUse { id: &'a str, name: &'a str, input: EmptyInput },
}

/// `{}`: a tool's input arrives as `input_json_delta`.
#[derive(Debug, Serialize)]
pub struct EmptyInput {}

/// A piece of a block.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Delta<'a> {
    TextDelta { text: &'a str },
    ThinkingDelta { thinking: &'a str },
    SignatureDelta { signature: &'a str },
    InputJsonDelta { partial_json: String },
}

/// How the response ended.
#[derive(Debug, Serialize)]
pub struct StopDelta<'a> {
    pub stop_reason: Option<&'a str>,
    pub stop_sequence: Option<&'a str>,
}

/// The API events one streaming delta stands for.
pub fn api_events(delta: &StreamDelta) -> Vec<ApiEvent<'_>> {
    match delta {
        StreamDelta::MessageStarted { id, model, usage } => {
            vec![ApiEvent::MessageStart { message: StartedMessage { id, model, usage } }]
        }
        StreamDelta::BlockStarted { index, kind } => {
            let content_block = match kind {
                BlockType::Text => OpenBlock::Text { text: "" },
                BlockType::Thinking => OpenBlock::Thinking { thinking: "", signature: "" },
                BlockType::RedactedThinking => OpenBlock::RedactedThinking { data: "" },
                // The tool's id, name and input come with the complete block.
                BlockType::ToolUse | BlockType::Other => return Vec::new(),
            };
            vec![ApiEvent::ContentBlockStart { index: *index, content_block }]
        }
        StreamDelta::Text { index, text } => {
            vec![ApiEvent::ContentBlockDelta { index: *index, delta: Delta::TextDelta { text } }]
        }
        StreamDelta::Thinking { index, thinking } => {
            vec![ApiEvent::ContentBlockDelta { index: *index, delta: Delta::ThinkingDelta { thinking } }]
        }
        StreamDelta::BlockDone { index, block } => {
            let mut out = Vec::new();
            if let ContentBlock::ToolUse(t) = block {
                out.push(ApiEvent::ContentBlockStart {
                    index: *index,
                    content_block: OpenBlock::ToolUse { id: &t.id, name: &t.name, input: EmptyInput {} },
                });
                out.push(ApiEvent::ContentBlockDelta {
                    index: *index,
                    delta: Delta::InputJsonDelta { partial_json: input_json(&t.input) },
                });
            }
            // A thinking block's signature arrives as the API sends it: its own delta.
            if let ContentBlock::Thinking { signature, .. } = block
                && !signature.is_empty()
            {
                out.push(ApiEvent::ContentBlockDelta { index: *index, delta: Delta::SignatureDelta { signature } });
            }
            out.push(ApiEvent::ContentBlockStop { index: *index });
            out
        }
    }
}

/// The events that close a response: its stop reason and output usage (the input was
/// counted at its start, so it is not counted twice), then `message_stop`.
pub fn closing_events(message: &AssistantMessage) -> [ApiEvent<'_>; 2] {
    [
        ApiEvent::MessageDelta {
            delta: StopDelta {
                stop_reason: message.stop_reason.as_deref(),
                stop_sequence: message.stop_sequence.as_deref(),
            },
            usage: Usage { input_tokens: 0, ..message.usage },
        },
        ApiEvent::MessageStop,
    ]
}

fn input_json(input: &Value) -> String {
    input.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_response_is_the_api_sequence() {
        let deltas = [
            StreamDelta::MessageStarted { id: "m".into(), model: "x".into(), usage: Default::default() },
            StreamDelta::BlockStarted { index: 0, kind: BlockType::Text },
            StreamDelta::Text { index: 0, text: "hi".into() },
            StreamDelta::BlockDone { index: 0, block: ContentBlock::text("hi") },
        ];
        let lines: Vec<Value> =
            deltas.iter().flat_map(api_events).map(|e| serde_json::to_value(e).unwrap_or_default()).collect();
        let kinds: Vec<&str> = lines.iter().map(|e| e["type"].as_str().unwrap_or_default()).collect();
        assert_eq!(kinds, ["message_start", "content_block_start", "content_block_delta", "content_block_stop"]);
        assert_eq!(lines[0]["message"]["id"], "m");
        assert_eq!(lines[1]["content_block"], serde_json::json!({"type": "text", "text": ""}));
        assert_eq!(lines[2]["delta"], serde_json::json!({"type": "text_delta", "text": "hi"}));
    }
}
