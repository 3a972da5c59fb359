//! A server's request for input from the user (MCP elicitation, form or URL mode),
//! handed to the session, which answers it (its Elicitation hooks, a person) or declines.

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde_json::Value;

/// What a server asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    pub server: String,
    pub message: String,
    /// `form` or `url`.
    pub mode: &'static str,
    pub url: Option<String>,
    pub elicitation_id: Option<String>,
    /// The JSON schema of a form's answer.
    pub requested_schema: Option<Value>,
}

/// The answer: `accept` (with `content` for a form), `decline` or `cancel`.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitAnswer {
    pub action: String,
    pub content: Option<Value>,
}

impl ElicitAnswer {
    pub fn decline() -> Self {
        ElicitAnswer { action: "decline".into(), content: None }
    }
}

/// Who answers elicitations in this session.
pub trait Elicitor: Send + Sync {
    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitAnswer>;
}

impl std::fmt::Debug for dyn Elicitor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Elicitor")
    }
}

/// The session's elicitor, if it has one.
pub type SharedElicitor = Option<Arc<dyn Elicitor>>;

/// rmcp's request as rein's.
pub(crate) fn request(server: &str, params: ElicitRequestParams) -> Elicitation {
    match params {
        ElicitRequestParams::FormElicitationParams { message, requested_schema, .. } => Elicitation {
            server: server.to_string(),
            message,
            mode: "form",
            url: None,
            elicitation_id: None,
            requested_schema: serde_json::to_value(requested_schema).ok(),
        },
        ElicitRequestParams::UrlElicitationParams { message, url, elicitation_id, .. } => Elicitation {
            server: server.to_string(),
            message,
            mode: "url",
            url: Some(url),
            elicitation_id: Some(elicitation_id),
            requested_schema: None,
        },
        other => Elicitation {
            server: server.to_string(),
            message: format!("{other:?}"),
            mode: "unknown",
            url: None,
            elicitation_id: None,
            requested_schema: None,
        },
    }
}

/// rein's answer as rmcp's: an unknown action is a decline; only an accepted form carries
/// content.
pub(crate) fn result(answer: ElicitAnswer) -> ElicitResult {
    let action = match answer.action.as_str() {
        "accept" => ElicitationAction::Accept,
        "cancel" => ElicitationAction::Cancel,
        _ => ElicitationAction::Decline,
    };
    let accepted = action == ElicitationAction::Accept;
    let result = ElicitResult::new(action);
    match answer.content {
        Some(content) if accepted => result.with_content(content),
        _ => result,
    }
}
