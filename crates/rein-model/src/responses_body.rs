//! A request in the OpenAI Responses shape (`POST {base}/responses`): the system prompt
//! as `instructions`, the conversation as input items — user messages, assistant
//! messages, `function_call` / `function_call_output` pairs and the `reasoning` items
//! the model produced, sent back unchanged — and the tools as functions.

use rein_protocol::{ContentBlock, DocumentSource, ImageSource, Message, Role};
use serde_json::{Value, json};

use serde::Serialize;
use serde_json::value::RawValue;

use crate::responses_stream::REASONING_BLOCK;
use crate::{ModelError, ModelRequest};

#[derive(Serialize)]
struct ResponsesBody<'a> {
    model: &'a str,
    input: &'a RawValue,
    stream: bool,
    store: bool,
    max_output_tokens: u32,
    include: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a RawValue>,
}

/// The body, from the translated tools array and input items.
pub(crate) fn responses_body(
    request: &ModelRequest,
    tools: Option<&RawValue>,
    input: &RawValue,
) -> Result<Vec<u8>, ModelError> {
    let body = ResponsesBody {
        model: &request.model,
        input,
        stream: true,
        store: false,
        max_output_tokens: request.max_tokens,
        include: ["reasoning.encrypted_content"],
        instructions: (!request.system.is_empty()).then(|| request.system.text()),
        tools,
    };
    serde_json::to_vec(&body).map_err(|e| ModelError::Request(e.to_string()))
}

/// The tools as Responses functions.
pub(crate) fn responses_tools(tools: &[rein_protocol::ToolSpec]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| json!({"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema}))
            .collect(),
    )
}

/// The tools array with the provider's web search added.
pub(crate) fn with_web_search(
    tools: Option<&RawValue>,
    search: &crate::WebSearch,
) -> Result<Box<RawValue>, ModelError> {
    let bad = |e: serde_json::Error| ModelError::Request(e.to_string());
    let mut all: Vec<Value> = match tools {
        Some(t) => serde_json::from_str(t.get()).map_err(bad)?,
        None => Vec::new(),
    };
    all.push(search.responses_tool());
    serde_json::value::to_raw_value(&all).map_err(bad)
}

/// One message as Responses input items.
pub(crate) fn push_items(out: &mut Vec<Value>, m: &Message) {
    let mut parts = Vec::new();
    let flush_text = |out: &mut Vec<Value>, parts: &mut Vec<Value>| {
        if !parts.is_empty() {
            let role = if m.role == Role::Assistant { "assistant" } else { "user" };
            out.push(json!({"type": "message", "role": role, "content": std::mem::take(parts)}));
        }
    };
    for block in &m.content {
        match block {
            ContentBlock::Text { text } if !text.is_empty() => {
                let kind = if m.role == Role::Assistant { "output_text" } else { "input_text" };
                parts.push(json!({"type": kind, "text": text}));
            }
            ContentBlock::Image { source } => {
                let url = match source {
                    ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
                    ImageSource::Url { url } => url.clone(),
                };
                parts.push(json!({"type": "input_image", "image_url": url}));
            }
            ContentBlock::Document { source: DocumentSource::Base64 { media_type, data }, title } => {
                let filename = title.clone().unwrap_or_else(|| "document.pdf".into());
                let file_data = format!("data:{media_type};base64,{data}");
                parts.push(json!({"type": "input_file", "filename": filename, "file_data": file_data}));
            }
            ContentBlock::ToolUse(u) => {
                flush_text(out, &mut parts);
                out.push(
                    json!({"type": "function_call", "call_id": u.id, "name": u.name, "arguments": u.input.to_string()}),
                );
            }
            ContentBlock::ToolResult { tool_use_id, content, is_error } => {
                let text = content.to_text();
                let output = if *is_error { format!("Error: {text}") } else { text };
                out.push(json!({"type": "function_call_output", "call_id": tool_use_id, "output": output}));
            }
            ContentBlock::Other(v) if v["type"] == REASONING_BLOCK => {
                flush_text(out, &mut parts);
                out.push(v["item"].clone());
            }
            _ => {}
        }
    }
    flush_text(out, &mut parts);
}
