//! What the session owner reads of the engine and sets between turns: the model, the
//! tools on offer (MCP servers' once they answer), the conversation, the policy, the
//! next turn's interrupt and prompt id.

use crate::{Conversation, Engine};

impl Engine {
    /// The next prompt is also known as `id` (the uuid an Agent SDK gave its user line).
    pub fn tag_next_prompt(&mut self, id: String) {
        self.prompt_ids.push(id);
    }

    /// A new interrupt token for the next turn (an interactive session goes on after an
    /// interrupt); cancelling it interrupts that turn.
    pub fn fresh_abort(&mut self) -> tokio_util::sync::CancellationToken {
        self.ctx.abort = tokio_util::sync::CancellationToken::new();
        self.ctx.abort.clone()
    }

    /// The model the next turn uses.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// The session's shared policy (the mode and remembered rules can change).
    pub fn policy(&self) -> &rein_policy::SharedPolicy {
        &self.gate.policy
    }

    /// Wait for the tools still on their way (MCP servers connecting), and offer them
    /// from the next request on.
    pub async fn settle_tools(&mut self) {
        self.registry.settled().await;
        self.join_late_tools();
    }

    /// The definitions of the tools the model is sent in full.
    pub fn tool_specs(&self) -> &[rein_protocol::ToolSpec] {
        &self.tools
    }

    /// The tools the model can call, in registration order: those sent in full and
    /// those waiting behind ToolSearch.
    pub fn tool_names(&self) -> Vec<String> {
        let deferred: Vec<String> = self.search.as_ref().map_or_else(Vec::new, |(s, _)| {
            s.lock().map_or_else(|_| Vec::new(), |s| s.deferred.iter().map(|t| t.name.clone()).collect())
        });
        self.registry
            .names()
            .into_iter()
            .filter(|n| self.tools.iter().any(|t| &t.name == n) || deferred.contains(n))
            .collect()
    }

    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }
}
