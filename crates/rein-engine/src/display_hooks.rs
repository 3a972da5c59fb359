//! MessageDisplay hooks: what the person is shown of an answer's text may be changed by
//! a hook (`hookSpecificOutput.displayContent`) — to mask a secret, translate, add a
//! marker — while the conversation keeps the model's own words. With such a hook, each
//! text block is held until it is complete, the hook sees it whole (`final: true`), and
//! frontends get the text to show; without one, text streams as it arrives. A stream
//! that fails or is interrupted shows what was held, unchanged.

use std::collections::BTreeMap;

use rein_hooks::{HookEvent, HookInput, Hooks};
use rein_protocol::ContentBlock;

use crate::EngineEvent;
use crate::event::StreamDelta;

/// The display step of one response.
pub(crate) struct Display<'a> {
    hooks: &'a Hooks,
    turn_id: String,
    message_id: String,
    /// Text of the blocks still open, by index.
    held: BTreeMap<usize, String>,
}

impl<'a> Display<'a> {
    /// The step for `hooks`, when they have MessageDisplay handlers.
    pub(crate) fn new(hooks: Option<&'a Hooks>, turn_id: &str) -> Option<Display<'a>> {
        let hooks = hooks.filter(|h| h.has(HookEvent::MessageDisplay))?;
        Some(Display { hooks, turn_id: turn_id.to_string(), message_id: String::new(), held: BTreeMap::new() })
    }

    /// Pass `delta` on to `sink`, holding text until its block is complete.
    pub(crate) async fn pass(&mut self, delta: StreamDelta, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        match delta {
            StreamDelta::MessageStarted { ref id, .. } => {
                self.message_id = id.clone();
                sink(EngineEvent::Stream(delta));
            }
            StreamDelta::Text { index, text } => self.held.entry(index).or_default().push_str(&text),
            StreamDelta::BlockDone { index, block: block @ ContentBlock::Text { .. } } => {
                let text = self.held.remove(&index).unwrap_or_default();
                let shown = self.shown(index, text).await;
                if !shown.is_empty() {
                    sink(EngineEvent::Stream(StreamDelta::Text { index, text: shown }));
                }
                sink(EngineEvent::Stream(StreamDelta::BlockDone { index, block }));
            }
            other => sink(EngineEvent::Stream(other)),
        }
    }

    /// What the hooks would show of `text`.
    async fn shown(&self, index: usize, text: String) -> String {
        let input = HookInput::MessageDisplay {
            turn_id: self.turn_id.clone(),
            message_id: self.message_id.clone(),
            index,
            last: true,
            delta: text.clone(),
        };
        self.hooks.fire_input(&input, |_| true).await.display_content().unwrap_or(text)
    }

    /// The stream ended early: what was held goes out as it came.
    pub(crate) fn flush(&mut self, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        for (index, text) in std::mem::take(&mut self.held) {
            sink(EngineEvent::Stream(StreamDelta::Text { index, text }));
        }
    }
}
