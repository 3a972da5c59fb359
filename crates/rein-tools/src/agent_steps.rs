//! What a call that runs an agent of its own (Agent, a workflow's agents) reports while
//! it runs: that agent's messages as each completes and the calls it starts. The
//! executor running the call hands it a [`StepSink`] for its id and passes the steps on
//! to the frontends (the terminal UI shows them under the call; the SDK sends them as
//! messages with a `parent_tool_use_id`).

use rein_protocol::{AssistantMessage, Message, ToolUse};
use tokio::sync::mpsc;

/// One step of an agent working inside a call.
#[derive(Debug, Clone)]
pub enum AgentStep {
    /// It starts a tool call.
    ToolStarted(ToolUse),
    /// One of its responses, complete.
    Assistant(AssistantMessage),
    /// The results of a response's calls, as the message sent back to its model.
    ToolResults(Message),
}

/// Where a call sends its agent's steps, tagged with the call's id.
#[derive(Debug, Clone)]
pub struct StepSink {
    call: String,
    tx: mpsc::UnboundedSender<(String, AgentStep)>,
}

impl StepSink {
    pub fn new(call: String, tx: mpsc::UnboundedSender<(String, AgentStep)>) -> Self {
        StepSink { call, tx }
    }

    /// Report `step` (dropped when nobody listens any more: the turn ended).
    pub fn send(&self, step: AgentStep) {
        let _ = self.tx.send((self.call.clone(), step));
    }

    /// The id of the call the steps belong to.
    pub fn call_id(&self) -> &str {
        &self.call
    }
}
