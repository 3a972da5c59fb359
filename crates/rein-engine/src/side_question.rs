//! `/btw`: a side question the model answers from the conversation so far — no tools,
//! one request — while neither the question nor the answer joins the conversation or
//! the transcript. What it costs counts as a side request's.

use std::sync::Arc;

use rein_model::{CachedMessage, ModelRequest};
use rein_protocol::Message;

use crate::{Engine, EngineError};

/// Longest answer to a side question.
const SIDE_ANSWER_MAX_TOKENS: u32 = 4096;

/// What precedes the question: it is an aside, answered from what is known.
const ASIDE: &str = "A quick question on the side, which does not change the task: answer it briefly from what \
this conversation already shows (no tools are available for it), then the conversation goes on as before.\n\n";

impl Engine {
    /// Answer `question` beside the conversation; the answer's text.
    pub async fn side_question(&mut self, question: &str) -> Result<String, EngineError> {
        let mut messages = self.conversation.for_request()?;
        messages.push(Arc::new(CachedMessage::new(Message::user_text(format!("{ASIDE}{question}")))?));
        let request = ModelRequest {
            model: self.config.model.clone(),
            max_tokens: self.config.max_tokens.min(SIDE_ANSWER_MAX_TOKENS),
            system: self.config.system.clone(),
            tools: Arc::new([]),
            messages,
            cache: self.config.cache,
            reasoning: rein_model::Reasoning::default(),
            web_search: None,
        };
        let answer =
            crate::side_requests::ask(self.model.as_ref(), request, &self.side).await.map_err(|e| match e {
                crate::side_requests::SideRequestError::Request(e) => EngineError::Model(e),
                other => EngineError::SideQuestion(other.to_string()),
            })?;
        Ok(answer.to_message().text())
    }
}
