//! Questions to the SDK: with `--permission-prompt-tool stdio` every "ask" becomes a
//! `can_use_tool` control request through the engine's `Approver` seam. `allow` may
//! carry an edited input (checked against the schema and the rules again by the chain)
//! and permission updates; `deny` a message for the model and `interrupt`, which stops
//! the turn; an error reply, or no reply possible, is a deny.

use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rein_policy::{Call, SharedPolicy};
use rein_protocol::ToolUse;
use rein_session::events::{Answer, Approver, PermissionQuestion};
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::frames::OutRequest;
use crate::permissions::{PermissionTargets, apply_updates, suggestions};

/// The SDK's answer to `can_use_tool`.
#[derive(Debug, Deserialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
enum PermissionReply {
    Allow {
        #[serde(default, rename = "updatedInput")]
        updated_input: Option<Value>,
        /// Each update read on its own: one rein does not know leaves the rest applied.
        #[serde(default, rename = "updatedPermissions")]
        updated_permissions: Vec<Value>,
    },
    Deny {
        #[serde(default)]
        message: Option<String>,
        #[serde(default)]
        interrupt: bool,
    },
}
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
    fn wants_every_question(&self) -> bool {
        !rein_session::env::programs_let_rein_try_first()
    }

    fn approve<'a>(&'a self, question: PermissionQuestion<'a>) -> BoxFuture<'a, Answer> {
        let (call, decision, effects) = question.as_call();
        Box::pin(async move {
            let (call, decision, effects) = (&call, &decision, &effects);
            let facts = Call { tool: &call.name, input: &call.input, effects };
            let suggestions = suggestions(&self.policy, &facts);
            let request = OutRequest::CanUseTool {
                tool_name: &call.name,
                display_name: &call.name,
                input: &call.input,
                tool_use_id: &call.id,
                permission_suggestions: suggestions,
                decision_reason: &decision.reason,
                description: call.input.get("description").and_then(Value::as_str),
                blocked_path: effects.writes.first().or(effects.reads.first()).map(|p| p.as_path()),
            };
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
        match serde_json::from_value::<PermissionReply>(reply.clone()) {
            Ok(PermissionReply::Allow { updated_input, updated_permissions }) => {
                for problem in apply_updates(&updated_permissions, &self.policy, &self.targets) {
                    tracing::warn!(%problem, "a permission update from the SDK was not applied");
                    rein_session::messages::emit("warning", format_args!("permission update not applied: {problem}"));
                }
                let updated_input = updated_input.filter(|v| v.is_object() && *v != call.input);
                Answer { allow: true, updated_input, ..Answer::default() }
            }
            Ok(PermissionReply::Deny { message, interrupt }) => {
                if interrupt {
                    self.abort.cancel();
                }
                Answer { allow: false, message: message.filter(|m| !m.is_empty()), verbatim: true, ..Answer::default() }
            }
            Err(_) => Answer::refuse(format!("the SDK's answer is neither allow nor deny: {reply}")),
        }
    }
}
