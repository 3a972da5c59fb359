//! A model request and its messages, each serialised once and kept (`CachedMessage`), so
//! a long session never re-serialises its whole history per turn.

use std::sync::Arc;

use rein_protocol::{Message, ToolSpec};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::ModelError;
use crate::system::{CacheControl, CacheTtl, System, SystemBlock};
use crate::thinking::{BETA_CONTEXT_MANAGEMENT, BETA_EFFORT, BETA_INTERLEAVED, Effort, Reasoning, Thinking};

/// A message together with its JSON, serialised once when it enters the conversation so
/// that a request never re-serialises the whole history.
#[derive(Debug)]
pub struct CachedMessage {
    message: Message,
    json: Box<RawValue>,
    /// What the message weighs for the token estimate, in text bytes: its JSON without
    /// the base64 of its images and documents, plus what those cost (four bytes a token).
    estimate_bytes: usize,
}

impl CachedMessage {
    pub fn new(message: Message) -> Result<Self, ModelError> {
        let json = serde_json::value::to_raw_value(&message).map_err(|e| ModelError::Request(e.to_string()))?;
        let mut media = rein_protocol::MediaWeight::default();
        for block in &message.content {
            media.add(block.media_weight());
        }
        let estimate_bytes = json.get().len().saturating_sub(media.payload_bytes) + media.tokens as usize * 4;
        Ok(CachedMessage { message, json, estimate_bytes })
    }

    /// Its weight for the token estimate, in text bytes (see the field).
    pub fn estimate_bytes(&self) -> usize {
        self.estimate_bytes
    }

    pub fn message(&self) -> &Message {
        &self.message
    }

    pub fn json(&self) -> &RawValue {
        &self.json
    }
}

/// Everything one request needs. Cloning is cheap: the history and tools are shared.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub model: String,
    pub max_tokens: u32,
    pub system: System,
    pub tools: Arc<[ToolSpec]>,
    pub messages: Vec<Arc<CachedMessage>>,
    /// Prompt-cache breakpoints and their lifetime; `None` sends no `cache_control`
    /// (`DISABLE_PROMPT_CACHING`).
    pub cache: Option<CacheTtl>,
    /// Thinking and effort.
    pub reasoning: Reasoning,
    /// The provider's web search, offered as a server tool (WebSearch's own request).
    pub web_search: Option<crate::WebSearch>,
}

#[derive(Serialize)]
struct OutputConfig {
    effort: Effort,
}

/// Clear the thinking of old turns (the API keeps the most recent).
#[derive(Serialize)]
struct ContextManagement {
    edits: [Edit; 1],
}

#[derive(Serialize)]
struct Edit {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The `anthropic_version` Vertex expects in the body.
pub const VERTEX_ANTHROPIC_VERSION: &str = "vertex-2023-10-16";
/// The `anthropic_version` Bedrock expects in the body.
pub const BEDROCK_ANTHROPIC_VERSION: &str = "bedrock-2023-05-31";

/// Where a Messages body goes: each host wants a slightly different envelope.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Host<'a> {
    /// The Messages API: `model` and `stream` in the body.
    Messages,
    /// Vertex AI: the model is in the URL; an `anthropic_version`.
    Vertex,
    /// Bedrock: the model is in the URL and the endpoint streams; an
    /// `anthropic_version`, and the betas in the body.
    Bedrock { betas: &'a [&'a str] },
}

#[derive(Serialize)]
struct Body<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    max_tokens: u32,
    #[serde(skip_serializing_if = "SystemField::is_empty")]
    system: SystemField<'a>,
    messages: Vec<&'a RawValue>,
    #[serde(skip_serializing_if = "<[ToolEntry]>::is_empty")]
    tools: Vec<ToolEntry<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<&'a Thinking>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context_management: Option<ContextManagement>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    anthropic_version: Option<&'static str>,
    #[serde(skip_serializing_if = "<[&str]>::is_empty")]
    anthropic_beta: &'a [&'a str],
}

/// `system` as a plain string, or as blocks ending in breakpoints.
#[derive(Serialize)]
#[serde(untagged)]
enum SystemField<'a> {
    Text(&'a str),
    Blocks(Vec<SystemBlock<'a>>),
}

impl SystemField<'_> {
    fn is_empty(&self) -> bool {
        match self {
            SystemField::Text(t) => t.is_empty(),
            SystemField::Blocks(b) => b.is_empty(),
        }
    }
}

/// One entry of the tools array: a client tool, or a server tool the provider runs.
#[derive(Serialize)]
#[serde(untagged)]
enum ToolEntry<'a> {
    Client(CachedTool<'a>),
    Server(serde_json::Value),
}

/// A tool definition; the last one carries the tools array's breakpoint.
#[derive(Serialize)]
struct CachedTool<'a> {
    #[serde(flatten)]
    spec: &'a ToolSpec,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

impl ModelRequest {
    /// The `POST /v1/messages` body with `stream: true`.
    pub fn to_body(&self) -> Result<Vec<u8>, ModelError> {
        self.body_for(Host::Messages)
    }

    /// The body as `host` takes it, serialised once.
    pub(crate) fn body_for(&self, host: Host<'_>) -> Result<Vec<u8>, ModelError> {
        let cache = self.cache.map(CacheControl::from);
        let last_tool = self.tools.len().saturating_sub(1);
        let mut tools: Vec<ToolEntry> = self
            .tools
            .iter()
            .enumerate()
            .map(|(i, spec)| ToolEntry::Client(CachedTool { spec, cache_control: cache.filter(|_| i == last_tool) }))
            .collect();
        tools.extend(self.web_search.as_ref().map(|w| ToolEntry::Server(w.messages_tool())));
        let mut messages: Vec<&RawValue> = self.messages.iter().map(|m| m.json()).collect();
        let marked;
        if let (Some(cache), Some(last)) = (cache, messages.last_mut()) {
            marked = with_breakpoint(last, cache)?;
            *last = &marked;
        }
        let system = match cache {
            Some(cache) => SystemField::Blocks(self.system.blocks(cache)),
            None => SystemField::Text(self.system.text()),
        };
        let thinks = self.reasoning.thinks();
        let (model, stream, anthropic_version, anthropic_beta): (_, _, _, &[&str]) = match host {
            Host::Messages => (Some(self.model.as_str()), Some(true), None, &[]),
            Host::Vertex => (None, Some(true), Some(VERTEX_ANTHROPIC_VERSION), &[]),
            Host::Bedrock { betas } => (None, None, Some(BEDROCK_ANTHROPIC_VERSION), betas),
        };
        let body = Body {
            model,
            max_tokens: self.max_tokens,
            system,
            messages,
            tools,
            thinking: self.reasoning.thinking.as_ref(),
            output_config: self.reasoning.effort.map(|effort| OutputConfig { effort }),
            context_management: thinks
                .then_some(ContextManagement { edits: [Edit { kind: "clear_thinking_20251015" }] }),
            stream,
            anthropic_version,
            anthropic_beta,
        };
        serde_json::to_vec(&body).map_err(|e| ModelError::Request(e.to_string()))
    }
}

impl ModelRequest {
    /// The `anthropic-beta` values this request's fields need.
    pub fn betas(&self) -> Vec<&'static str> {
        let mut betas = Vec::new();
        if self.reasoning.thinks() {
            betas.extend([BETA_INTERLEAVED, BETA_CONTEXT_MANAGEMENT]);
        }
        if self.reasoning.effort.is_some() {
            betas.push(BETA_EFFORT);
        }
        betas
    }
}

/// The newest message again, its last cacheable block carrying a breakpoint. Only this
/// one message is re-serialised per request; the rest of the history is sent as kept.
fn with_breakpoint(message: &RawValue, cache: CacheControl) -> Result<Box<RawValue>, ModelError> {
    let bad = |e: serde_json::Error| ModelError::Request(e.to_string());
    let mut value: serde_json::Value = serde_json::from_str(message.get()).map_err(bad)?;
    let marker = serde_json::to_value(cache).map_err(bad)?;
    if let Some(content) = value.get_mut("content") {
        if let Some(text) = content.as_str() {
            *content = serde_json::json!([{"type": "text", "text": text}]);
        }
        let cacheable = |b: &&mut serde_json::Value| {
            let kind = b.get("type").and_then(|t| t.as_str()).unwrap_or("");
            let empty_text = kind == "text" && b.get("text").and_then(|t| t.as_str()).is_some_and(str::is_empty);
            !matches!(kind, "thinking" | "redacted_thinking") && !empty_text
        };
        let block = content.as_array_mut().and_then(|blocks| blocks.iter_mut().rev().find(cacheable));
        if let Some(serde_json::Value::Object(block)) = block {
            block.insert("cache_control".into(), marker);
        }
    }
    serde_json::value::to_raw_value(&value).map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn body_is_the_messages_api_shape() {
        let req = ModelRequest {
            model: "claude-x".into(),
            max_tokens: 100,
            system: "be brief".into(),
            tools: vec![ToolSpec {
                name: "Read".into(),
                description: "d".into(),
                input_schema: json!({"type":"object"}),
            }]
            .into(),
            messages: vec![Arc::new(CachedMessage::new(Message::user_text("hi")).unwrap())],
            cache: None,
            reasoning: Reasoning::default(),
            web_search: None,
        };
        let body: serde_json::Value = serde_json::from_slice(&req.to_body().unwrap()).unwrap();
        assert_eq!(
            body,
            json!({"model":"claude-x","max_tokens":100,"system":"be brief",
                "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
                "tools":[{"name":"Read","description":"d","input_schema":{"type":"object"}}],
                "stream":true})
        );
        // Vertex AI and Bedrock: the model moves into the URL; Bedrock's endpoint streams
        // and takes the betas in the body.
        let vertex: serde_json::Value = serde_json::from_slice(&req.body_for(Host::Vertex).unwrap()).unwrap();
        assert!(vertex.get("model").is_none() && vertex["stream"] == json!(true));
        assert_eq!(vertex["anthropic_version"], "vertex-2023-10-16");
        let bedrock: serde_json::Value =
            serde_json::from_slice(&req.body_for(Host::Bedrock { betas: &["b1"] }).unwrap()).unwrap();
        assert!(bedrock.get("model").is_none() && bedrock.get("stream").is_none(), "{bedrock}");
        assert_eq!(bedrock["anthropic_version"], "bedrock-2023-05-31");
        assert_eq!(bedrock["anthropic_beta"], json!(["b1"]));
        assert_eq!(bedrock["messages"], body["messages"]);
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use rein_protocol::{ContentBlock, ToolUse};
    use serde_json::{Value, json};

    fn tool(name: &str) -> ToolSpec {
        ToolSpec { name: name.into(), description: "d".into(), input_schema: json!({"type":"object"}) }
    }

    fn cached(m: Message) -> Arc<CachedMessage> {
        Arc::new(CachedMessage::new(m).unwrap())
    }

    fn request(messages: Vec<Arc<CachedMessage>>, cache: Option<CacheTtl>) -> ModelRequest {
        ModelRequest {
            model: "claude-x".into(),
            max_tokens: 100,
            system: System::split("You are rein.\n\n", "cwd: /tmp/p, date 2026-11-30"),
            tools: vec![tool("Read"), tool("Glob")].into(),
            messages,
            cache,
            reasoning: Reasoning::default(),
            web_search: None,
        }
    }

    /// Every `cache_control` in a body, as (JSON pointer, value).
    fn breakpoints(v: &Value, at: String, out: &mut Vec<(String, Value)>) {
        match v {
            Value::Object(map) => map.iter().for_each(|(k, v)| {
                if k == "cache_control" {
                    out.push((at.clone(), v.clone()));
                } else {
                    breakpoints(v, format!("{at}/{k}"), out);
                }
            }),
            Value::Array(items) => items.iter().enumerate().for_each(|(i, v)| breakpoints(v, format!("{at}/{i}"), out)),
            _ => {}
        }
    }

    fn body(req: &ModelRequest) -> Value {
        serde_json::from_slice(&req.to_body().unwrap()).unwrap()
    }

    fn conversation(turns: usize) -> Vec<Arc<CachedMessage>> {
        let mut m = vec![cached(Message::user_text("list the files"))];
        for i in 0..turns {
            let id = format!("toolu_{i}");
            m.push(cached(Message::assistant(vec![ContentBlock::ToolUse(ToolUse {
                id: id.clone(),
                name: "Glob".into(),
                input: json!({"pattern": "*"}),
            })])));
            m.push(cached(Message::user(vec![ContentBlock::tool_result(&id, format!("file{i}.rs"), false)])));
        }
        m
    }

    #[test]
    fn four_breakpoints_stable_system_session_system_tools_newest_message() {
        let b = body(&request(conversation(2), Some(CacheTtl::FiveMinutes)));
        let mut found = Vec::new();
        breakpoints(&b, String::new(), &mut found);
        let mut at: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        at.sort();
        assert_eq!(at, ["/messages/4/content/0", "/system/0", "/system/1", "/tools/1"]);
        assert!(found.iter().all(|(_, v)| *v == json!({"type": "ephemeral"})));
        assert_eq!(b["system"][0]["text"], "You are rein.\n\n");
        assert_eq!(b["system"][1]["text"], "cwd: /tmp/p, date 2026-11-30");
    }

    #[test]
    fn one_hour_lifetime_and_off() {
        let b = body(&request(conversation(1), Some(CacheTtl::OneHour)));
        assert_eq!(b["tools"][1]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
        let off = String::from_utf8(request(conversation(1), None).to_body().unwrap()).unwrap();
        assert!(!off.contains("cache_control"), "{off}");
        assert_eq!(body(&request(conversation(1), None))["system"], "You are rein.\n\ncwd: /tmp/p, date 2026-11-30");
    }

    /// The bytes the API hashes for turn N's cache (everything up to and including the
    /// newest message, breakpoints left out) are a byte-identical prefix of turn N+1's.
    #[test]
    fn the_cached_prefix_of_the_next_turn_is_byte_identical() {
        let strip = |req: &ModelRequest| {
            let text = String::from_utf8(req.to_body().unwrap()).unwrap();
            text.replace(r#","cache_control":{"type":"ephemeral"}"#, "")
        };
        let history = conversation(6);
        for n in [1, 3, 5, 7, 9, 11] {
            let this = strip(&request(history[..n].to_vec(), Some(CacheTtl::FiveMinutes)));
            let next = strip(&request(history[..n + 2].to_vec(), Some(CacheTtl::FiveMinutes)));
            let cut = this.rfind("],\"tools\"").unwrap();
            assert!(next.starts_with(&this[..cut]), "turn {n}: the prefix changed\n{this}\n{next}");
        }
    }

    #[test]
    fn a_string_content_and_trailing_thinking_still_get_a_breakpoint_on_a_real_block() {
        let raw = serde_json::value::to_raw_value(&json!({"role": "user", "content": "hi"})).unwrap();
        let marked: Value =
            serde_json::from_str(with_breakpoint(&raw, CacheTtl::FiveMinutes.into()).unwrap().get()).unwrap();
        assert_eq!(marked["content"], json!([{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]));
        let raw = serde_json::value::to_raw_value(&json!({"role": "assistant", "content": [
            {"type": "text", "text": "ok"}, {"type": "thinking", "thinking": "t", "signature": "s"}]}))
        .unwrap();
        let marked: Value =
            serde_json::from_str(with_breakpoint(&raw, CacheTtl::FiveMinutes.into()).unwrap().get()).unwrap();
        assert_eq!(marked["content"][0]["cache_control"], json!({"type": "ephemeral"}));
        assert!(marked["content"][1].get("cache_control").is_none());
    }
}
