//! The Claude Agent SDK's stdio protocol, as rein speaks it: Python `claude-agent-sdk`
//! and TypeScript `@anthropic-ai/claude-agent-sdk` programs run rein as their `claude`
//! executable. Every line rein writes is a typed [`frames::Frame`]; the `json` and
//! `stream-json` output of print mode and the SDK alike go through [`Lines`]. Lines on
//! stdin are user messages and typed control requests ([`inbound`], [`requests`]);
//! control requests go both ways, paired by `request_id` ([`Peer`]); questions become
//! `can_use_tool` requests through the engine's `Approver` seam ([`SdkApprover`]); hooks
//! registered in `initialize` run as `hook_callback` requests ([`SdkCallbacks`]). The
//! session loop ([`run()`]) drives the session owner's [`rein_session::Session`].

mod approver;
mod callbacks;
pub mod control;
pub mod frames;
pub mod inbound;
mod mcp_tunnel;
mod output;
mod peer;
mod permissions;
pub mod requests;
mod run;
pub mod stream_events;
mod wire_error;

pub use approver::{SdkApprover, TurnAbort};
pub use callbacks::{SdkCallbacks, register_hooks};
pub use inbound::{Inbound, UserLine};
pub use mcp_tunnel::McpTunnel;
pub use output::Lines;
pub use peer::{Peer, PeerError, SessionState};
pub use permissions::{PermissionTargets, WireUpdate, apply_updates};
pub use run::{BuildSession, SdkEnd, SdkFlags, run};
pub use wire_error::WireError;

/// Why the SDK session could not go on.
#[derive(Debug, thiserror::Error)]
pub enum SdkError {
    #[error(transparent)]
    Setup(#[from] rein_session::SetupError),
    #[error("initialize: {0}")]
    Initialize(#[source] WireError),
    #[error("{0}")]
    Build(String),
}
