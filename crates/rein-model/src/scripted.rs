//! A model that replays a script in process: the offline demo's "model".

use std::sync::Arc;

use rein_protocol::{AssistantMessage, ContentBlock, Message, Usage};

use crate::{BlockKind, Model, ModelEvent, ModelRequest, ModelStream};

/// What the scripted model answers on one turn.
#[derive(Debug, Clone)]
pub struct ScriptedReply {
    pub blocks: Vec<ContentBlock>,
    pub stop_reason: String,
}

/// One step of the script: given the history so far, produce the reply.
pub type ScriptedTurn = Arc<dyn Fn(&[&Message]) -> ScriptedReply + Send + Sync>;

/// Replays `turns` in order, choosing the turn by how many assistant messages the
/// history already holds. Past the end of the script it says so and ends the turn.
pub struct ScriptedModel {
    name: String,
    turns: Vec<ScriptedTurn>,
}

impl ScriptedModel {
    pub fn new(name: impl Into<String>, turns: Vec<ScriptedTurn>) -> Self {
        ScriptedModel { name: name.into(), turns }
    }
}

impl Model for ScriptedModel {
    fn stream(&self, request: ModelRequest) -> ModelStream {
        let history: Vec<&Message> = request.messages.iter().map(|m| m.message()).collect();
        let turn_no = history.iter().filter(|m| m.role == rein_protocol::Role::Assistant).count();
        let reply = match self.turns.get(turn_no) {
            Some(turn) => turn(&history),
            None => ScriptedReply {
                blocks: vec![ContentBlock::text("(the scripted model has reached the end of its script)")],
                stop_reason: "end_turn".into(),
            },
        };
        let id = format!("msg_scripted_{turn_no:04}");
        let mut events =
            vec![ModelEvent::MessageStart { id: id.clone(), model: self.name.clone(), usage: Usage::default() }];
        for (index, block) in reply.blocks.iter().enumerate() {
            let kind = match block {
                ContentBlock::Text { .. } => BlockKind::Text,
                ContentBlock::ToolUse(_) => BlockKind::ToolUse,
                ContentBlock::Thinking { .. } => BlockKind::Thinking,
                _ => BlockKind::Other,
            };
            events.push(ModelEvent::BlockStart { index, kind });
            if let ContentBlock::Text { text } = block {
                for word in text.split_inclusive(' ') {
                    events.push(ModelEvent::TextDelta { index, text: word.to_string() });
                }
            }
            events.push(ModelEvent::BlockComplete { index, block: block.clone() });
        }
        let mut message = AssistantMessage::new(id, &self.name);
        message.content = reply.blocks;
        message.stop_reason = Some(reply.stop_reason);
        events.push(ModelEvent::MessageDone(message));
        Box::pin(futures::stream::iter(events.into_iter().map(Ok)))
    }
}
