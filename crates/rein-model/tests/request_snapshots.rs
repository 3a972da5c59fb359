//! The request each provider sends for the same conversation, snapshotted: a system
//! prompt in two parts, two tools, a user turn, an assistant turn with thinking, text
//! and a tool call, and its result.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rein_model::{
    CacheTtl, CachedMessage, Effort, ModelRequest, OpenAiChatClient, OpenAiConfig, OpenAiWire, Reasoning, System,
    Thinking,
};
use rein_protocol::{ContentBlock, Message, ToolSpec, ToolUse};
use serde_json::{Value, json};

fn request() -> ModelRequest {
    let tool = |name: &str| ToolSpec {
        name: name.into(),
        description: format!("The {name} tool."),
        input_schema: json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}),
    };
    let msg = |m: Message| Arc::new(CachedMessage::new(m).unwrap());
    ModelRequest {
        model: "claude-opus-5-5".into(),
        max_tokens: 128_000,
        system: System::split("You are rein.\n\n", "Working directory: /p"),
        tools: vec![tool("Glob"), tool("Grep")].into(),
        messages: vec![
            msg(Message::user_text("find the sources")),
            msg(Message::assistant(vec![
                ContentBlock::Thinking { thinking: "Glob first.".into(), signature: "sig==".into() },
                ContentBlock::text("Looking."),
                ContentBlock::ToolUse(ToolUse {
                    id: "toolu_1".into(),
                    name: "Glob".into(),
                    input: json!({"pattern": "*.rs"}),
                }),
            ])),
            msg(Message::user(vec![ContentBlock::tool_result("toolu_1", "src/main.rs", false)])),
        ],
        cache: Some(CacheTtl::FiveMinutes),
        reasoning: Reasoning {
            thinking: Some(Thinking::Adaptive { display: Some("updates".into()) }),
            effort: Some(Effort::Medium),
        },
        web_search: None,
    }
}

fn openai(wire: OpenAiWire) -> Value {
    let config = OpenAiConfig { base_url: "http://127.0.0.1:1/v1".into(), api_key: None };
    let client = OpenAiChatClient::new(&config, wire).unwrap();
    serde_json::from_slice(&client.body(&request()).unwrap()).unwrap()
}

#[test]
fn anthropic_messages_request() {
    let body: Value = serde_json::from_slice(&request().to_body().unwrap()).unwrap();
    insta::assert_json_snapshot!(body);
    assert_eq!(
        request().betas(),
        ["interleaved-thinking-2025-05-14", "context-management-2025-06-27", "effort-2025-11-24"]
    );
}

#[test]
fn openai_chat_completions_request() {
    insta::assert_json_snapshot!(openai(OpenAiWire::ChatCompletions));
}

#[test]
fn openai_responses_request() {
    insta::assert_json_snapshot!(openai(OpenAiWire::Responses));
}
