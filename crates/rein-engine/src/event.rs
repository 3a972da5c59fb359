//! What the engine tells its frontends as a turn happens: stream deltas, complete
//! messages, tool starts and results, retries, compactions, notices and permission
//! verdicts. Frontends (print, TUI, SDK) see the engine through these events only.

use rein_model::{BlockKind, ModelEvent};
use rein_protocol::{AssistantMessage, ContentBlock, Message, ToolUse, Usage};

use crate::gate::Verdict;

/// What the engine tells frontends, as it happens.
#[derive(Debug, Clone)]
pub enum EngineEvent {
    /// A streaming event of the response in progress (text deltas, blocks).
    Stream(StreamDelta),
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
    /// A call finished running (its result is reported with its batch, in call order,
    /// as [`EngineEvent::ToolFinished`]): a frontend stops its clock.
    ToolDone { id: String },
    /// A tool call has its result (a `tool_result` block). `saved`: the file holding the
    /// whole result when `result` is only its preview.
    ToolFinished { call: ToolUse, result: ContentBlock, saved: Option<std::path::PathBuf> },
    /// The user message carrying the tool results of one response.
    ToolResults(Message),
    /// The person interrupted: the note the conversation keeps of it (a user message
    /// `[Request interrupted by user]`, as Claude Code writes it).
    Interrupted(Message),
    /// A step of the agent working inside call `parent` (a subagent), while it runs.
    AgentStep { parent: String, step: rein_tools::AgentStep },
}

/// One streaming event of the response in progress, as frontends see it: the engine's
/// own type, so no frontend reads the model client's events. The response's end is
/// [`EngineEvent::Assistant`].
#[derive(Debug, Clone, PartialEq)]
pub enum StreamDelta {
    /// A response started (a hook may send the model back to work: several per turn).
    MessageStarted { id: String, model: String, usage: Usage },
    /// A content block opened.
    BlockStarted { index: usize, kind: BlockType },
    /// Text of block `index`.
    Text { index: usize, text: String },
    /// Thinking of block `index`.
    Thinking { index: usize, thinking: String },
    /// Block `index` is complete (a `tool_use` block carries its parsed input).
    BlockDone { index: usize, block: ContentBlock },
}

/// The type of a content block as it opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockType {
    Text,
    ToolUse,
    Thinking,
    RedactedThinking,
    Other,
}

impl StreamDelta {
    /// The delta a model event stands for (`None`: the response's end, which the engine
    /// reports as the complete message).
    pub(crate) fn of(event: ModelEvent) -> Option<StreamDelta> {
        Some(match event {
            ModelEvent::MessageStart { id, model, usage } => StreamDelta::MessageStarted { id, model, usage },
            ModelEvent::BlockStart { index, kind } => StreamDelta::BlockStarted {
                index,
                kind: match kind {
                    BlockKind::Text => BlockType::Text,
                    BlockKind::ToolUse => BlockType::ToolUse,
                    BlockKind::Thinking => BlockType::Thinking,
                    BlockKind::RedactedThinking => BlockType::RedactedThinking,
                    BlockKind::Other => BlockType::Other,
                },
            },
            ModelEvent::TextDelta { index, text } => StreamDelta::Text { index, text },
            ModelEvent::ThinkingDelta { index, thinking } => StreamDelta::Thinking { index, thinking },
            ModelEvent::BlockComplete { index, block } => StreamDelta::BlockDone { index, block },
            ModelEvent::MessageDone(_) => return None,
        })
    }
}
