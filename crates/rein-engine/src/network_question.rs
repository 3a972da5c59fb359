//! The sandbox's network question — a sandboxed command connects to a host no sandbox
//! rule decides — put through the same `Approver` seam as calls, with the answer in the
//! audit trail. Without an approver (headless), the answer is no.

use rein_policy::{Behavior, Decision};

use crate::gate::{Approver, PermissionQuestion};

/// Ask whether a sandboxed command may connect to `host:port`.
pub async fn ask_network(approver: Option<&dyn Approver>, host: &str, port: u16) -> bool {
    let decision = Decision::new(
        Behavior::Ask,
        format!("A sandboxed command wants to connect to {host}:{port}, which no sandbox rule allows."),
        "sandbox network",
    );
    let allow = match approver {
        Some(a) => a.approve(PermissionQuestion::Network { host, port, decision: &decision }).await.allow,
        None => false,
    };
    tracing::info!(
        target: "rein::audit",
        host,
        port,
        decision = if allow { "allow" } else { "deny" },
        asked = approver.is_some(),
        source = %decision.source,
        "network decision"
    );
    allow
}

impl crate::gate::PermissionQuestion<'_> {
    /// The question as a tool call, for a frontend or protocol that only asks about
    /// calls (the dialog, the SDK's `can_use_tool`, a permission prompt tool): a network
    /// question is a `WebFetch` of `https://HOST:PORT/`, so "don't ask again" suggests
    /// `WebFetch(domain:HOST)`.
    pub fn as_call(&self) -> (rein_protocol::ToolUse, Decision, rein_policy::Effects) {
        match *self {
            PermissionQuestion::Call { call, decision, effects } => (call.clone(), decision.clone(), effects.clone()),
            PermissionQuestion::Network { host, port, decision } => {
                let call = rein_protocol::ToolUse {
                    id: format!("sandbox-network-{host}-{port}"),
                    name: "WebFetch".into(),
                    input: serde_json::json!({
                        "url": format!("https://{host}:{port}/"),
                        "prompt": "a network connection from a sandboxed command",
                    }),
                };
                (call, decision.clone(), rein_policy::Effects::contacting(Some(host.to_string())))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use futures::future::BoxFuture;

    use super::*;
    use crate::Answer;

    /// Answers yes, and keeps what it was asked.
    #[derive(Default)]
    struct Keeps(Mutex<Vec<String>>);

    impl Approver for Keeps {
        fn approve<'a>(&'a self, question: PermissionQuestion<'a>) -> BoxFuture<'a, Answer> {
            let seen = match question {
                PermissionQuestion::Network { host, port, decision } => format!("{host}:{port} {}", decision.source),
                PermissionQuestion::Call { call, .. } => call.name.clone(),
            };
            self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(seen);
            Box::pin(async { Answer::yes() })
        }
    }

    #[tokio::test]
    async fn the_network_question_reaches_the_approver_as_itself() {
        let keeps = Keeps::default();
        assert!(ask_network(Some(&keeps), "example.org", 443).await);
        let seen = keeps.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        assert_eq!(seen, ["example.org:443 sandbox network"]);
        assert!(!ask_network(None, "example.org", 443).await, "headless, nobody says yes");
    }
}
