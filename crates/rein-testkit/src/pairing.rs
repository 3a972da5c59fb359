//! The pairing invariant, checked on a recorded `messages` array: every `tool_use` of an
//! assistant message is answered, first and in call order, by the next message, and
//! every `tool_result` answers a `tool_use` of the message just before it.

use serde_json::Value;

fn ids<'a>(m: &'a Value, kind: &str, field: &str) -> Vec<&'a str> {
    m["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["type"] == kind)
        .filter_map(|b| b[field].as_str())
        .collect()
}

/// `Ok` when `messages` keeps the invariant; otherwise which message breaks it and how.
pub fn check_pairing(messages: &[Value]) -> Result<(), String> {
    for (i, m) in messages.iter().enumerate() {
        if m["role"] == "assistant" {
            let uses = ids(m, "tool_use", "id");
            if uses.is_empty() {
                continue;
            }
            let answered: Vec<&str> = messages
                .get(i + 1)
                .and_then(|n| n["content"].as_array())
                .into_iter()
                .flatten()
                .take_while(|b| b["type"] == "tool_result")
                .filter_map(|b| b["tool_use_id"].as_str())
                .collect();
            if answered != uses {
                return Err(format!("message {i}: tool_use ids {uses:?} answered by {answered:?}"));
            }
        } else {
            let before: Vec<&str> = i.checked_sub(1).map(|p| ids(&messages[p], "tool_use", "id")).unwrap_or_default();
            if let Some(orphan) = ids(m, "tool_result", "tool_use_id").into_iter().find(|r| !before.contains(r)) {
                return Err(format!("message {i}: orphan tool_result {orphan}"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_unanswered_calls_and_orphans() {
        let call = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "X", "input": {}}]});
        let answer = json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]});
        assert!(check_pairing(&[json!({"role": "user", "content": "hi"}), call.clone(), answer.clone()]).is_ok());
        assert!(check_pairing(std::slice::from_ref(&call)).is_err());
        assert!(check_pairing(&[json!({"role": "user", "content": "hi"}), answer]).is_err());
    }
}
