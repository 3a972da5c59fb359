//! What a model stream yields: text and thinking deltas, complete blocks, usage, and the
//! finished message.

use rein_protocol::{AssistantMessage, ContentBlock, Usage};

/// What kind of content block has started streaming.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Text,
    ToolUse,
    Thinking,
    RedactedThinking,
    Other,
}

/// A typed event of one streamed model response, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    MessageStart {
        id: String,
        model: String,
        usage: Usage,
    },
    BlockStart {
        index: usize,
        kind: BlockKind,
    },
    TextDelta {
        index: usize,
        text: String,
    },
    ThinkingDelta {
        index: usize,
        thinking: String,
    },
    /// A block is complete. A `tool_use` block carries its fully parsed input.
    BlockComplete {
        index: usize,
        block: ContentBlock,
    },
    /// The whole message, with its stop_reason and final cumulative usage.
    MessageDone(AssistantMessage),
}
