//! OpenAI Responses API stream events turned into the Messages API's stream events.
//! Output items map to content blocks: `message` text to `text`, `function_call` to
//! `tool_use` (its `call_id` as the id), and `reasoning` items to an opaque block
//! (`openai_reasoning`) that is kept in the conversation and sent back as it came, as
//! the Responses API wants across turns. `response.completed` carries the usage.

use std::collections::BTreeMap;

use rein_protocol::{BlockDelta, ContentBlock, MessageDeltaBody, MessageStartBody, StreamEvent, ToolUse, Usage};
use serde_json::{Value, json};

use crate::ModelError;

/// The block type a Responses `reasoning` item is kept as.
pub(crate) const REASONING_BLOCK: &str = "openai_reasoning";

/// The translation of one response.
#[derive(Default)]
pub(crate) struct ResponsesTranslator {
    started: bool,
    /// Output index → block index, for items whose blocks are open.
    open: BTreeMap<u64, usize>,
    next_index: usize,
    saw_call: bool,
    ended: bool,
}

fn usage_of(response: &Value) -> Usage {
    let u = &response["usage"];
    let cached = u["input_tokens_details"]["cached_tokens"].as_u64().unwrap_or(0);
    Usage {
        input_tokens: u["input_tokens"].as_u64().unwrap_or(0).saturating_sub(cached),
        output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
        cache_read_input_tokens: cached,
        ..Usage::default()
    }
}

impl ResponsesTranslator {
    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// The events for one `data:` payload.
    pub fn push(&mut self, data: &str) -> Result<Vec<StreamEvent>, ModelError> {
        let event: Value = serde_json::from_str(data)
            .map_err(|e| ModelError::Protocol(format!("a stream event is not JSON ({e}): {data}")))?;
        let kind = event["type"].as_str().unwrap_or("");
        let mut out = Vec::new();
        if !self.started {
            self.started = true;
            let r = &event["response"];
            out.push(StreamEvent::MessageStart {
                message: MessageStartBody {
                    id: r["id"].as_str().unwrap_or("resp").to_string(),
                    model: r["model"].as_str().unwrap_or("").to_string(),
                    usage: Usage::default(),
                },
            });
        }
        let output_index = event["output_index"].as_u64().unwrap_or(0);
        match kind {
            "response.output_item.added" => {
                let item = &event["item"];
                let block = match item["type"].as_str() {
                    Some("message") => Some(ContentBlock::text("")),
                    Some("function_call") => {
                        self.saw_call = true;
                        Some(ContentBlock::ToolUse(ToolUse {
                            id: item["call_id"].as_str().unwrap_or("call").to_string(),
                            name: item["name"].as_str().unwrap_or("").to_string(),
                            input: json!({}),
                        }))
                    }
                    _ => None,
                };
                if let Some(block) = block {
                    let index = self.next_index;
                    self.next_index += 1;
                    self.open.insert(output_index, index);
                    out.push(StreamEvent::ContentBlockStart { index, content_block: block });
                }
            }
            "response.output_text.delta" => {
                if let (Some(&index), Some(text)) = (self.open.get(&output_index), event["delta"].as_str()) {
                    out.push(StreamEvent::ContentBlockDelta {
                        index,
                        delta: BlockDelta::TextDelta { text: text.into() },
                    });
                }
            }
            "response.function_call_arguments.delta" => {
                if let (Some(&index), Some(part)) = (self.open.get(&output_index), event["delta"].as_str()) {
                    let delta = BlockDelta::InputJsonDelta { partial_json: part.into() };
                    out.push(StreamEvent::ContentBlockDelta { index, delta });
                }
            }
            "response.output_item.done" => {
                let item = &event["item"];
                if let Some(index) = self.open.remove(&output_index) {
                    out.push(StreamEvent::ContentBlockStop { index });
                } else if item["type"] == "reasoning" {
                    let index = self.next_index;
                    self.next_index += 1;
                    let block = ContentBlock::Other(json!({"type": REASONING_BLOCK, "item": item}));
                    out.push(StreamEvent::ContentBlockStart { index, content_block: block });
                    out.push(StreamEvent::ContentBlockStop { index });
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = &event["response"];
                let stop = if self.saw_call {
                    "tool_use"
                } else if kind == "response.incomplete"
                    && response["incomplete_details"]["reason"] == "max_output_tokens"
                {
                    "max_tokens"
                } else {
                    "end_turn"
                };
                for (_, index) in std::mem::take(&mut self.open) {
                    out.push(StreamEvent::ContentBlockStop { index });
                }
                out.push(StreamEvent::MessageDelta {
                    delta: MessageDeltaBody { stop_reason: Some(stop.into()), stop_sequence: None },
                    usage: usage_of(response),
                });
                out.push(StreamEvent::MessageStop);
                self.ended = true;
            }
            "response.failed" | "error" => {
                let e = if kind == "error" { &event } else { &event["response"]["error"] };
                let kind = e["code"].as_str().or(e["type"].as_str()).unwrap_or("api_error").to_string();
                let message = e["message"].as_str().unwrap_or("the response failed").to_string();
                return Err(ModelError::Api { status: None, kind, message, retry_after: None });
            }
            _ => {}
        }
        Ok(out)
    }
}
