//! A fake Anthropic Messages server for rein's tests and benchmarks: a real HTTP server on
//! 127.0.0.1 that answers `POST /v1/messages` from a scripted [`Scenario`] — streamed
//! responses (whose `stop_reason` may lie), delays between events, HTTP errors with
//! `retry-after`, raw (possibly malformed) SSE, and connections dropped mid-stream — and
//! records every request for assertions.
//!
//! Scenarios read like the conversation they fake:
//! `Scenario::new([reply([text("Listing."), tool_use("Glob", json!({"pattern": "*"}))]), reply([text("Done.")])])`.

pub mod bedrock;
mod chat;
pub mod oauth_mcp;
mod pairing;
mod responses;
mod scenario;
mod server;
mod sse;

pub use chat::chat_chunks;
pub use pairing::check_pairing;
pub use responses::responses_events;
pub use scenario::{Reply, Scenario, Step, reply, text, thinking, tool_use, tool_use_with_id};
pub use server::{FakeServer, RecordedRequest};
pub use sse::reply_events;
