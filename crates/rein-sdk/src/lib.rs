//! The Claude Agent SDK's stdio protocol, as rein speaks it: Python `claude-agent-sdk`
//! and TypeScript `@anthropic-ai/claude-agent-sdk` programs run rein as their `claude`
//! executable. Lines on stdin are user messages and control requests/responses
//! ([`inbound`]); control requests go both ways, paired by `request_id` ([`Peer`]);
//! questions become `can_use_tool` requests through the engine's `Approver` seam
//! ([`SdkApprover`]); hooks registered in `initialize` run as `hook_callback` requests
//! ([`SdkCallbacks`]). The session loop that ties them to the engine is the binary's.

mod approver;
mod callbacks;
pub mod inbound;
mod mcp_tunnel;
mod peer;
mod permissions;

pub use approver::{SdkApprover, TurnAbort};
pub use callbacks::{SdkCallbacks, register_hooks};
pub use inbound::{Inbound, UserLine};
pub use mcp_tunnel::McpTunnel;
pub use peer::{Peer, PeerError, SessionState};
pub use permissions::{PermissionTargets, apply_updates};
