//! The history sent to the model, each message serialised once.

use std::sync::Arc;

use rein_model::{CachedMessage, ModelError};
use rein_protocol::{Message, Role};

use crate::pairing::{PairingRepair, repair_pairing};

/// The conversation so far.
#[derive(Debug, Default, Clone)]
pub struct Conversation {
    messages: Vec<Arc<CachedMessage>>,
}

impl Conversation {
    pub fn new() -> Self {
        Self::default()
    }

    /// Append a message; a user message right after a user message joins it (a prompt
    /// after the results of an interrupted turn).
    pub fn push(&mut self, message: Message) -> Result<(), ModelError> {
        if message.role == Role::User
            && let Some(last) = self.messages.last()
            && last.message().role == Role::User
        {
            let mut merged = last.message().clone();
            merged.content.extend(message.content);
            let merged = Arc::new(CachedMessage::new(merged)?);
            if let Some(slot) = self.messages.last_mut() {
                *slot = merged;
            }
            return Ok(());
        }
        self.messages.push(Arc::new(CachedMessage::new(message)?));
        Ok(())
    }

    /// The calls of the last assistant message that no result answers yet.
    pub fn unanswered(&self) -> Vec<rein_protocol::ToolUse> {
        let Some(a) = self.messages.iter().rposition(|m| m.message().role == Role::Assistant) else {
            return Vec::new();
        };
        let answered: Vec<&str> = self
            .messages
            .get(a + 1)
            .map(|m| m.message().content.iter().filter_map(|b| b.tool_result_id()).collect())
            .unwrap_or_default();
        self.messages[a].message().tool_uses().filter(|t| !answered.contains(&t.id.as_str())).cloned().collect()
    }

    /// Drop thinking blocks (their signatures only verify with the model that made
    /// them), when switching to another model.
    pub fn strip_thinking(&mut self) {
        for slot in &mut self.messages {
            let m = slot.message();
            if m.content.iter().any(|b| {
                matches!(
                    b,
                    rein_protocol::ContentBlock::Thinking { .. } | rein_protocol::ContentBlock::RedactedThinking { .. }
                )
            }) {
                let mut stripped = m.clone();
                stripped.content.retain(|b| {
                    !matches!(
                        b,
                        rein_protocol::ContentBlock::Thinking { .. }
                            | rein_protocol::ContentBlock::RedactedThinking { .. }
                    )
                });
                if let Ok(c) = CachedMessage::new(stripped) {
                    *slot = Arc::new(c);
                }
            }
        }
    }

    /// Change message `i` with `edit` (which returns a count it reports back).
    pub fn rewrite(&mut self, i: usize, edit: impl FnOnce(&mut Message) -> usize) -> usize {
        let Some(slot) = self.messages.get_mut(i) else { return 0 };
        let mut m = slot.message().clone();
        let n = edit(&mut m);
        if n > 0
            && let Ok(c) = CachedMessage::new(m)
        {
            *slot = Arc::new(c);
        }
        n
    }

    /// Replace the whole history (compaction).
    pub fn replace(&mut self, messages: Vec<Message>) -> Result<(), ModelError> {
        self.messages = messages.into_iter().map(|m| CachedMessage::new(m).map(Arc::new)).collect::<Result<_, _>>()?;
        Ok(())
    }

    /// Bytes of the serialised history, images and documents counted by what they cost
    /// rather than by their base64: the base of the token estimate.
    pub fn json_bytes(&self) -> usize {
        self.messages.iter().map(|m| m.estimate_bytes()).sum()
    }

    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    pub fn messages(&self) -> impl DoubleEndedIterator<Item = &Message> + ExactSizeIterator {
        self.messages.iter().map(|m| m.message())
    }

    /// The history for the next request, with the pairing invariant verified. A broken
    /// pairing is a bug: debug builds stop on it; release builds repair it with synthetic
    /// error results and log what was changed.
    pub fn for_request(&mut self) -> Result<Vec<Arc<CachedMessage>>, ModelError> {
        let repairs = self.enforce_pairing()?;
        debug_assert!(repairs.is_empty(), "tool_use/tool_result pairing was broken: {repairs:?}");
        for r in &repairs {
            tracing::error!(repair = %r.0, "repaired the tool_use/tool_result pairing before a request");
        }
        Ok(self.messages.clone())
    }

    /// Repair the last assistant message's pairing in place; returns what changed.
    pub fn enforce_pairing(&mut self) -> Result<Vec<PairingRepair>, ModelError> {
        let Some(a) = self.messages.iter().rposition(|m| m.message().role == Role::Assistant) else {
            return Ok(Vec::new());
        };
        let next = self.messages.get(a + 1).map(|m| m.message());
        let Some((fixed, repairs)) = repair_pairing(self.messages[a].message(), next) else {
            return Ok(Vec::new());
        };
        let fixed = Arc::new(CachedMessage::new(fixed)?);
        if a + 1 < self.messages.len() {
            self.messages[a + 1] = fixed;
        } else {
            self.messages.push(fixed);
        }
        Ok(repairs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::{ContentBlock, ToolUse};
    use serde_json::json;

    #[test]
    fn an_unanswered_tool_use_is_repaired_before_the_next_request() {
        let mut c = Conversation::new();
        c.push(Message::user_text("go")).unwrap();
        c.push(Message::assistant(vec![ContentBlock::ToolUse(ToolUse {
            id: "t1".into(),
            name: "Bash".into(),
            input: json!({}),
        })]))
        .unwrap();
        let repairs = c.enforce_pairing().unwrap();
        assert_eq!(repairs.len(), 1);
        let last = c.messages().last().unwrap().clone();
        assert_eq!(last.role, Role::User);
        assert_eq!(last.content[0].tool_result_id(), Some("t1"));
        assert!(c.enforce_pairing().unwrap().is_empty(), "a repaired history is valid");
    }
}
