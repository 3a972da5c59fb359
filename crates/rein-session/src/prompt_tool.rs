//! `--permission-prompt-tool mcp__server__tool`: each question goes to that MCP tool
//! with `{tool_name, input, tool_use_id}`; its text reply is Claude Code's JSON
//! (`{"behavior": "allow", "updatedInput": {…}}` or `{"behavior": "deny", "message":
//! "…"}`). Anything else, or a failed call, is a deny.

use std::sync::Arc;

use crate::error::invalid;
use futures::future::BoxFuture;
use rein_engine::{Answer, Approver, PermissionQuestion};
use rein_tools::{Registry, ToolContext};
use serde_json::{Value, json};

use crate::Setup;

struct McpPromptTool {
    tool: String,
    registry: Arc<Registry>,
    ctx: ToolContext,
}

/// The approver for `--permission-prompt-tool NAME` (`stdio` is the SDK's, elsewhere).
pub(crate) fn approver(name: &str, setup: &Setup, registry: Arc<Registry>) -> crate::Result<Arc<dyn Approver>> {
    check(name)?;
    let ctx = ToolContext::new(setup.cwd.clone(), setup.session_dir.clone());
    Ok(Arc::new(McpPromptTool { tool: name.to_string(), registry, ctx }))
}

/// `--permission-prompt-tool NAME` names an MCP tool (`mcp__server__tool`).
pub fn check(name: &str) -> crate::Result<()> {
    if !name.starts_with("mcp__") {
        invalid!("--permission-prompt-tool {name:?}: use `stdio` (the Agent SDK) or an MCP tool, mcp__server__tool");
    }
    Ok(())
}

impl Approver for McpPromptTool {
    fn wants_every_question(&self) -> bool {
        !crate::env::programs_let_rein_try_first()
    }

    fn approve<'a>(&'a self, question: PermissionQuestion<'a>) -> BoxFuture<'a, Answer> {
        let (call, _, _) = question.as_call();
        Box::pin(async move {
            let call = &call;
            self.registry.ready(&self.tool).await;
            let input = json!({"tool_name": call.name, "input": call.input, "tool_use_id": call.id});
            let reply = match self.registry.prepare(&self.tool, &input) {
                Ok(prepared) => prepared.call(self.ctx.clone()).await,
                Err(e) => {
                    return Answer::refuse(format!("the permission prompt tool {} cannot be used: {e}", self.tool));
                }
            };
            let text = match reply {
                Ok(out) if !out.is_error => out.content.to_text(),
                Ok(out) => {
                    return Answer::refuse(format!("the permission prompt tool failed: {}", out.content.to_text()));
                }
                Err(e) => return Answer::refuse(format!("the permission prompt tool failed: {e}")),
            };
            let Ok(answer) = serde_json::from_str::<Value>(text.trim()) else {
                return Answer::refuse(format!("the permission prompt tool's reply is not JSON: {text}"));
            };
            match answer.get("behavior").and_then(Value::as_str) {
                Some("allow") => Answer {
                    allow: true,
                    updated_input: answer.get("updatedInput").filter(|v| v.is_object() && **v != call.input).cloned(),
                    ..Answer::default()
                },
                Some("deny") => Answer {
                    allow: false,
                    message: answer.get("message").and_then(Value::as_str).map(str::to_string),
                    verbatim: true,
                    ..Answer::default()
                },
                _ => Answer::refuse(format!("the permission prompt tool answered neither allow nor deny: {text}")),
            }
        })
    }
}
