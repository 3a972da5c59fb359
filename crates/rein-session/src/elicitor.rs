//! MCP elicitations (a server asking the user for input), answered as Claude Code lets
//! hooks answer them: Elicitation hooks (matched on the server's name) may give the
//! answer (`hookSpecificOutput.action` and `content`; exit 2 declines), ElicitationResult
//! hooks see the answer and may change it before it goes back. What no hook answers is
//! declined: rein has no form for a person to fill in yet.

use std::sync::Arc;

use futures::future::BoxFuture;
use rein_hooks::{HookEvent, HookInput, Hooks};
use rein_mcp::{ElicitAnswer, Elicitation, Elicitor};

pub(crate) struct HookElicitor {
    pub hooks: Option<Arc<Hooks>>,
}

impl Elicitor for HookElicitor {
    fn elicit(&self, request: Elicitation) -> BoxFuture<'_, ElicitAnswer> {
        Box::pin(async move {
            let hooks = self.hooks.as_deref();
            let asked = HookInput::Elicitation {
                mcp_server_name: request.server.clone(),
                message: request.message.clone(),
                mode: request.mode.to_string(),
                url: request.url.clone(),
                elicitation_id: request.elicitation_id.clone(),
                requested_schema: request.requested_schema.clone(),
            };
            let answer = match hooks.filter(|h| h.has(HookEvent::Elicitation)) {
                Some(h) => h.fire_input(&asked, |_| true).await.elicitation_answer(),
                None => None,
            };
            let (action, content) = answer.unwrap_or_else(|| {
                tracing::warn!(server = %request.server, message = %request.message,
                    "an MCP server asked for input and no hook answered: declined");
                ("decline".to_string(), None)
            });
            let Some(h) = hooks.filter(|h| h.has(HookEvent::ElicitationResult)) else {
                return ElicitAnswer { action, content };
            };
            let result = HookInput::ElicitationResult {
                mcp_server_name: request.server.clone(),
                mode: request.mode.to_string(),
                elicitation_id: request.elicitation_id.clone(),
                action: action.clone(),
                content: content.clone(),
            };
            match h.fire_input(&result, |_| true).await.elicitation_answer() {
                Some((action, changed)) => ElicitAnswer { action, content: changed.or(content) },
                None => ElicitAnswer { action, content },
            }
        })
    }
}
