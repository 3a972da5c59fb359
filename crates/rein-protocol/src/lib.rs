//! The vocabulary every rein crate shares: messages, content blocks, usage, the Anthropic
//! SSE stream events and tool definitions, with serde shapes identical to the Anthropic
//! Messages API. This crate does no I/O, so the engine, the model clients, the tools and
//! the test server all speak exactly the same types.

mod content;
mod message;
mod stream;
mod tool;
mod usage;

pub use content::{
    ContentBlock, DocumentSource, IMAGE_TOKENS, INTERRUPTED, INTERRUPTED_RESPONSE, INTERRUPTED_TOOL_USE, ImageSource,
    MediaWeight, ToolResultContent, ToolUse,
};
pub use message::{AssistantMessage, Message, Role};
pub use stream::{ApiError, BlockDelta, MessageDeltaBody, MessageStartBody, StreamEvent};
pub use tool::ToolSpec;
pub use usage::{CacheCreation, ServerToolUse, Usage};
