//! The control requests the SDKs send rein, as serde types told apart by `subtype`:
//! `initialize` (hooks, agents, system prompt, in-process MCP servers), `interrupt`,
//! `set_permission_mode`, `set_model`, `mcp_status`, `get_context_usage`,
//! `rewind_files`, `mcp_reconnect`, `mcp_toggle`. A subtype rein does not know is
//! [`ControlRequest::Unsupported`] (answered with an error, never silence); a known one
//! whose fields do not read is an error naming the field.

use serde::Deserialize;
use serde_json::Value;

/// One request from the SDK.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlRequest {
    Initialize(Box<Initialize>),
    Interrupt {},
    SetPermissionMode {
        #[serde(default)]
        mode: String,
    },
    SetModel {
        #[serde(default)]
        model: Option<String>,
    },
    McpStatus {},
    GetContextUsage {},
    RewindFiles {
        #[serde(default)]
        user_message_id: Option<String>,
    },
    McpReconnect {
        #[serde(default, rename = "serverName")]
        server_name: String,
    },
    McpToggle {
        #[serde(default, rename = "serverName")]
        server_name: String,
        #[serde(default = "on")]
        enabled: bool,
    },
    /// A subtype rein does not know.
    #[serde(skip)]
    Unsupported(String),
}

/// What `initialize` registers.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Initialize {
    /// `{Event: [{matcher, hookCallbackIds, timeout}]}` (read by [`crate::register_hooks`]).
    #[serde(default)]
    pub hooks: Option<Value>,
    /// Subagents, as `--agents` takes them.
    #[serde(default)]
    pub agents: Option<Value>,
    /// The TypeScript SDK's system prompt: a string or a list of parts.
    #[serde(default)]
    pub system_prompt: Option<SystemPrompt>,
    #[serde(default)]
    pub append_system_prompt: Option<String>,
    /// The SDK host's in-process MCP servers, by name.
    #[serde(default)]
    pub sdk_mcp_servers: Vec<String>,
}

/// A system prompt: one text, or parts joined by blank lines.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum SystemPrompt {
    Text(String),
    Parts(Vec<String>),
}

impl SystemPrompt {
    pub fn text(&self) -> String {
        match self {
            SystemPrompt::Text(t) => t.clone(),
            SystemPrompt::Parts(parts) => parts.join("\n\n"),
        }
    }
}

/// The subtypes rein reads.
const KNOWN: &[&str] = &[
    "initialize",
    "interrupt",
    "set_permission_mode",
    "set_model",
    "mcp_status",
    "get_context_usage",
    "rewind_files",
    "mcp_reconnect",
    "mcp_toggle",
];

impl ControlRequest {
    /// Read a `request` object (its `subtype` is known to be a string).
    pub fn read(request: &Value) -> Result<ControlRequest, crate::WireError> {
        let subtype = request.get("subtype").and_then(Value::as_str).unwrap_or_default();
        if !KNOWN.contains(&subtype) {
            return Ok(ControlRequest::Unsupported(subtype.to_string()));
        }
        serde_json::from_value(request.clone())
            .map_err(|source| crate::WireError::Request { subtype: subtype.to_string(), source })
    }

    /// The request's subtype, as the SDK named it.
    pub fn subtype(&self) -> &str {
        match self {
            ControlRequest::Initialize(_) => "initialize",
            ControlRequest::Interrupt {} => "interrupt",
            ControlRequest::SetPermissionMode { .. } => "set_permission_mode",
            ControlRequest::SetModel { .. } => "set_model",
            ControlRequest::McpStatus {} => "mcp_status",
            ControlRequest::GetContextUsage {} => "get_context_usage",
            ControlRequest::RewindFiles { .. } => "rewind_files",
            ControlRequest::McpReconnect { .. } => "mcp_reconnect",
            ControlRequest::McpToggle { .. } => "mcp_toggle",
            ControlRequest::Unsupported(s) => s,
        }
    }
}

/// `mcp_toggle` without `enabled`: on.
fn on() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_of_both_sdks_read_and_unknown_ones_are_named() {
        let init =
            json!({"subtype": "initialize", "hooks": null, "systemPrompt": ["a", "b"], "sdkMcpServers": ["calc"]});
        let Ok(ControlRequest::Initialize(i)) = ControlRequest::read(&init) else { panic!("initialize") };
        assert_eq!(i.system_prompt.map(|p| p.text()).as_deref(), Some("a\n\nb"));
        assert_eq!(i.sdk_mcp_servers, ["calc"]);
        let mode = json!({"subtype": "set_permission_mode", "mode": "plan", "extra": 1});
        assert_eq!(ControlRequest::read(&mode).ok(), Some(ControlRequest::SetPermissionMode { mode: "plan".into() }));
        assert_eq!(ControlRequest::read(&json!({"subtype": "interrupt"})).ok(), Some(ControlRequest::Interrupt {}));
        let unknown = ControlRequest::read(&json!({"subtype": "apply_flag_settings"}));
        assert_eq!(unknown.as_ref().map(ControlRequest::subtype).ok(), Some("apply_flag_settings"));
        assert!(ControlRequest::read(&json!({"subtype": "set_model", "model": 7})).is_err());
    }
}
