//! The permission stage of the chain: the policy's decision, and the `Approver` seam for
//! questions. Without an approver (headless), a question is answered "no", with a
//! message that tells the model the user has not granted it.

use std::sync::Arc;

use futures::future::BoxFuture;
use rein_policy::{Behavior, Call, Decision, Policy};
use rein_protocol::ToolUse;

/// Answers the questions the policy asks (the TUI dialog, a permission-prompt tool).
pub trait Approver: Send + Sync {
    fn approve<'a>(&'a self, call: &'a ToolUse, decision: &'a Decision) -> BoxFuture<'a, bool>;
}

/// The outcome of the permission stage.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The final decision (an answered question becomes allow or deny).
    pub decision: Decision,
    /// The policy asked, and an approver (or its absence) answered.
    pub asked: bool,
}

impl Verdict {
    pub fn allowed(&self) -> bool {
        self.decision.behavior == Behavior::Allow
    }
}

/// Policy plus approver.
#[derive(Clone)]
pub struct Gate {
    pub policy: Arc<Policy>,
    pub approver: Option<Arc<dyn Approver>>,
}

impl Gate {
    pub fn new(policy: Arc<Policy>) -> Self {
        Gate { policy, approver: None }
    }

    pub async fn check(&self, call: &ToolUse, read_only: bool) -> Verdict {
        let decision = self.policy.decide(&Call { tool: &call.name, input: &call.input, read_only });
        if decision.behavior != Behavior::Ask {
            return Verdict { decision, asked: false };
        }
        let granted = match &self.approver {
            Some(a) => a.approve(call, &decision).await,
            None => false,
        };
        let decision = if granted {
            Decision {
                behavior: Behavior::Allow,
                reason: "Allowed by the user.".into(),
                source: format!("user approval; {}", decision.source),
            }
        } else if self.approver.is_some() {
            Decision {
                behavior: Behavior::Deny,
                reason: format!("{} The user declined.", decision.reason),
                source: format!("user refusal; {}", decision.source),
            }
        } else {
            Decision {
                behavior: Behavior::Deny,
                reason: format!(
                    "{} The user has not granted this permission: rein is running without an approver, so questions \
                     are answered no. Do not retry the same call; use another approach, or tell the user which rule \
                     to add (--allowedTools or permissions.allow in .claude/settings.json).",
                    decision.reason
                ),
                source: format!("no approver (headless); {}", decision.source),
            }
        };
        Verdict { decision, asked: true }
    }
}
