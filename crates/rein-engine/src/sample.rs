//! One model request: stream the response, forward events, keep what arrived.

use futures::StreamExt;
use rein_model::{Model, ModelError, ModelEvent, ModelRequest};
use rein_protocol::{AssistantMessage, ContentBlock};

use crate::EngineEvent;

/// A request that failed, with the text that had arrived before it failed.
pub struct SampleFailure {
    pub partial: Option<AssistantMessage>,
    pub error: ModelError,
}

/// Stream one response to its end, sending every event to `sink`.
pub async fn sample(
    model: &dyn Model,
    request: ModelRequest,
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) -> Result<AssistantMessage, SampleFailure> {
    let mut stream = model.stream(request);
    let mut seen = Seen::default();
    while let Some(item) = stream.next().await {
        match item {
            Ok(ModelEvent::MessageDone(message)) => return Ok(message),
            Ok(event) => {
                seen.observe(&event);
                sink(EngineEvent::Stream(event));
            }
            Err(error) => return Err(SampleFailure { partial: seen.into_partial(), error }),
        }
    }
    Err(SampleFailure { partial: seen.into_partial(), error: ModelError::Incomplete })
}

/// What a failed stream had delivered: complete text blocks and the text in progress.
/// Tool calls and thinking from an unfinished response cannot be resumed and are dropped.
#[derive(Default)]
struct Seen {
    id: String,
    model: String,
    text: Vec<(usize, String)>,
}

impl Seen {
    fn observe(&mut self, event: &ModelEvent) {
        match event {
            ModelEvent::MessageStart { id, model, .. } => {
                self.id = id.clone();
                self.model = model.clone();
            }
            ModelEvent::TextDelta { index, text } => match self.text.last_mut() {
                Some((i, s)) if i == index => s.push_str(text),
                _ => self.text.push((*index, text.clone())),
            },
            _ => {}
        }
    }

    fn into_partial(self) -> Option<AssistantMessage> {
        let blocks: Vec<ContentBlock> =
            self.text.into_iter().filter(|(_, t)| !t.is_empty()).map(|(_, t)| ContentBlock::text(t)).collect();
        if blocks.is_empty() {
            return None;
        }
        let mut m = AssistantMessage::new(self.id, self.model);
        m.content = blocks;
        Some(m)
    }
}
