//! `rein mcp serve`: rein's own tools for another MCP client (an editor, another agent)
//! over stdio, as `claude mcp serve` offers Claude Code's.
//!
//! Each `tools/call` goes through the serving folder's session exactly as the model's
//! calls do — schema, hooks, permission rules, sandbox, the trial of a command rein
//! cannot model — and joins no conversation. There is no person on this channel: a call
//! the rules would ask about is refused, saying so and which rule would let it run
//! ([`NoPersonToAsk`]), unless rein can try it first where it changes nothing.
//!
//! Offered: the tools that act on the folder ([`SERVED`]). Those that need a model, a
//! conversation or a person (Agent, AskUserQuestion, plan mode, WebSearch, …) are not.

use std::sync::Arc;

use futures::future::BoxFuture;
use rein_protocol::{ContentBlock, ImageSource, ToolResultContent};
use rein_session::Session;
use rein_session::events::{Answer, Approver, PermissionQuestion};
use rmcp::ServerHandler;
use rmcp::ServiceExt as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock as Content, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use tokio::sync::Mutex;

/// The tools a client is offered, when the session has them.
pub const SERVED: &[&str] = &["Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Glob", "Grep"];

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the MCP connection could not start: {0}")]
    Start(String),
    #[error("the MCP server stopped: {0}")]
    Stopped(String),
}

/// The approver of a session nobody sits at: every question is answered no, with why.
pub struct NoPersonToAsk;

impl Approver for NoPersonToAsk {
    fn approve<'a>(&'a self, question: PermissionQuestion<'a>) -> BoxFuture<'a, Answer> {
        let what = match question {
            PermissionQuestion::Call { call, .. } => format!("{} call", call.name),
            PermissionQuestion::Network { host, port, .. } => format!("connection to {host}:{port}"),
        };
        let mut answer = Answer::refuse(format!(
            "rein's MCP server has no person to ask, and its permission rules do not allow this {what}. To let MCP \
             clients run it, allow it in `permissions.allow` of your settings (~/.claude/settings.json, or this \
             folder's once you have trusted it), e.g. \"Bash(npm test)\" or \"Edit\"."
        ));
        answer.verbatim = true;
        Box::pin(async move { answer })
    }
}

/// The model of a session that serves tools: there is none (no conversation, no
/// credentials needed); anything that would ask one (a prompt hook) is told so.
pub struct NoModel;

impl rein_model::Model for NoModel {
    fn stream(&self, _request: rein_model::ModelRequest) -> rein_model::ModelStream {
        let why = rein_model::ModelError::Request("rein mcp serve talks to no model".into());
        Box::pin(futures::stream::once(async move { Err(why) }))
    }
}

/// The MCP server over a session.
struct Served {
    session: Mutex<Session>,
    tools: Arc<Vec<Tool>>,
}

impl ServerHandler for Served {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("rein", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "rein's tools for this folder: reading, searching, editing files and running commands, each \
                 checked against the folder's permission rules and run in rein's sandbox.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.tools.iter().any(|t| t.name == request.name) {
            return Ok(CallToolResult::error(vec![Content::text(format!(
                "rein serves no tool named {:?}; tools/list names those it serves",
                request.name
            ))])
            .into());
        }
        let input = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let (content, failed) = self.session.lock().await.call_tool(&request.name, input).await;
        let content = contents(content);
        Ok(if failed { CallToolResult::error(content) } else { CallToolResult::success(content) }.into())
    }
}

/// A tool's result as MCP content: its text and images.
fn contents(result: ToolResultContent) -> Vec<Content> {
    match result {
        ToolResultContent::Text(text) => vec![Content::text(text)],
        ToolResultContent::Blocks(blocks) => blocks
            .into_iter()
            .map(|b| match b {
                ContentBlock::Text { text, .. } => Content::text(text),
                ContentBlock::Image { source: ImageSource::Base64 { media_type, data }, .. } => {
                    Content::image(data, media_type)
                }
                other => Content::text(serde_json::to_string(&other).unwrap_or_default()),
            })
            .collect(),
    }
}

/// The definitions a client is offered: the session's, of the [`SERVED`] tools.
fn offered(session: &Session) -> Vec<Tool> {
    session
        .tool_specs()
        .iter()
        .filter(|s| SERVED.contains(&s.name.as_str()))
        .map(|s| {
            let schema = s.input_schema.as_object().cloned().unwrap_or_default();
            Tool::new(s.name.clone(), s.description.clone(), Arc::new(schema))
        })
        .collect()
}

/// Serve `session`'s tools on stdin/stdout until the client goes away.
pub async fn serve_stdio(session: Session) -> Result<(), ServeError> {
    let tools = Arc::new(offered(&session));
    let server = Served { session: Mutex::new(session), tools };
    let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| ServeError::Start(e.to_string()))?;
    running.waiting().await.map_err(|e| ServeError::Stopped(e.to_string()))?;
    Ok(())
}
