//! The pairing invariant: every `tool_use` of an assistant message is answered by exactly
//! one `tool_result`, at the start of the next user message, in call order.

use rein_protocol::{ContentBlock, Message, Role};

/// Message for a result rein had to invent.
pub(crate) const MISSING_RESULT: &str = "Tool result missing: the call was not answered (repaired by rein)";

/// What a repair changed, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairingRepair(pub String);

/// Check the last assistant message and the user message after it; if they break the
/// invariant, return the user message that satisfies it (missing results become
/// `is_error` results, duplicates and orphans are dropped, results are put first in call
/// order) and say what changed. `None` means the history is already valid.
///
/// `assistant` is the last assistant message; `next` is the user message after it, if any.
pub fn repair_pairing(assistant: &Message, next: Option<&Message>) -> Option<(Message, Vec<PairingRepair>)> {
    debug_assert_eq!(assistant.role, Role::Assistant);
    let ids: Vec<&str> = assistant.tool_uses().map(|t| t.id.as_str()).collect();
    let original: &[ContentBlock] = next.map(|m| m.content.as_slice()).unwrap_or(&[]);
    if ids.is_empty() && next.is_none() {
        return None;
    }
    let mut repairs = Vec::new();
    let mut content: Vec<ContentBlock> = Vec::with_capacity(original.len().max(ids.len()));
    let mut answered = 0usize;
    for id in &ids {
        match original.iter().find(|b| b.tool_result_id() == Some(id)) {
            Some(result) => {
                answered += 1;
                content.push(result.clone());
            }
            None => {
                repairs.push(PairingRepair(format!("tool_use {id} had no tool_result; added an error result")));
                content.push(ContentBlock::tool_result(*id, MISSING_RESULT, true));
            }
        }
    }
    let mut seen_results = 0usize;
    for block in original {
        match block.tool_result_id() {
            Some(id) if ids.contains(&id) => {
                seen_results += 1;
            }
            Some(id) => repairs.push(PairingRepair(format!("dropped a tool_result for unknown tool_use {id}"))),
            None => content.push(block.clone()),
        }
    }
    if seen_results > answered {
        repairs.push(PairingRepair("dropped duplicate tool_results".into()));
    }
    if repairs.is_empty() && content.as_slice() != original {
        repairs.push(PairingRepair("moved tool_results first, in call order".into()));
    }
    if repairs.is_empty() {
        return None;
    }
    if content.is_empty() {
        content.push(ContentBlock::text("(empty)"));
    }
    Some((Message::user(content), repairs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::ToolUse;
    use serde_json::json;

    fn assistant(ids: &[&str]) -> Message {
        Message::assistant(
            ids.iter()
                .map(|id| ContentBlock::ToolUse(ToolUse { id: id.to_string(), name: "Read".into(), input: json!({}) }))
                .collect(),
        )
    }

    fn ok(id: &str) -> ContentBlock {
        ContentBlock::tool_result(id, "ok", false)
    }

    #[test]
    fn a_valid_pair_is_left_alone() {
        let next = Message::user(vec![ok("a"), ok("b"), ContentBlock::text("note")]);
        assert!(repair_pairing(&assistant(&["a", "b"]), Some(&next)).is_none());
        assert!(repair_pairing(&Message::assistant(vec![ContentBlock::text("hi")]), None).is_none());
    }

    #[test]
    fn missing_results_become_errors_in_call_order() {
        let next = Message::user(vec![ok("b")]);
        let (fixed, repairs) = repair_pairing(&assistant(&["a", "b"]), Some(&next)).unwrap();
        assert_eq!(fixed.content, vec![ContentBlock::tool_result("a", MISSING_RESULT, true), ok("b")]);
        assert_eq!(repairs.len(), 1);
        let (fixed, _) = repair_pairing(&assistant(&["a"]), None).unwrap();
        assert_eq!(fixed.content, vec![ContentBlock::tool_result("a", MISSING_RESULT, true)]);
    }

    #[test]
    fn order_duplicates_and_orphans_are_fixed() {
        let next = Message::user(vec![ContentBlock::text("first"), ok("b"), ok("a"), ok("a"), ok("zz")]);
        let (fixed, repairs) = repair_pairing(&assistant(&["a", "b"]), Some(&next)).unwrap();
        assert_eq!(fixed.content, vec![ok("a"), ok("b"), ContentBlock::text("first")]);
        assert!(repairs.iter().any(|r| r.0.contains("unknown tool_use zz")));
        assert!(repairs.iter().any(|r| r.0.contains("duplicate")));
    }
}
