//! OpenAI Chat Completions stream chunks turned into the Messages API's stream events,
//! so that one [`Assembler`](crate::Assembler) builds the assistant message for every
//! provider. Text streams through as it comes; tool calls, whose argument fragments may
//! interleave across parallel calls, are gathered per call index and emitted whole at
//! the end. Usage may come in a last chunk with no choices, or never (some local servers).

use std::collections::BTreeMap;

use rein_protocol::{BlockDelta, ContentBlock, MessageDeltaBody, MessageStartBody, StreamEvent, ToolUse, Usage};
use serde::Deserialize;
use serde_json::Value;

use crate::ModelError;

#[derive(Deserialize, Default)]
struct Chunk {
    #[serde(default)]
    id: String,
    #[serde(default)]
    model: String,
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<ChatUsage>,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize, Default)]
struct Choice {
    #[serde(default)]
    delta: Delta,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<CallDelta>,
}

#[derive(Deserialize)]
struct CallDelta {
    #[serde(default)]
    index: Option<u64>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Deserialize, Clone, Copy)]
struct ChatUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize, Clone, Copy)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: u64,
}

#[derive(Default)]
struct Call {
    id: String,
    name: String,
    arguments: String,
}

/// The translation of one response.
#[derive(Default)]
pub(crate) struct ChatTranslator {
    started: bool,
    text_index: Option<usize>,
    next_index: usize,
    calls: BTreeMap<u64, Call>,
    finish_reason: Option<String>,
    usage: Option<ChatUsage>,
    ended: bool,
}

impl ChatTranslator {
    /// The events for one `data:` chunk.
    pub(crate) fn push(&mut self, data: &str) -> Result<Vec<StreamEvent>, ModelError> {
        let chunk: Chunk = serde_json::from_str(data)
            .map_err(|e| ModelError::Protocol(format!("a stream chunk is not JSON ({e}): {data}")))?;
        if let Some(error) = chunk.error {
            let kind = error["type"].as_str().or(error["code"].as_str()).unwrap_or("api_error").to_string();
            let message = error["message"].as_str().unwrap_or("error").to_string();
            return Err(ModelError::Api { status: None, kind, message, retry_after: None });
        }
        let mut out = Vec::new();
        if !self.started {
            self.started = true;
            out.push(StreamEvent::MessageStart {
                message: MessageStartBody { id: chunk.id, model: chunk.model, usage: Usage::default() },
            });
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(usage);
        }
        for choice in chunk.choices.into_iter().take(1) {
            if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
                let index = *self.text_index.get_or_insert_with(|| {
                    let i = self.next_index;
                    self.next_index += 1;
                    out.push(StreamEvent::ContentBlockStart { index: i, content_block: ContentBlock::text("") });
                    i
                });
                out.push(StreamEvent::ContentBlockDelta { index, delta: BlockDelta::TextDelta { text } });
            }
            for (position, delta) in choice.delta.tool_calls.into_iter().enumerate() {
                let call = self.calls.entry(delta.index.unwrap_or(position as u64)).or_default();
                if let Some(id) = delta.id.filter(|i| !i.is_empty()) {
                    call.id = id;
                }
                if let Some(f) = delta.function {
                    if let Some(name) = f.name.filter(|n| !n.is_empty() && call.name.is_empty()) {
                        call.name = name;
                    }
                    call.arguments.push_str(f.arguments.as_deref().unwrap_or(""));
                }
            }
            if choice.finish_reason.is_some() {
                self.finish_reason = choice.finish_reason;
            }
        }
        Ok(out)
    }

    /// Whether the response said why it stopped (a body ending after that is complete).
    pub(crate) fn has_finished(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// The closing events: the text block's stop, each tool call whole, the stop reason
    /// and usage, `message_stop`.
    pub(crate) fn finish(&mut self) -> Vec<StreamEvent> {
        if self.ended {
            return Vec::new();
        }
        self.ended = true;
        let mut out = Vec::new();
        if let Some(index) = self.text_index {
            out.push(StreamEvent::ContentBlockStop { index });
        }
        let calls = std::mem::take(&mut self.calls);
        let has_calls = !calls.is_empty();
        for (n, call) in calls.into_values().enumerate() {
            let index = self.next_index;
            self.next_index += 1;
            let id = if call.id.is_empty() { format!("call_{n}") } else { call.id };
            let start =
                ContentBlock::ToolUse(ToolUse { id, name: call.name, input: Value::Object(Default::default()) });
            out.push(StreamEvent::ContentBlockStart { index, content_block: start });
            let args = if call.arguments.trim().is_empty() { "{}".to_string() } else { call.arguments };
            out.push(StreamEvent::ContentBlockDelta {
                index,
                delta: BlockDelta::InputJsonDelta { partial_json: args },
            });
            out.push(StreamEvent::ContentBlockStop { index });
        }
        let stop_reason = match self.finish_reason.as_deref() {
            _ if has_calls => "tool_use",
            Some("length") => "max_tokens",
            Some("content_filter") => "refusal",
            _ => "end_turn",
        };
        let usage = self.usage.map_or_else(Usage::default, |u| {
            let cached = u.prompt_tokens_details.map_or(0, |d| d.cached_tokens);
            Usage {
                input_tokens: u.prompt_tokens.saturating_sub(cached),
                output_tokens: u.completion_tokens,
                cache_read_input_tokens: cached,
                ..Usage::default()
            }
        });
        out.push(StreamEvent::MessageDelta {
            delta: MessageDeltaBody { stop_reason: Some(stop_reason.to_string()), stop_sequence: None },
            usage,
        });
        out.push(StreamEvent::MessageStop);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Assembler, ModelEvent};
    use serde_json::json;

    fn assemble(chunks: &[Value]) -> rein_protocol::Message {
        let mut t = ChatTranslator::default();
        let mut a = Assembler::new();
        let mut events: Vec<StreamEvent> = Vec::new();
        for c in chunks {
            events.extend(t.push(&c.to_string()).unwrap());
        }
        events.extend(t.finish());
        let mut done = None;
        for e in events {
            for m in a.on_event(e).unwrap() {
                if let ModelEvent::MessageDone(m) = m {
                    done = Some(m.to_message());
                }
            }
        }
        done.unwrap()
    }

    fn call(index: u64, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
        let mut f = json!({"arguments": args});
        if let Some(n) = name {
            f["name"] = json!(n);
        }
        let mut c = json!({"index": index, "type": "function", "function": f});
        if let Some(id) = id {
            c["id"] = json!(id);
        }
        json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [c]}, "finish_reason": null}]})
    }

    #[test]
    fn two_parallel_calls_in_interleaved_chunks_become_two_whole_tool_uses() {
        let m = assemble(&[
            json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Looking."}}]}),
            call(0, Some("call_a"), Some("Glob"), ""),
            call(1, Some("call_b"), Some("Grep"), "{\"pat"),
            call(0, None, None, "{\"pattern\":"),
            call(1, None, None, "tern\":\"fn\"}"),
            call(0, None, None, "\"*.rs\"}"),
            json!({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"id": "c1", "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 60}}}),
        ]);
        let uses: Vec<_> = m.tool_uses().map(|u| (u.id.clone(), u.name.clone(), u.input.clone())).collect();
        assert_eq!(
            uses,
            [
                ("call_a".into(), "Glob".into(), json!({"pattern": "*.rs"})),
                ("call_b".into(), "Grep".into(), json!({"pattern": "fn"}))
            ]
        );
        assert_eq!(m.text(), "Looking.");
    }

    #[test]
    fn usage_at_the_end_or_never_and_length_is_max_tokens() {
        let mut t = ChatTranslator::default();
        t.push(&json!({"choices": [{"delta": {"content": "hi"}, "finish_reason": "length"}]}).to_string()).unwrap();
        assert!(t.has_finished());
        let end = t.finish();
        let Some(StreamEvent::MessageDelta { delta, usage }) = end.iter().rev().nth(1).cloned() else { panic!() };
        assert_eq!(delta.stop_reason.as_deref(), Some("max_tokens"));
        assert_eq!(usage, Usage::default());
        assert!(t.finish().is_empty(), "finishing twice adds nothing");
    }

    #[test]
    fn an_error_chunk_is_an_error() {
        let mut t = ChatTranslator::default();
        let e = t.push(r#"{"error": {"message": "model not found", "type": "invalid_request_error"}}"#).unwrap_err();
        assert_eq!(e.to_string(), "API error invalid_request_error: model not found");
        assert!(t.push("not json").is_err());
    }
}
