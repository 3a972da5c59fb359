//! What the engine tells its frontends as a turn happens: stream deltas, complete
//! messages, tool starts and results, retries, compactions, notices and permission
//! verdicts. Frontends (print, TUI, SDK) see the engine through these events only.

use rein_model::ModelEvent;
use rein_protocol::{AssistantMessage, ContentBlock, Message, ToolUse};

use crate::gate::Verdict;

/// What the engine tells frontends, as it happens.
#[derive(Debug, Clone)]
pub enum EngineEvent {
    /// A streaming event of the response in progress (text deltas, blocks).
    Stream(ModelEvent),
    /// A complete assistant message (or, after a failed stream, what had arrived).
    Assistant(AssistantMessage),
    /// A tool call is about to run.
    ToolStarted(ToolUse),
    /// A failed request will be tried again after `delay`.
    ApiRetry { attempt: u32, max_retries: u32, delay: std::time::Duration, status: Option<u16>, error: String },
    /// The conversation was summarised to fit the window.
    Compacted { trigger: String, pre_tokens: u64, post_tokens: u64 },
    /// Something the user should see: a hook error, a hook's `systemMessage`.
    Notice(String),
    /// The permission verdict for a call (audit).
    Permission { call: ToolUse, verdict: Verdict },
    /// A tool call has its result (a `tool_result` block).
    ToolFinished { call: ToolUse, result: ContentBlock },
    /// The user message carrying the tool results of one response.
    ToolResults(Message),
}
