//! `ListMcpResourcesTool {server?}` and `ReadMcpResourceTool {server, uri}`, offered
//! once a connected server has resources, with Claude Code's names, inputs and output
//! shapes: a JSON array of resources each naming its `server`; `{"contents": […]}` with
//! binary contents saved to the session directory.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rein_effects::Effects;
use rein_protocol::ToolSpec;
use rein_tools::{ExternalTool, ToolContext, ToolError, ToolOutput};
use rmcp::model::ReadResourceRequestParams;
use serde_json::{Value, json};

use crate::live::Live;

/// The connected servers, by the time a call comes.
pub(crate) type Lives = Arc<Mutex<Vec<Arc<Live>>>>;

fn find(lives: &Lives, name: &str) -> Option<Arc<Live>> {
    lives.lock().unwrap_or_else(|p| p.into_inner()).iter().find(|l| l.name() == name).cloned()
}

pub(crate) struct ListResources {
    spec: ToolSpec,
    lives: Lives,
}

pub(crate) struct ReadResource {
    spec: ToolSpec,
    lives: Lives,
    session_dir: PathBuf,
}

impl ListResources {
    pub(crate) fn new(lives: Lives) -> Arc<ListResources> {
        let spec = ToolSpec {
            name: "ListMcpResourcesTool".into(),
            description: "Lists the resources the connected MCP servers offer (all servers, or one).".into(),
            input_schema: json!({"type": "object", "properties": {"server": {"type": "string",
                "description": "Optional server name to filter resources by"}}, "additionalProperties": false}),
        };
        Arc::new(ListResources { spec, lives })
    }
}

impl ReadResource {
    pub(crate) fn new(lives: Lives, session_dir: PathBuf) -> Arc<ReadResource> {
        let spec = ToolSpec {
            name: "ReadMcpResourceTool".into(),
            description: "Reads one resource of a connected MCP server by its URI.".into(),
            input_schema: json!({"type": "object", "properties": {
                "server": {"type": "string", "description": "The MCP server name"},
                "uri": {"type": "string", "description": "The resource URI to read"}},
                "required": ["server", "uri"], "additionalProperties": false}),
        };
        Arc::new(ReadResource { spec, lives, session_dir })
    }
}

impl ExternalTool for ListResources {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn effects(&self, input: &Value) -> Effects {
        Effects::mcp(input["server"].as_str().unwrap_or("*"), true)
    }

    fn call(&self, input: Value, _ctx: ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let lives: Vec<Arc<Live>> = self.lives.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let only = input["server"].as_str().map(str::to_string);
        Box::pin(async move {
            if let Some(name) = &only
                && !lives.iter().any(|l| l.name() == name)
            {
                return Ok(ToolOutput::failure(format!("Server \"{name}\" not found or not connected")));
            }
            let mut all = Vec::new();
            for live in lives.iter().filter(|l| only.as_deref().is_none_or(|o| l.name() == o)) {
                let Ok(peer) = live.peer().await else { continue };
                let Ok(resources) = peer.list_all_resources().await else { continue };
                for r in resources {
                    let mut v = serde_json::to_value(&r).unwrap_or(Value::Null);
                    if let Value::Object(m) = &mut v {
                        m.insert("server".into(), Value::from(live.name()));
                    }
                    all.push(v);
                }
            }
            Ok(ToolOutput::text(Value::Array(all).to_string()))
        })
    }
}

impl ExternalTool for ReadResource {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn effects(&self, input: &Value) -> Effects {
        Effects::mcp(input["server"].as_str().unwrap_or(""), true)
    }

    fn call(&self, input: Value, _ctx: ToolContext) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let server = input["server"].as_str().unwrap_or("").to_string();
        let uri = input["uri"].as_str().unwrap_or("").to_string();
        let live = find(&self.lives, &server);
        let dir = self.session_dir.clone();
        Box::pin(async move {
            let Some(live) = live else {
                return Ok(ToolOutput::failure(format!("Server \"{server}\" not found or not connected")));
            };
            let peer = match live.peer().await {
                Ok(p) => p,
                Err(e) => return Ok(ToolOutput::failure(e.to_string())),
            };
            let result = match peer.read_resource(ReadResourceRequestParams::new(uri.clone())).await {
                Ok(r) => r,
                Err(e) => return Ok(ToolOutput::failure(format!("MCP error: {e}"))),
            };
            let mut contents = Vec::new();
            for c in serde_json::to_value(&result.contents).unwrap_or(Value::Null).as_array().into_iter().flatten() {
                if c.get("blob").is_some() {
                    let note = crate::result::to_output(
                        &server,
                        &json!({"content": [{"type": "resource", "resource": c}]}),
                        &dir,
                    );
                    let text = match note.content {
                        rein_protocol::ToolResultContent::Text(t) => t,
                        other => format!("{other:?}"),
                    };
                    contents.push(json!({"uri": c["uri"], "mimeType": c["mimeType"], "text": text}));
                } else {
                    contents.push(c.clone());
                }
            }
            Ok(ToolOutput::text(json!({"contents": contents}).to_string()))
        })
    }
}
