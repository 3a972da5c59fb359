//! Model providers for rein. The engine talks to a [`Model`]: it hands over a
//! [`ModelRequest`] and reads back a typed stream of [`ModelEvent`]s (block started, text
//! delta, block complete — a `tool_use` arrives complete, its input parsed once — and
//! message done with stop_reason and usage).
//!
//! Providers: [`AnthropicClient`] speaks the Anthropic Messages streaming API over
//! reqwest + eventsource-stream, [`VertexClient`] and [`BedrockClient`] the same API on
//! Google Vertex AI and Amazon Bedrock,
//! [`OpenAiChatClient`] Chat Completions and Responses servers; [`ScriptedModel`] replays a built-in script in process,
//! for the offline demo.

mod anthropic;
mod assemble;
mod bedrock;
mod chat_stream;
mod error;
mod event;
mod http;
mod models;
mod openai_cache;
mod openai_chat;
mod pricing;
mod request;
mod responses_body;
mod responses_stream;
mod scripted;
mod server_tools;
mod sse_body;
mod system;
mod thinking;
mod vertex;

use std::pin::Pin;

use futures::Stream;

pub use anthropic::{ANTHROPIC_VERSION, AnthropicClient, AnthropicConfig, Auth};
pub use assemble::{Assembler, INCOMPLETE_INPUT_KEY};
pub use bedrock::{BEDROCK_ANTHROPIC_VERSION, BedrockAuth, BedrockClient, BedrockConfig};
pub use error::{ModelError, UnknownChoice};
pub use event::{BlockKind, ModelEvent};
pub use models::{
    Aliases, ModelInfo, ThinkingStyle, context_window, default_model, model_info, resolve_alias, small_fast_model,
};
pub use openai_chat::{OpenAiChatClient, OpenAiConfig, OpenAiWire};
pub use pricing::{WEB_SEARCH_USD, cost_usd};
pub use request::{CachedMessage, ModelRequest};
pub use scripted::{ScriptedModel, ScriptedReply, ScriptedTurn};
pub use server_tools::{WEB_SEARCH_TOOL, WebSearch};
pub use system::{CacheTtl, System};
pub use thinking::{
    BETA_CONTEXT_MANAGEMENT, BETA_EFFORT, BETA_INTERLEAVED, Effort, Reasoning, Thinking, ThinkingChoice, ThinkingMode,
};
pub use vertex::{MODEL_REGION_PREFIX, VERTEX_ANTHROPIC_VERSION, VertexClient, VertexConfig, region_var};

/// The typed event stream of one model response.
pub type ModelStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, ModelError>> + Send>>;

/// A language model the engine can ask for the next assistant message.
pub trait Model: Send + Sync {
    /// Start one request. Connection and HTTP errors arrive as the stream's first item.
    fn stream(&self, request: ModelRequest) -> ModelStream;

    /// Read the credentials again (after a 401). True when they changed, so that one
    /// more try makes sense.
    fn refresh_credentials(&self) -> bool {
        false
    }
}
