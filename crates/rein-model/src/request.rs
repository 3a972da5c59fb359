//! A model request and its messages, each serialised once and kept (`CachedMessage`), so
//! a long session never re-serialises its whole history per turn.

use std::sync::Arc;

use rein_protocol::{Message, ToolSpec};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::ModelError;

/// A message together with its JSON, serialised once when it enters the conversation so
/// that a request never re-serialises the whole history.
#[derive(Debug)]
pub struct CachedMessage {
    message: Message,
    json: Box<RawValue>,
}

impl CachedMessage {
    pub fn new(message: Message) -> Result<Self, ModelError> {
        let json = serde_json::value::to_raw_value(&message).map_err(|e| ModelError::Request(e.to_string()))?;
        Ok(CachedMessage { message, json })
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
    pub system: Arc<str>,
    pub tools: Arc<[ToolSpec]>,
    pub messages: Vec<Arc<CachedMessage>>,
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    system: &'a str,
    messages: Vec<&'a RawValue>,
    #[serde(skip_serializing_if = "<[ToolSpec]>::is_empty")]
    tools: &'a [ToolSpec],
    stream: bool,
}

impl ModelRequest {
    /// The `POST /v1/messages` body with `stream: true`.
    pub fn to_body(&self) -> Result<Vec<u8>, ModelError> {
        let body = Body {
            model: &self.model,
            max_tokens: self.max_tokens,
            system: &self.system,
            messages: self.messages.iter().map(|m| m.json()).collect(),
            tools: &self.tools,
            stream: true,
        };
        serde_json::to_vec(&body).map_err(|e| ModelError::Request(e.to_string()))
    }
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
        };
        let body: serde_json::Value = serde_json::from_slice(&req.to_body().unwrap()).unwrap();
        assert_eq!(
            body,
            json!({"model":"claude-x","max_tokens":100,"system":"be brief",
                "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
                "tools":[{"name":"Read","description":"d","input_schema":{"type":"object"}}],
                "stream":true})
        );
    }
}
