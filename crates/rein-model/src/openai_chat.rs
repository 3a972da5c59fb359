//! The OpenAI-compatible Chat Completions provider (`POST {base}/chat/completions` with
//! streamed `tool_calls`), which OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio,
//! OpenRouter, DeepSeek and Groq all speak. Requests are translated from the Messages
//! shape; the stream is translated back into Messages events (see `chat_stream`), so
//! the engine, its recovery steps and the cost accounting see one format.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use rein_protocol::{ContentBlock, DocumentSource, ImageSource, Message, Role, ToolSpec};
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

use crate::anthropic::{error_chain, error_response};
use crate::chat_stream::ChatTranslator;
use crate::openai_cache::{TranslationCache, array};
use crate::responses_stream::ResponsesTranslator;
use crate::sse_body::{Wire, model_events};
use crate::{Assembler, Model, ModelError, ModelEvent, ModelRequest, ModelStream};
use rein_protocol::StreamEvent;
use serde::Serialize;
use serde_json::value::RawValue;

const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Endpoint and optional key (local servers need none).
#[derive(Clone)]
pub struct OpenAiConfig {
    pub base_url: String,
    pub api_key: Option<String>,
}

impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig").field("base_url", &self.base_url).finish_non_exhaustive()
    }
}

impl OpenAiConfig {
    /// `OPENAI_BASE_URL` (default the OpenAI API) and `OPENAI_API_KEY`, read through `var`.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        let nonempty = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        OpenAiConfig {
            base_url: nonempty("OPENAI_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_string()),
            api_key: nonempty("OPENAI_API_KEY"),
        }
    }
}

/// Which OpenAI API a client speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenAiWire {
    /// `POST {base}/chat/completions`.
    ChatCompletions,
    /// `POST {base}/responses`.
    Responses,
}

/// Streams responses from `POST {base}/chat/completions` or `{base}/responses`.
#[derive(Clone)]
pub struct OpenAiChatClient {
    wire: OpenAiWire,
    http: reqwest::Client,
    endpoint: reqwest::Url,
    headers: HeaderMap,
    /// `max_completion_tokens` (OpenAI's own API) or `max_tokens` (everyone else).
    completion_tokens_field: &'static str,
    /// The tools and messages translated once.
    cache: Arc<Mutex<TranslationCache>>,
}

#[derive(Serialize)]
struct ChatBody<'a> {
    model: &'a str,
    messages: &'a RawValue,
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tools: Option<&'a RawValue>,
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

impl OpenAiChatClient {
    pub fn new(config: &OpenAiConfig, wire: OpenAiWire) -> Result<Self, ModelError> {
        let path = match wire {
            OpenAiWire::ChatCompletions => "chat/completions",
            OpenAiWire::Responses => "responses",
        };
        let text = format!("{}/{path}", config.base_url.trim_end_matches('/'));
        let endpoint = crate::http::endpoint(&config.base_url, &text)?;
        let mut headers = crate::http::json_headers("text/event-stream");
        if let Some(key) = &config.api_key {
            headers.insert(reqwest::header::AUTHORIZATION, crate::http::bearer(key, "OPENAI_API_KEY")?);
        }
        let openai = endpoint.host_str() == Some("api.openai.com");
        let completion_tokens_field = if openai { "max_completion_tokens" } else { "max_tokens" };
        let http = crate::http::client(&endpoint)?;
        Ok(OpenAiChatClient { wire, http, endpoint, headers, completion_tokens_field, cache: Arc::default() })
    }

    /// The request body in the Chat Completions or Responses shape.
    pub fn body(&self, request: &ModelRequest) -> Result<Vec<u8>, ModelError> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        let bad = |e: serde_json::Error| ModelError::Request(e.to_string());
        let tools = if request.tools.is_empty() {
            None
        } else {
            Some(cache.tools(&request.tools, |tools| match self.wire {
                OpenAiWire::ChatCompletions => Value::Array(tools.iter().map(tool_json).collect()),
                OpenAiWire::Responses => crate::responses_body::responses_tools(tools),
            })?)
        };
        if self.wire == OpenAiWire::Responses {
            let items = cache.items(&request.messages, crate::responses_body::push_items)?;
            let input = array(None, &items)?;
            if let Some(search) = &request.web_search {
                let tools = crate::responses_body::with_web_search(tools.as_deref(), search)?;
                return crate::responses_body::responses_body(request, Some(&tools), &input);
            }
            return crate::responses_body::responses_body(request, tools.as_deref(), &input);
        }
        let items = cache.items(&request.messages, push_message)?;
        let system = (!request.system.is_empty())
            .then(|| serde_json::to_string(&json!({"role": "system", "content": request.system.text()})))
            .transpose()
            .map_err(bad)?;
        let messages = array(system, &items)?;
        let openai = self.completion_tokens_field == "max_completion_tokens";
        let body = ChatBody {
            model: &request.model,
            messages: &messages,
            stream: true,
            stream_options: StreamOptions { include_usage: true },
            max_completion_tokens: openai.then_some(request.max_tokens),
            max_tokens: (!openai).then_some(request.max_tokens),
            tools: tools.as_deref(),
        };
        serde_json::to_vec(&body).map_err(bad)
    }

    async fn open(self, request: ModelRequest) -> Result<reqwest::Response, ModelError> {
        let body = self.body(&request)?;
        let response = self
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .body(body)
            .send()
            .await
            .map_err(|e| ModelError::Connect { url: self.endpoint.to_string(), reason: error_chain(&e) })?;
        if response.status().is_success() { Ok(response) } else { Err(error_response(response).await) }
    }
}

fn tool_json(t: &ToolSpec) -> Value {
    json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}})
}

/// One Messages message as Chat messages: tool results become `tool` messages (first,
/// right after the calls), the rest one `user` or `assistant` message. Thinking is the
/// Anthropic model's own and is left out.
fn push_message(out: &mut Vec<Value>, m: &Message) {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    for block in &m.content {
        match block {
            ContentBlock::Text { text } if !text.is_empty() => parts.push(json!({"type": "text", "text": text})),
            ContentBlock::Image { source } => {
                let url = match source {
                    ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
                    ImageSource::Url { url } => url.clone(),
                };
                parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
            }
            ContentBlock::Document { source: DocumentSource::Base64 { media_type, data }, title } => {
                let filename = title.clone().unwrap_or_else(|| "document.pdf".into());
                let file_data = format!("data:{media_type};base64,{data}");
                parts.push(json!({"type": "file", "file": {"filename": filename, "file_data": file_data}}));
            }
            ContentBlock::ToolUse(u) => calls.push(json!({"id": u.id, "type": "function",
                "function": {"name": u.name, "arguments": u.input.to_string()}})),
            ContentBlock::ToolResult { tool_use_id, content, is_error } => {
                let text = content.to_text();
                let text = if *is_error { format!("Error: {text}") } else { text };
                out.push(json!({"role": "tool", "tool_call_id": tool_use_id, "content": text}));
            }
            _ => {}
        }
    }
    let only_text = parts.iter().all(|p| p["type"] == "text");
    let content = if parts.is_empty() {
        Value::Null
    } else if only_text || m.role == Role::Assistant {
        Value::String(parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"))
    } else {
        Value::Array(parts)
    };
    match m.role {
        Role::Assistant => {
            let mut msg = json!({"role": "assistant", "content": content});
            if !calls.is_empty() {
                msg["tool_calls"] = Value::Array(calls);
            }
            out.push(msg);
        }
        Role::User if !content.is_null() => out.push(json!({"role": "user", "content": content})),
        Role::User => {}
    }
}

impl Model for OpenAiChatClient {
    fn stream(&self, request: ModelRequest) -> ModelStream {
        let client = self.clone();
        let wire = self.wire;
        let opened = futures::stream::once(client.open(request));
        Box::pin(opened.flat_map(move |result| -> ModelStream {
            match result {
                Ok(response) => Box::pin(model_events(
                    response,
                    match wire {
                        OpenAiWire::ChatCompletions => Translator::Chat(ChatTranslator::default()),
                        OpenAiWire::Responses => Translator::Responses(ResponsesTranslator::default()),
                    },
                )),
                Err(e) => Box::pin(futures::stream::iter([Err(e)])),
            }
        }))
    }
}

/// One of the two stream translations, fed to the assembler.
enum Translator {
    Chat(ChatTranslator),
    Responses(ResponsesTranslator),
}

fn assemble(assembler: &mut Assembler, events: Vec<StreamEvent>) -> Result<Vec<ModelEvent>, ModelError> {
    let mut out = Vec::new();
    for e in events {
        out.extend(assembler.on_event(e)?);
    }
    Ok(out)
}

impl Wire for Translator {
    fn event(&mut self, assembler: &mut Assembler, _name: &str, data: &str) -> Result<Vec<ModelEvent>, ModelError> {
        let events = match self {
            _ if data.trim() == "[DONE]" => return self.end(assembler),
            _ if data.trim().is_empty() => Vec::new(),
            Translator::Chat(t) => t.push(data)?,
            Translator::Responses(t) => t.push(data)?,
        };
        assemble(assembler, events)
    }

    /// The closing events at `[DONE]` or the end of the body, if the response is whole.
    fn end(&mut self, assembler: &mut Assembler) -> Result<Vec<ModelEvent>, ModelError> {
        let events = match self {
            Translator::Chat(t) if t.has_finished() => t.finish(),
            Translator::Responses(t) if t.is_ended() => Vec::new(),
            _ if assembler.is_finished() => Vec::new(),
            _ => return Err(ModelError::Incomplete),
        };
        assemble(assembler, events)
    }
}
