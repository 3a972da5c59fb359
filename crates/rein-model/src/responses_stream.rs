//! OpenAI Responses API stream events turned into the Messages API's stream events.
//! Output items map to content blocks: `message` text to `text`, `function_call` to
//! `tool_use` (its `call_id` as the id), and `reasoning` items to an opaque block
//! (`openai_reasoning`) that is kept in the conversation and sent back as it came, as
//! the Responses API wants across turns. `response.completed` carries the usage.

use std::collections::BTreeMap;

use rein_protocol::{
    BlockDelta, ContentBlock, MessageDeltaBody, MessageStartBody, ServerToolUse, StreamEvent, ToolUse, Usage,
};
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
    /// `web_search_call` items seen: the searches the provider ran.
    searches: u64,
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

/// A `web_search_call` item as the Messages API's blocks: the call (its query) and, when
/// the item lists its sources, their results.
fn search_blocks(item: &Value) -> Vec<Value> {
    let id = item["id"].as_str().unwrap_or("ws");
    let query = &item["action"]["query"];
    let mut blocks =
        vec![json!({"type": "server_tool_use", "id": id, "name": "web_search", "input": {"query": query}})];
    if let Some(sources) = item["action"]["sources"].as_array().filter(|s| !s.is_empty()) {
        let results: Vec<Value> = sources
            .iter()
            .filter_map(|s| s["url"].as_str().map(|url| (url, s["title"].as_str().unwrap_or(url))))
            .map(|(url, title)| json!({"type": "web_search_result", "url": url, "title": title}))
            .collect();
        blocks.push(json!({"type": "web_search_tool_result", "tool_use_id": id, "content": results}));
    }
    blocks
}

/// The `url_citation` annotations of a message item, as a web search result block.
fn citations(item: &Value) -> Option<Value> {
    let results: Vec<Value> = item["content"]
        .as_array()?
        .iter()
        .flat_map(|part| part["annotations"].as_array().into_iter().flatten())
        .filter(|a| a["type"] == "url_citation")
        .filter_map(|a| {
            let url = a["url"].as_str()?;
            Some(json!({"type": "web_search_result", "url": url, "title": a["title"].as_str().unwrap_or(url)}))
        })
        .collect();
    (!results.is_empty())
        .then(|| json!({"type": "web_search_tool_result", "tool_use_id": "citations", "content": results}))
}

impl ResponsesTranslator {
    /// A block that arrives whole: started and stopped at once.
    fn whole_block(&mut self, out: &mut Vec<StreamEvent>, block: Value) {
        let index = self.next_index;
        self.next_index += 1;
        out.push(StreamEvent::ContentBlockStart { index, content_block: ContentBlock::Other(block) });
        out.push(StreamEvent::ContentBlockStop { index });
    }

    pub(crate) fn is_ended(&self) -> bool {
        self.ended
    }

    /// The events for one `data:` payload.
    pub(crate) fn push(&mut self, data: &str) -> Result<Vec<StreamEvent>, ModelError> {
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
                    if let Some(cited) = citations(item) {
                        self.whole_block(&mut out, cited);
                    }
                } else if item["type"] == "web_search_call" {
                    self.searches += 1;
                    for block in search_blocks(item) {
                        self.whole_block(&mut out, block);
                    }
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
                let mut usage = usage_of(response);
                if self.searches > 0 {
                    usage.server_tool_use =
                        Some(ServerToolUse { web_search_requests: self.searches, web_fetch_requests: 0 });
                }
                out.push(StreamEvent::MessageDelta {
                    delta: MessageDeltaBody { stop_reason: Some(stop.into()), stop_sequence: None },
                    usage,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(events: &[Value]) -> Vec<StreamEvent> {
        let mut t = ResponsesTranslator::default();
        events.iter().flat_map(|e| t.push(&e.to_string()).unwrap()).collect()
    }

    #[test]
    fn a_web_search_becomes_the_messages_apis_blocks_and_is_counted() {
        let events = feed(&[
            json!({"type": "response.created", "response": {"id": "r", "model": "gpt"}}),
            json!({"type": "response.output_item.done", "output_index": 0, "item": {"type": "web_search_call",
                "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "rust 2026",
                "sources": [{"type": "url", "url": "https://a.example/"}]}}}),
            json!({"type": "response.output_item.added", "output_index": 1, "item": {"type": "message"}}),
            json!({"type": "response.output_text.delta", "output_index": 1, "delta": "Rust is fine."}),
            json!({"type": "response.output_item.done", "output_index": 1, "item": {"type": "message", "content": [
            {"type": "output_text", "text": "Rust is fine.", "annotations": [
                {"type": "url_citation", "url": "https://b.example/", "title": "B", "start_index": 0, "end_index": 4}
            ]}]}}),
            json!({"type": "response.completed", "response": {"usage": {"input_tokens": 3, "output_tokens": 4}}}),
        ]);
        let blocks: Vec<&Value> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ContentBlockStart { content_block: ContentBlock::Other(v), .. } => Some(v),
                _ => None,
            })
            .collect();
        assert_eq!(blocks[0]["type"], "server_tool_use");
        assert_eq!(blocks[0]["input"]["query"], "rust 2026");
        assert_eq!(blocks[1]["content"][0]["url"], "https://a.example/");
        assert_eq!(
            blocks[2]["content"][0],
            json!({"type": "web_search_result", "url": "https://b.example/", "title": "B"})
        );
        let searches = events.iter().find_map(|e| match e {
            StreamEvent::MessageDelta { usage, .. } => Some(usage.web_searches()),
            _ => None,
        });
        assert_eq!(searches, Some(1));
    }
}
