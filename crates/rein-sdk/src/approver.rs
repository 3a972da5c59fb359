//! Questions to the SDK: with `--permission-prompt-tool stdio` every "ask" becomes a
//! `can_use_tool` control request through the engine's `Approver` seam. `allow` may
//! carry an edited input (checked against the schema and the rules again by the chain)
//! and permission updates; `deny` a message for the model and `interrupt`, which stops
//! the turn; an error reply, or no reply possible, is a deny.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rein_engine::{Answer, Approver, PermissionQuestion};
use rein_policy::{Call, SharedPolicy};
use rein_protocol::ToolUse;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::permissions::{PermissionTargets, apply_updates, suggestions};
use crate::{Peer, PeerError};

/// The running turn's interrupt, which a `deny` with `interrupt: true` (and the SDK's
/// `interrupt` request) cancels.
#[derive(Debug, Default)]
pub struct TurnAbort(Mutex<Option<CancellationToken>>);

impl TurnAbort {
    /// The token of the turn that starts now.
    pub fn set(&self, token: CancellationToken) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(token);
    }

    /// Interrupt the running turn (nothing when none runs). Returns whether one ran.
    pub fn cancel(&self) -> bool {
        match self.0.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        }
    }

    /// The turn ended.
    pub fn clear(&self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

/// Answers questions by asking the SDK host.
pub struct SdkApprover {
    pub peer: Arc<Peer>,
    pub policy: SharedPolicy,
    pub targets: PermissionTargets,
    pub abort: Arc<TurnAbort>,
    /// Where `requires_action` / `running` frames go, when the SDK asked for them.
    pub states: Option<Arc<crate::SessionState>>,
}

impl Approver for SdkApprover {
    fn approve<'a>(&'a self, question: PermissionQuestion<'a>) -> BoxFuture<'a, Answer> {
        let (call, decision, effects) = question.as_call();
        Box::pin(async move {
            let (call, decision, effects) = (&call, &decision, &effects);
            let facts = Call { tool: &call.name, input: &call.input, effects };
            let mut request = json!({
                "subtype": "can_use_tool",
                "tool_name": call.name,
                "display_name": call.name,
                "input": call.input,
                "tool_use_id": call.id,
                "permission_suggestions": suggestions(&self.policy, &facts),
                "decision_reason": decision.reason,
            });
            if let Some(d) = call.input.get("description").and_then(Value::as_str) {
                request["description"] = json!(d);
            }
            if let Some(path) = effects.writes.first().or(effects.reads.first()) {
                request["blocked_path"] = json!(path);
            }
            if let Some(s) = &self.states {
                s.send("requires_action");
            }
            let reply = self.peer.request(request).await;
            if let Some(s) = &self.states {
                s.send("running");
            }
            match reply {
                Ok(reply) => self.answer(call, &reply),
                Err(PeerError::Refused(e)) => Answer::refuse(format!("Tool permission request failed: Error: {e}")),
                Err(e) => Answer::refuse(format!("Tool permission request failed: {e}")),
            }
        })
    }
}

impl SdkApprover {
    fn answer(&self, call: &ToolUse, reply: &Value) -> Answer {
        match reply.get("behavior").and_then(Value::as_str) {
            Some("allow") => {
                let updates = reply.get("updatedPermissions").and_then(Value::as_array).cloned().unwrap_or_default();
                for problem in apply_updates(&updates, &self.policy, &self.targets) {
                    tracing::warn!(%problem, "a permission update from the SDK was not applied");
                    eprintln!("rein: warning: permission update not applied: {problem}");
                }
                let updated_input = reply.get("updatedInput").filter(|v| v.is_object() && **v != call.input).cloned();
                Answer { allow: true, updated_input, ..Answer::default() }
            }
            Some("deny") => {
                if reply.get("interrupt").and_then(Value::as_bool) == Some(true) {
                    self.abort.cancel();
                }
                let message = reply.get("message").and_then(Value::as_str).filter(|m| !m.is_empty());
                Answer { allow: false, message: message.map(str::to_string), ..Answer::default() }
            }
            _ => Answer::refuse(format!("the SDK's answer is neither allow nor deny: {reply}")),
        }
    }
}
