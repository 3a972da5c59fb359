//! What a frontend reads of the live session, and the few things it starts: the tools
//! the model has, the prompts so far, the history to show on resume, the background
//! commands and agents, the interrupt of the next turn, the session's title. Frontends
//! ask here; none reaches the engine.

use std::sync::Arc;

use futures::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::{Session, SessionHandle};

/// Names a session from its first prompt (the small model); `None` when it could not.
pub type Titler = Arc<dyn Fn(String) -> BoxFuture<'static, Option<String>> + Send + Sync>;

impl Session {
    /// The handle a frontend keeps for what it asks while a turn runs.
    pub fn handle(&self) -> SessionHandle {
        SessionHandle { shared: self.shared.clone() }
    }

    /// The interrupt of the next turn: cancelling it (or [`Command::Interrupt`](crate::Command))
    /// stops that turn.
    pub fn turn_token(&mut self) -> CancellationToken {
        let token = self.engine.fresh_abort();
        self.handle().set_abort(token.clone());
        token
    }

    /// Wait until every MCP server has answered or failed; their tools join the session.
    pub async fn settle_tools(&mut self) {
        self.engine.settle_tools().await;
    }

    /// The tools the model can call, in registration order.
    pub fn tool_names(&self) -> Vec<String> {
        self.engine.tool_names()
    }

    /// The prompts the person wrote, in order.
    pub fn prompts(&self) -> Vec<String> {
        self.engine.user_prompts()
    }

    /// The conversation so far (a resumed session's history, to show).
    pub fn history(&self) -> Vec<rein_protocol::Message> {
        self.engine.conversation().messages().cloned().collect()
    }

    /// The model the next turn uses.
    pub fn model(&self) -> &str {
        self.engine.model()
    }

    /// The session's background commands (`/tasks`, Ctrl+B), when it has a shell.
    pub fn jobs(&self) -> Option<Arc<dyn rein_tools::SessionShell>> {
        self.engine.session_shell()
    }

    /// The session's background agents, when it has a shell.
    pub fn background_agents(&self) -> Option<rein_tools::BackgroundAgents> {
        self.engine.session_shell().map(|s| s.agents())
    }

    /// The id the next prompt is known by (the SDK's message uuid; `rewind_files`
    /// names it).
    pub fn tag_next_prompt(&mut self, id: String) {
        self.engine.tag_next_prompt(id);
    }

    /// The model asked for through a handle while the last turn ran (the SDK's
    /// `set_model`) takes over now; a model the session refuses is told to `sink`.
    /// A prompt does this first itself.
    pub async fn apply_next_model(&mut self, sink: &mut (dyn FnMut(rein_engine::EngineEvent) + Send)) {
        if let Some(model) = self.handle().take_next_model()
            && let Err(e) = self.set_model(&model, "sdk").await
        {
            sink(rein_engine::EngineEvent::Notice(format!("The model stays {}: {e}", self.engine.model())));
        }
    }

    /// The prompt the user message with this id started (its index among the prompts).
    pub fn prompt_of(&self, id: &str) -> Option<usize> {
        self.engine.prompt_of(id)
    }

    /// Names a session from its first prompt with the small model, within 30 s.
    pub fn titler(&self) -> Titler {
        let (model, name) = self.parts.titles.clone();
        Arc::new(move |first: String| {
            let (model, name) = (model.clone(), name.clone());
            Box::pin(async move {
                let asked = rein_judge::session_title(model.as_ref(), &name, &first);
                // A failure is no loss: the session is listed by its first prompt.
                tokio::time::timeout(std::time::Duration::from_secs(30), asked).await.ok()?.ok()
            })
        })
    }
}
