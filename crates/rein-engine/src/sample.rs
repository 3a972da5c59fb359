//! One model request: stream the response, hand each complete `tool_use` to the
//! executor at once, forward events, and keep what arrived if the stream fails or the
//! user interrupts.

use futures::StreamExt;
use rein_model::{Model, ModelError, ModelEvent, ModelRequest};
use rein_protocol::{AssistantMessage, ContentBlock};
use tokio_util::sync::CancellationToken;

use crate::EngineEvent;
use crate::executor::Executor;

/// How a request ended.
pub(crate) enum Sampled {
    Done(AssistantMessage),
    /// The request failed; the text that had arrived is kept for the user.
    Failed {
        partial: Option<AssistantMessage>,
        error: ModelError,
    },
    /// The user interrupted: the text and the complete tool calls so far.
    Interrupted {
        partial: Option<AssistantMessage>,
    },
}

/// Stream one response to its end, sending every event to `sink`.
pub(crate) async fn sample(
    model: &dyn Model,
    request: ModelRequest,
    executor: &mut Executor,
    abort: &CancellationToken,
    idle_timeout: std::time::Duration,
    mut display: Option<crate::display_hooks::Display<'_>>,
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) -> Sampled {
    let mut stream = model.stream(request);
    let mut seen = Seen::default();
    loop {
        let item = tokio::select! {
            biased;
            _ = abort.cancelled() => {
                flush(&mut display, sink);
                return Sampled::Interrupted { partial: seen.into_partial(true) };
            }
            item = tokio::time::timeout(idle_timeout, stream.next()) => match item {
                Ok(item) => item,
                Err(_) => Some(Err(ModelError::Stream(format!("no event for {} s; the stream was abandoned", idle_timeout.as_secs_f64())))),
            },
            _ = executor.progress(sink) => continue,
        };
        match item {
            Some(Ok(ModelEvent::MessageDone(message))) => return Sampled::Done(message),
            Some(Ok(event)) => {
                seen.observe(&event);
                let call = match &event {
                    ModelEvent::BlockComplete { block: ContentBlock::ToolUse(call), .. } => Some(call.clone()),
                    _ => None,
                };
                if let Some(delta) = crate::event::StreamDelta::of(event) {
                    match display.as_mut() {
                        Some(d) => d.pass(delta, sink).await,
                        None => sink(EngineEvent::Stream(delta)),
                    }
                }
                // The call is handed over once frontends have it: its question (an SDK's
                // can_use_tool) comes after the message that holds it.
                if let Some(call) = call {
                    executor.submit(call, sink);
                }
            }
            Some(Err(error)) => {
                flush(&mut display, sink);
                return Sampled::Failed { partial: seen.into_partial(false), error };
            }
            None => {
                flush(&mut display, sink);
                return Sampled::Failed { partial: seen.into_partial(false), error: ModelError::Incomplete };
            }
        }
    }
}

/// A response ended early: the text the display step held goes out as it came.
fn flush(display: &mut Option<crate::display_hooks::Display<'_>>, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
    if let Some(d) = display.as_mut() {
        d.flush(sink);
    }
}

/// What an unfinished response had delivered.
#[derive(Default)]
struct Seen {
    id: String,
    model: String,
    /// Complete blocks, and the text block in progress, by index.
    blocks: Vec<(usize, ContentBlock)>,
}

impl Seen {
    fn observe(&mut self, event: &ModelEvent) {
        match event {
            ModelEvent::MessageStart { id, model, .. } => {
                self.id = id.clone();
                self.model = model.clone();
            }
            ModelEvent::TextDelta { index, text } => match self.blocks.last_mut() {
                Some((i, ContentBlock::Text { text: t })) if i == index => t.push_str(text),
                _ => self.blocks.push((*index, ContentBlock::text(text.clone()))),
            },
            ModelEvent::BlockComplete { index, block: block @ ContentBlock::ToolUse(_) } => {
                self.blocks.push((*index, block.clone()));
            }
            _ => {}
        }
    }

    /// Text blocks, and complete tool calls when `with_tools` (an interrupt answers
    /// them; a failed stream cannot be resumed, so its calls are dropped).
    fn into_partial(self, with_tools: bool) -> Option<AssistantMessage> {
        let blocks: Vec<ContentBlock> = self
            .blocks
            .into_iter()
            .map(|(_, b)| b)
            .filter(|b| match b {
                ContentBlock::Text { text } => !text.is_empty(),
                ContentBlock::ToolUse(_) => with_tools,
                _ => false,
            })
            .collect();
        if blocks.is_empty() {
            return None;
        }
        let mut m = AssistantMessage::new(self.id, self.model);
        m.content = blocks;
        Some(m)
    }
}
