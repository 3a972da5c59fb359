//! An MCP server's tool as a rein tool: offered as `mcp__<server>__<tool>` with the
//! server's description (capped) and input schema; a call goes through the whole chain
//! like any other and reaches the server with its own name; an interrupt or timeout
//! drops the request, which tells the server (`notifications/cancelled`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rein_effects::Effects;
use rein_protocol::ToolSpec;
use rein_tools::{ExternalTool, ToolContext, ToolError, ToolOutput};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest, ServerResult, Tool,
};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;

use crate::names::tool_name;

/// Descriptions and instructions are cut here (Claude Code's 2 KB).
pub const MAX_DESCRIPTION: usize = 2048;

pub struct McpTool {
    spec: ToolSpec,
    server: String,
    /// The tool's own name on the server.
    remote: String,
    read_only: bool,
    live: Arc<crate::live::Live>,
    timeout: Duration,
    /// Where binary results are saved.
    session_dir: PathBuf,
    max_output_chars: usize,
}

/// `text` cut to `max` characters (on a character boundary).
pub fn capped(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

impl McpTool {
    pub fn new(tool: &Tool, offer: &Offer) -> Arc<McpTool> {
        let description = capped(tool.description.as_deref().unwrap_or(""), MAX_DESCRIPTION);
        let input_schema = Value::Object((*tool.input_schema).clone());
        let read_only = tool.annotations.as_ref().and_then(|a| a.read_only_hint).unwrap_or(false);
        Arc::new(McpTool {
            spec: ToolSpec { name: tool_name(&offer.server, &tool.name), description, input_schema },
            server: offer.server.clone(),
            remote: tool.name.to_string(),
            read_only,
            live: offer.live.clone(),
            timeout: offer.timeout,
            session_dir: offer.session_dir.clone(),
            max_output_chars: offer.max_output_chars,
        })
    }
}

/// What one connected server's tools are made with.
#[derive(Clone)]
pub struct Offer {
    pub server: String,
    pub live: Arc<crate::live::Live>,
    /// Per call (the entry's `timeout`, else `MCP_TOOL_TIMEOUT`).
    pub timeout: Duration,
    /// Larger results are saved to a file and the model gets a preview.
    pub max_output_chars: usize,
    /// Where binary results are saved.
    pub session_dir: PathBuf,
}

impl Offer {
    /// Offer `tools` in `late` (names already there are kept as they are).
    pub fn add(&self, late: &rein_tools::LateTools, tools: &[Tool]) {
        for t in tools {
            let _ = late.add_from(&self.server, McpTool::new(t, self));
        }
    }
}

impl ExternalTool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn max_result_chars(&self) -> Option<usize> {
        Some(self.max_output_chars)
    }

    /// Not concurrency-safe unless the server marks the tool read-only.
    fn effects(&self, _input: &Value) -> Effects {
        Effects::mcp(&self.server, self.read_only)
    }

    fn call(&self, input: Value, ctx: ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let (live, server, remote, timeout) =
            (self.live.clone(), self.server.clone(), self.remote.clone(), self.timeout);
        let dir = self.session_dir.clone();
        Box::pin(async move {
            let args = input.as_object().cloned().unwrap_or_default();
            let peer = match live.peer().await {
                Ok(p) => p,
                Err(e) => return Ok(ToolOutput::failure(e.to_string())),
            };
            let request = ClientRequest::CallToolRequest(CallToolRequest::new(
                CallToolRequestParams::new(remote.clone()).with_arguments(args),
            ));
            let handle = match peer.send_request_with_option(request, PeerRequestOptions::no_options()).await {
                Ok(h) => h,
                Err(e) => return Ok(ToolOutput::failure(format!("MCP error: {e}"))),
            };
            let id = handle.id.clone();
            // The server is told when rein stops waiting (awaited, so that it is sent even
            // when rein exits right after).
            let cancel = |reason: &str| {
                let (peer, id, reason) = (peer.clone(), id.clone(), reason.to_string());
                async move {
                    let _ = peer.notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason))).await;
                }
            };
            let outcome = tokio::select! {
                r = tokio::time::timeout(timeout, handle.await_response()) => r,
                _ = ctx.abort.cancelled() => {
                    cancel("interrupted by the user").await;
                    return Ok(ToolOutput::failure(rein_protocol::INTERRUPTED));
                }
            };
            match outcome {
                Err(_) => {
                    cancel("timed out").await;
                    Ok(ToolOutput::failure(format!(
                        "MCP server \"{server}\" tool \"{remote}\" timed out after {}s",
                        timeout.as_secs()
                    )))
                }
                Ok(Err(e)) => Ok(ToolOutput::failure(format!("MCP error: {e}"))),
                Ok(Ok(ServerResult::CallToolResult(result))) => {
                    let json = serde_json::to_value(&result).map_err(|e| ToolError::new(e.to_string()))?;
                    Ok(crate::result::to_output(&server, &json, &dir))
                }
                Ok(Ok(other)) => {
                    let json = serde_json::to_value(&other).unwrap_or(Value::Null);
                    Ok(crate::result::to_output(&server, &json, &dir))
                }
            }
        })
    }
}
