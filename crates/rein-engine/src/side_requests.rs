//! Requests the engine's tools make to the model beside the conversation (WebFetch's
//! digest, WebSearch): one request, its whole answer, and what it cost, which joins the
//! session's usage and cost when the step's results are recorded.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use rein_model::{Model, ModelEvent, ModelRequest};
use rein_protocol::{AssistantMessage, Usage};

/// Why a side request gave no answer.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SideRequestError {
    #[error("the request failed: {0}")]
    Request(#[source] rein_model::ModelError),
    #[error("the response ended early")]
    EndedEarly,
    #[error("the small model gave no answer")]
    NoAnswer,
}

/// What side requests cost since the engine last looked, per model.
#[derive(Debug, Clone, Default)]
pub struct SideUsage(Arc<Mutex<Vec<(String, Usage)>>>);

impl SideUsage {
    pub fn add(&self, model: &str, usage: Usage) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push((model.to_string(), usage));
    }

    /// Everything recorded so far, and forget it.
    pub fn take(&self) -> Vec<(String, Usage)> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// Send `request` and wait for the whole answer; its usage goes to `side`.
pub(crate) async fn ask(
    model: &dyn Model,
    request: ModelRequest,
    side: &SideUsage,
) -> Result<AssistantMessage, SideRequestError> {
    let name = request.model.clone();
    let mut stream = model.stream(request);
    while let Some(item) = stream.next().await {
        match item {
            Ok(ModelEvent::MessageDone(m)) => {
                side.add(&name, m.usage);
                return Ok(m);
            }
            Ok(_) => {}
            Err(e) => return Err(SideRequestError::Request(e)),
        }
    }
    Err(SideRequestError::EndedEarly)
}

/// A request of one user message to `model`, with `system` and no tools.
pub(crate) fn one_message(
    model: &str,
    system: &str,
    text: String,
    max_tokens: u32,
) -> Result<ModelRequest, SideRequestError> {
    let message =
        rein_model::CachedMessage::new(rein_protocol::Message::user_text(text)).map_err(SideRequestError::Request)?;
    Ok(ModelRequest {
        model: model.to_string(),
        max_tokens,
        system: rein_model::System::split(system, ""),
        tools: Arc::new([]),
        messages: vec![Arc::new(message)],
        cache: None,
        reasoning: rein_model::Reasoning::default(),
        web_search: None,
    })
}

impl crate::EngineConfig {
    /// The model the tools' own requests go to: the small fast one, else the session's.
    pub(crate) fn small_model_name(&self) -> String {
        self.small_model.clone().unwrap_or_else(|| self.model.clone())
    }
}
