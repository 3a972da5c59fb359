//! The events a transcript records beside the conversation (`type: "system"` lines),
//! typed: the writer and the loader share these shapes instead of strings.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One event line: `{"type": "system", "subtype": …, "content": {…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "subtype", content = "content", rename_all = "snake_case")]
pub enum TranscriptEvent {
    /// A tool call is about to run (written before it runs).
    ToolStarted { tool_use_id: String, name: String, input: Value },
    /// The permission verdict for a call.
    Permission { tool_use_id: String, tool_name: String, decision: String, asked: bool, source: String, reason: String },
    /// The auto-mode judge's say on a call: verdict (`allow`, `block`, `failed`), its
    /// reason, the model, how long it took, its tokens and cost, and whether an earlier
    /// verdict for the identical call was reused.
    Judgement {
        tool_use_id: String,
        tool_name: String,
        input: Value,
        verdict: String,
        reason: String,
        model: String,
        latency_ms: u64,
        input_tokens: u64,
        output_tokens: u64,
        cost_usd: f64,
        cached: bool,
    },
    /// The session went back to before prompt `to_prompt`: these files were restored,
    /// and the conversation too when `conversation`.
    Rewind { to_prompt: usize, files: Vec<String>, conversation: bool },
    /// A hook deferred this call: it runs when the session is resumed.
    Deferred { tool_use_id: String },
    /// The user interrupted the turn.
    Interrupted { during: String },
    /// The conversation was summarised: what follows replaces what came before.
    CompactBoundary { trigger: String, pre_tokens: u64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_keep_claude_code_line_shape() {
        let e = TranscriptEvent::Deferred { tool_use_id: "t1".into() };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v, serde_json::json!({"subtype": "deferred", "content": {"tool_use_id": "t1"}}));
        let back: TranscriptEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }
}
