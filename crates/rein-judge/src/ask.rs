//! One small-model request as both judges make it (the auto-mode judge, prompt hooks):
//! a rubric as the cached system prefix, one user message, no tools; the answer's
//! text and usage. And the one JSON object such an answer must be.

use std::sync::Arc;

use futures::StreamExt;
use rein_model::{Model, ModelEvent, ModelRequest};
use rein_protocol::{Message, Usage};
use serde_json::Value;

/// Ask `model` (named `name`) with `rubric` as the system prompt; the answer's text.
pub(crate) async fn ask_text(
    model: &dyn Model,
    name: &str,
    rubric: &str,
    prompt: String,
    max_tokens: u32,
) -> Result<(String, Usage), crate::AskError> {
    let request = ModelRequest {
        model: name.to_string(),
        max_tokens,
        system: rein_model::System::split(rubric, ""),
        tools: Arc::new([]),
        messages: vec![Arc::new(
            rein_model::CachedMessage::new(Message::user_text(prompt)).map_err(crate::AskError::Request)?,
        )],
        cache: Some(rein_model::CacheTtl::FiveMinutes),
        reasoning: rein_model::Reasoning::default(),
        web_search: None,
    };
    let mut stream = model.stream(request);
    while let Some(item) = stream.next().await {
        match item {
            Ok(ModelEvent::MessageDone(m)) => return Ok((m.to_message().text(), m.usage)),
            Ok(_) => {}
            Err(e) => return Err(crate::AskError::Request(e)),
        }
    }
    Err(crate::AskError::EndedEarly)
}

/// The answer as one JSON object (a code fence around it tolerated).
pub(crate) fn json_answer(text: &str) -> Result<Value, crate::AnswerError> {
    let t = text.trim();
    let body =
        t.strip_prefix("```json").or_else(|| t.strip_prefix("```")).and_then(|b| b.strip_suffix("```")).unwrap_or(t);
    serde_json::from_str(body.trim()).map_err(|_| crate::AnswerError::NotJson(one_line(text)))
}

pub(crate) fn one_line(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    line.chars().take(200).collect()
}
