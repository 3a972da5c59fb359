//! Messages: a role and its content blocks.

use serde::{Deserialize, Serialize};

use crate::{ContentBlock, ToolUse, Usage};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

/// One entry of the `messages` array. Content is always sent as blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    #[serde(deserialize_with = "content_or_string")]
    pub content: Vec<ContentBlock>,
}

impl Message {
    pub fn user(content: Vec<ContentBlock>) -> Self {
        Message { role: Role::User, content }
    }

    pub fn user_text(text: impl Into<String>) -> Self {
        Message::user(vec![ContentBlock::text(text)])
    }

    pub fn assistant(content: Vec<ContentBlock>) -> Self {
        Message { role: Role::Assistant, content }
    }

    /// The `tool_use` blocks of this message, in call order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.content.iter().filter_map(ContentBlock::as_tool_use)
    }

    /// All text blocks joined, as a frontend shows them.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }
}

/// `content` may be a bare string in the API; rein always holds blocks.
fn content_or_string<'de, D>(d: D) -> Result<Vec<ContentBlock>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Blocks(Vec<ContentBlock>),
    }
    Ok(match Either::deserialize(d)? {
        Either::Text(text) => vec![ContentBlock::Text { text }],
        Either::Blocks(b) => b,
    })
}

/// A complete assistant response, as the Messages API returns it (`type: "message"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    pub id: String,
    #[serde(rename = "type", default = "message_type")]
    pub kind: String,
    #[serde(default = "assistant_role")]
    pub role: Role,
    pub model: String,
    pub content: Vec<ContentBlock>,
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub stop_sequence: Option<String>,
    #[serde(default)]
    pub usage: Usage,
}

fn message_type() -> String {
    "message".to_string()
}

fn assistant_role() -> Role {
    Role::Assistant
}

impl AssistantMessage {
    pub fn new(id: impl Into<String>, model: impl Into<String>) -> Self {
        AssistantMessage {
            id: id.into(),
            kind: message_type(),
            role: Role::Assistant,
            model: model.into(),
            content: Vec::new(),
            stop_reason: None,
            stop_sequence: None,
            usage: Usage::default(),
        }
    }

    /// The message as it is sent back in the next request.
    pub fn to_message(&self) -> Message {
        Message::assistant(self.content.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_content_reads_as_one_text_block() {
        let m: Message = serde_json::from_value(json!({"role":"user","content":"hello"})).unwrap();
        assert_eq!(m.content, vec![ContentBlock::text("hello")]);
    }

    #[test]
    fn assistant_message_matches_api_shape() {
        let v = json!({"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],
            "stop_reason":"end_turn","stop_sequence":null,
            "usage":{"input_tokens":1,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}});
        let m: AssistantMessage = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&m).unwrap(), v);
    }
}
