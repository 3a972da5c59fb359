//! The fake server's OpenAI Responses wire format: a scripted reply as `event:`/`data:`
//! pairs — `response.created`, each output item added, its deltas, done, then
//! `response.completed` with usage. A thinking block of the reply becomes a `reasoning`
//! item whose `encrypted_content` is the block's signature.

use rein_protocol::ContentBlock;
use serde_json::{Value, json};

use crate::Reply;

fn event(kind: &str, mut body: Value) -> String {
    body["type"] = json!(kind);
    format!("event: {kind}\ndata: {body}\n\n")
}

fn pieces(s: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

/// The events of `reply`.
pub fn responses_events(reply: &Reply, id: &str) -> Vec<String> {
    let response = json!({"id": id, "object": "response", "model": reply.model, "status": "in_progress"});
    let mut out = vec![event("response.created", json!({"response": response}))];
    let mut has_calls = false;
    for (n, block) in reply.blocks.iter().enumerate() {
        let at = json!(n);
        match block {
            ContentBlock::Text { text } => {
                let item = json!({"type": "message", "id": format!("msg_{n}"), "role": "assistant", "content": []});
                out.push(event("response.output_item.added", json!({"output_index": at, "item": item})));
                for piece in pieces(text, 16) {
                    out.push(event(
                        "response.output_text.delta",
                        json!({"output_index": at, "content_index": 0, "delta": piece}),
                    ));
                }
                let done = json!({"type": "message", "id": format!("msg_{n}"), "role": "assistant",
                    "content": [{"type": "output_text", "text": text}]});
                out.push(event("response.output_item.done", json!({"output_index": at, "item": done})));
            }
            ContentBlock::ToolUse(u) => {
                has_calls = true;
                let item = json!({"type": "function_call", "id": format!("fc_{n}"), "call_id": u.id, "name": u.name, "arguments": ""});
                out.push(event("response.output_item.added", json!({"output_index": at, "item": item})));
                let args = u.input.to_string();
                for piece in pieces(&args, 7) {
                    out.push(event(
                        "response.function_call_arguments.delta",
                        json!({"output_index": at, "delta": piece}),
                    ));
                }
                let done = json!({"type": "function_call", "id": format!("fc_{n}"), "call_id": u.id, "name": u.name, "arguments": args});
                out.push(event("response.output_item.done", json!({"output_index": at, "item": done})));
            }
            ContentBlock::Thinking { thinking, signature } => {
                let item = json!({"type": "reasoning", "id": format!("rs_{n}"), "summary": []});
                out.push(event("response.output_item.added", json!({"output_index": at, "item": item})));
                let done = json!({"type": "reasoning", "id": format!("rs_{n}"),
                    "summary": [{"type": "summary_text", "text": thinking}], "encrypted_content": signature});
                out.push(event("response.output_item.done", json!({"output_index": at, "item": done})));
            }
            // A Responses output item given as it is (a `web_search_call`).
            ContentBlock::Other(item) if item["type"] == "web_search_call" => {
                out.push(event("response.output_item.added", json!({"output_index": at, "item": item})));
                out.push(event("response.output_item.done", json!({"output_index": at, "item": item})));
            }
            _ => {}
        }
    }
    let u = &reply.usage;
    let usage = json!({"input_tokens": u.input_tokens + u.cache_read_input_tokens, "output_tokens": u.output_tokens,
        "input_tokens_details": {"cached_tokens": u.cache_read_input_tokens}});
    let truncated = reply.stop_reason.as_deref() == Some("max_tokens") && !has_calls;
    let (kind, status) =
        if truncated { ("response.incomplete", "incomplete") } else { ("response.completed", "completed") };
    let mut done = json!({"id": id, "object": "response", "model": reply.model, "status": status, "usage": usage});
    if truncated {
        done["incomplete_details"] = json!({"reason": "max_output_tokens"});
    }
    if !reply.omit_message_stop {
        out.push(event(kind, json!({"response": done})));
    }
    out
}
