//! Every line rein writes on the stream-json pipe, as serde types (spec §D2 and the
//! Agent SDK's control protocol): `system` frames (`init`, `compact_boundary`,
//! `api_retry`, `session_state_changed`), `assistant` and `user` messages,
//! `stream_event`s, the `result`, and the control frames (`control_request`,
//! `control_response`, `control_cancel_request`). A field's name and presence are
//! fixed here, once, for print mode and the SDK loop alike.

use std::collections::BTreeMap;
use std::path::Path;

use rein_protocol::Usage;
use serde::Serialize;
use serde_json::Value;

use crate::stream_events::ApiEvent;

/// One line of output.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Frame<'a> {
    System {
        #[serde(flatten)]
        system: System<'a>,
        session_id: &'a str,
        uuid: String,
        /// When it was written (RFC 3339, milliseconds); not on the frequent ones.
        #[serde(skip_serializing_if = "Option::is_none")]
        written_at: Option<String>,
    },
    /// A complete assistant message.
    Assistant {
        message: &'a rein_protocol::AssistantMessage,
        uuid: String,
        session_id: &'a str,
        parent_tool_use_id: Option<&'a str>,
    },
    /// A user message: tool results, or the prompt echoed (`--replay-user-messages`).
    User { message: UserMessage<'a>, uuid: String, session_id: &'a str, parent_tool_use_id: Option<&'a str> },
    /// One Messages API streaming event (`--include-partial-messages`).
    StreamEvent { event: ApiEvent<'a>, uuid: String, session_id: &'a str, parent_tool_use_id: Option<&'a str> },
    /// The turn's end.
    Result(Box<ResultFrame<'a>>),
    /// A request rein makes of the SDK.
    ControlRequest { request_id: &'a str, request: OutRequest<'a> },
    /// rein's answer to one of the SDK's requests.
    ControlResponse { response: ControlResponse<'a> },
    /// rein withdrew a request (the turn was interrupted).
    ControlCancelRequest { request_id: &'a str },
}

/// A user message as the SDKs read it: the tool-result message, or the prompt's content
/// as it arrived.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum UserMessage<'a> {
    Message(&'a rein_protocol::Message),
    Prompt { role: &'static str, content: &'a Value },
}

/// The `system` frames, told apart by `subtype`.
#[derive(Debug, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum System<'a> {
    Init(Box<Init<'a>>),
    CompactBoundary {
        compact_metadata: CompactMetadata<'a>,
    },
    ApiRetry {
        attempt: u32,
        max_retries: u32,
        retry_delay_ms: u64,
        error_status: Option<u16>,
        error: &'a str,
    },
    /// `--include-partial-messages`: a model request is under way (`requesting`).
    Status {
        status: &'static str,
    },
    /// `--include-partial-messages`: how many tokens the response's thinking has taken
    /// so far, estimated (four characters a token) as it streams.
    ThinkingTokens {
        estimated_tokens: u64,
        estimated_tokens_delta: u64,
    },
    /// `CLAUDE_CODE_SDK_READS_SESSION_STATE=1`: `running`, `requires_action`, `idle`.
    SessionStateChanged {
        state: &'a str,
        sdk_host_only: bool,
    },
}

/// What a compaction did.
#[derive(Debug, Serialize)]
pub struct CompactMetadata<'a> {
    pub trigger: &'a str,
    pub pre_tokens: u64,
    pub post_tokens: u64,
}

/// `system/init`: what the turn runs with.
#[derive(Debug, Serialize)]
pub struct Init<'a> {
    pub cwd: &'a Path,
    pub model: &'a str,
    pub tools: &'a [String],
    pub mcp_servers: Vec<McpServer<'a>>,
    #[serde(rename = "permissionMode")]
    pub permission_mode: &'static str,
    /// What a program may send: skills, the project's and plugins' commands, rein's own.
    pub slash_commands: Vec<String>,
    /// rein's commands that only its terminal UI runs.
    pub terminal_slash_commands: Vec<&'static str>,
    #[serde(rename = "apiKeySource")]
    pub api_key_source: &'static str,
    pub claude_code_version: &'static str,
    pub output_style: &'a str,
    pub agents: Vec<&'a str>,
    pub skills: Vec<&'a str>,
    pub plugins: Vec<PluginInfo>,
    /// Plugins that could not be loaded.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plugin_errors: Vec<&'a str>,
    /// Configuration entries that were skipped.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mcp_server_errors: Vec<McpServerError<'a>>,
    /// rein sends no usage analytics and asks for no product feedback.
    pub analytics_disabled: bool,
    pub product_feedback_disabled: bool,
    /// Commands run in the OS sandbox.
    pub sandbox_enabled: bool,
    /// Where the session keeps its memory (`auto`: the project's memory folder).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub memory_paths: BTreeMap<&'static str, String>,
    pub original_cwd: &'a Path,
    pub additional_directories: Vec<String>,
    pub fast_mode_state: &'static str,
}

/// A plugin in use, as `init` lists it.
#[derive(Debug, Serialize)]
pub struct PluginInfo {
    pub name: String,
    pub path: String,
    /// `NAME@MARKETPLACE`, or `NAME@inline` for one given by folder.
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// One MCP server of `init` (`source`) or of an `mcp_status` answer (`scope`).
#[derive(Debug, Serialize)]
pub struct McpServer<'a> {
    pub name: &'a str,
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

/// A configuration entry rein skipped.
#[derive(Debug, Serialize)]
pub struct McpServerError<'a> {
    pub name: &'a str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub message: &'a str,
    pub file: &'a str,
}

/// The `result` line.
#[derive(Debug, Serialize)]
pub struct ResultFrame<'a> {
    pub subtype: &'static str,
    pub uuid: String,
    pub session_id: &'a str,
    pub is_error: bool,
    pub duration_ms: u64,
    pub duration_api_ms: u64,
    pub num_turns: u32,
    pub stop_reason: Option<&'a str>,
    pub total_cost_usd: f64,
    pub usage: ResultUsage,
    #[serde(rename = "modelUsage")]
    pub model_usage: BTreeMap<&'a str, ModelUsage>,
    pub permission_denials: Vec<Denial<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deferred_tool_use: Option<ToolCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<String>>,
    /// `completed` when the turn ended as the model meant it to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<&'static str>,
}

/// The turn's usage as Claude Code's `result` gives it: every field a program may read,
/// zero where rein has nothing to count.
#[derive(Debug, Serialize)]
pub struct ResultUsage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub output_tokens: u64,
    pub output_tokens_details: OutputDetails,
    pub server_tool_use: rein_protocol::ServerToolUse,
    pub service_tier: &'static str,
    pub cache_creation: CacheWrites,
    pub inference_geo: &'static str,
    pub iterations: [(); 0],
    pub speed: &'static str,
    pub fallback_credit: Option<()>,
}

/// Cache writes by lifetime, the longer first (as Claude Code lists them).
#[derive(Debug, Serialize)]
pub struct CacheWrites {
    pub ephemeral_1h_input_tokens: u64,
    pub ephemeral_5m_input_tokens: u64,
}

#[derive(Debug, Serialize)]
pub struct OutputDetails {
    pub thinking_tokens: u64,
}

impl ResultUsage {
    pub fn of(usage: &Usage) -> Self {
        ResultUsage {
            input_tokens: usage.input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            output_tokens: usage.output_tokens,
            output_tokens_details: OutputDetails { thinking_tokens: 0 },
            server_tool_use: usage.server_tool_use.unwrap_or_default(),
            service_tier: "standard",
            // Writes of unknown lifetime are the default five-minute ones.
            cache_creation: usage.cache_creation.map_or(
                CacheWrites {
                    ephemeral_1h_input_tokens: 0,
                    ephemeral_5m_input_tokens: usage.cache_creation_input_tokens,
                },
                |c| CacheWrites {
                    ephemeral_1h_input_tokens: c.ephemeral_1h_input_tokens,
                    ephemeral_5m_input_tokens: c.ephemeral_5m_input_tokens,
                },
            ),
            inference_geo: "",
            iterations: [],
            speed: "standard",
            fallback_credit: None,
        }
    }
}

/// One model's share of the turn.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub web_search_requests: u64,
    #[serde(rename = "costUSD")]
    pub cost_usd: f64,
    pub context_window: u64,
    pub max_output_tokens: u32,
    pub thinking_tokens: u64,
    #[serde(rename = "cacheCreationEphemeral5mInputTokens")]
    pub cache_creation_ephemeral_5m_input_tokens: u64,
    #[serde(rename = "cacheCreationEphemeral1hInputTokens")]
    pub cache_creation_ephemeral_1h_input_tokens: u64,
    pub canonical_model: String,
    /// Which API served it: `firstParty`, `bedrock`, `vertex`, `foundry`.
    pub provider: &'static str,
    /// Priced at the published list prices.
    pub cost_basis: &'static str,
}

/// A call the permission system refused.
#[derive(Debug, Serialize)]
pub struct Denial<'a> {
    pub tool_name: &'a str,
    pub tool_use_id: &'a str,
    pub tool_input: &'a Value,
}

/// A tool call named in a frame.
#[derive(Debug, Serialize)]
pub struct ToolCall<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub input: &'a Value,
}

/// The requests rein makes of the SDK.
#[derive(Debug, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum OutRequest<'a> {
    /// A permission question.
    CanUseTool {
        tool_name: &'a str,
        display_name: &'a str,
        input: &'a Value,
        tool_use_id: &'a str,
        permission_suggestions: Vec<crate::WireUpdate>,
        decision_reason: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        blocked_path: Option<&'a Path>,
    },
    /// A hook the SDK registered in `initialize`.
    HookCallback { callback_id: &'a str, input: &'a Value, tool_use_id: Option<&'a str> },
    /// A message for an in-process (SDK) MCP server.
    McpMessage { server_name: &'a str, message: &'a Value },
}

/// rein's answer to request `request_id`.
#[derive(Debug, Serialize)]
#[serde(tag = "subtype", rename_all = "snake_case")]
pub enum ControlResponse<'a> {
    Success { request_id: &'a str, response: Value },
    Error { request_id: &'a str, error: &'a str },
}

/// A new line id.
pub fn uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// Now, as a frame's `written_at` (RFC 3339 UTC, milliseconds).
pub fn written_at() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_frames_carry_type_and_subtype_with_their_fields() {
        let frame = Frame::System {
            system: System::CompactBoundary {
                compact_metadata: CompactMetadata { trigger: "auto", pre_tokens: 10, post_tokens: 2 },
            },
            uuid: "u".into(),
            session_id: "s",
            written_at: None,
        };
        let v = serde_json::to_value(&frame).unwrap_or_default();
        assert_eq!(v["type"], "system");
        assert_eq!(v["subtype"], "compact_boundary");
        assert_eq!(v["compact_metadata"]["pre_tokens"], 10);
        assert_eq!(v["session_id"], "s");
        let reply = Frame::ControlResponse { response: ControlResponse::Error { request_id: "r", error: "no" } };
        let v = serde_json::to_value(&reply).unwrap_or_default();
        assert_eq!(
            v,
            serde_json::json!({"type": "control_response", "response": {"subtype": "error", "request_id": "r", "error": "no"}})
        );
    }
}
