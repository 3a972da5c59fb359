//! The SDK host's in-process MCP servers: each JSON-RPC message rein sends to one is an
//! `mcp_message` control request (`server_name`, `message`), and the reply's
//! `mcp_response` is the server's answer.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::Peer;

/// rein-mcp's tunnel over the SDK's control protocol.
pub struct McpTunnel {
    pub peer: Arc<Peer>,
}

impl rein_mcp::Tunnel for McpTunnel {
    fn send<'a>(&'a self, server: &'a str, message: Value) -> BoxFuture<'a, Result<Value, rein_mcp::TunnelError>> {
        Box::pin(async move {
            let request = crate::frames::OutRequest::McpMessage { server_name: server, message: &message };
            let reply = self.peer.request(request).await.map_err(|e| rein_mcp::TunnelError::Host(Box::new(e)))?;
            match reply.get("mcp_response") {
                Some(answer) => Ok(answer.clone()),
                None => Err(rein_mcp::TunnelError::NoResponse(reply)),
            }
        })
    }
}
