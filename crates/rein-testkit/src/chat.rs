//! The fake server's Chat Completions wire format: a scripted reply as `data:` chunks
//! the way OpenAI-compatible servers stream them — text in pieces, parallel tool calls
//! whose argument fragments interleave, a finish reason, usage in a last chunk with no
//! choices (unless the reply asks for none), then `data: [DONE]`.

use rein_protocol::ContentBlock;
use serde_json::{Value, json};

use crate::Reply;

const TEXT_CHUNK: usize = 16;
const ARGS_CHUNK: usize = 7;

fn pieces(s: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(size.max(1)).map(|c| c.iter().collect()).collect()
}

fn data(v: &Value) -> String {
    format!("data: {v}\n\n")
}

/// The chunks of `reply`, each a whole `data:` event.
pub fn chat_chunks(reply: &Reply, id: &str) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        data(&json!({"id": id, "object": "chat.completion.chunk", "model": reply.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
    };
    let mut out = vec![chunk(json!({"role": "assistant", "content": ""}), Value::Null)];
    let mut calls = Vec::new();
    for block in &reply.blocks {
        match block {
            ContentBlock::Text { text } => {
                out.extend(pieces(text, TEXT_CHUNK).into_iter().map(|t| chunk(json!({"content": t}), Value::Null)));
            }
            ContentBlock::ToolUse(u) => calls.push(u.clone()),
            _ => {}
        }
    }
    // Each call opens with its id and name; then argument fragments round-robin.
    for (i, call) in calls.iter().enumerate() {
        let tc =
            json!([{"index": i, "id": call.id, "type": "function", "function": {"name": call.name, "arguments": ""}}]);
        out.push(chunk(json!({"tool_calls": tc}), Value::Null));
    }
    let fragments: Vec<Vec<String>> = calls.iter().map(|c| pieces(&c.input.to_string(), ARGS_CHUNK)).collect();
    let longest = fragments.iter().map(Vec::len).max().unwrap_or(0);
    for n in 0..longest {
        for (i, f) in fragments.iter().enumerate() {
            if let Some(piece) = f.get(n) {
                let tc = json!([{"index": i, "function": {"arguments": piece}}]);
                out.push(chunk(json!({"tool_calls": tc}), Value::Null));
            }
        }
    }
    let finish = match reply.stop_reason.as_deref() {
        Some("max_tokens") => "length",
        _ if !calls.is_empty() => "tool_calls",
        _ => "stop",
    };
    out.push(chunk(json!({}), json!(finish)));
    if !reply.omit_usage {
        let u = &reply.usage;
        out.push(data(&json!({"id": id, "object": "chat.completion.chunk", "model": reply.model, "choices": [],
            "usage": {"prompt_tokens": u.input_tokens + u.cache_read_input_tokens, "completion_tokens": u.output_tokens,
                "prompt_tokens_details": {"cached_tokens": u.cache_read_input_tokens}}})));
    }
    if !reply.omit_message_stop {
        out.push("data: [DONE]\n\n".to_string());
    }
    out
}
