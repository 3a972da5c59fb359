//! The Agent SDK's control requests to rein, answered while a turn runs or between
//! turns: `interrupt`, `set_permission_mode`, `set_model`, `mcp_status`,
//! `get_context_usage`, `rewind_files`; the `initialize` request's registrations
//! (hooks, agents, system prompt) and its reply. Any other subtype gets an `error`
//! reply, never silence.

use std::sync::Arc;

use rein_policy::{PermissionMode, SharedPolicy};
use rein_sdk::{SdkCallbacks, TurnAbort};
use serde_json::{Value, json};

use crate::session::Setup;

/// What the control requests act on while the engine is busy with a turn.
pub struct Control {
    pub policy: SharedPolicy,
    pub abort: Arc<TurnAbort>,
    /// A model the SDK chose; the next turn uses it.
    pub next_model: Option<String>,
    /// The model of the running or last turn.
    pub model: String,
    /// Tokens of the conversation at the end of the last turn.
    pub context_tokens: u64,
    pub mcp: Option<Arc<rein_mcp::Servers>>,
}

impl Control {
    /// The answer to one request (`initialize` is answered at start only).
    pub fn handle(&mut self, request: &Value) -> Result<Value, String> {
        let subtype = request.get("subtype").and_then(Value::as_str).unwrap_or_default();
        match subtype {
            "interrupt" => {
                self.abort.cancel();
                Ok(json!({"still_queued": []}))
            }
            "set_permission_mode" => {
                let name = request.get("mode").and_then(Value::as_str).unwrap_or_default();
                let mode = PermissionMode::parse(name).ok_or_else(|| {
                    "Cannot set permission mode: must be one of acceptEdits, auto, bypassPermissions, default, dontAsk, \
                     plan"
                        .to_string()
                })?;
                self.policy.set_mode(mode, "the Agent SDK (set_permission_mode)");
                Ok(json!({"mode": mode.name()}))
            }
            "set_model" => {
                let model = match request.get("model").and_then(Value::as_str) {
                    Some(m) if !m.trim().is_empty() => rein_engine::resolve_alias(m.trim()),
                    _ => crate::session::resolve_model(None, None),
                };
                self.next_model = Some(model.clone());
                Ok(json!({"model": model}))
            }
            "mcp_status" => {
                let servers: Vec<Value> = self
                    .mcp
                    .as_ref()
                    .map(|m| m.statuses())
                    .unwrap_or_default()
                    .iter()
                    .map(|s| {
                        let mut v = json!({"name": s.name, "status": s.status, "scope": s.source.name()});
                        if let Some(e) = &s.error {
                            v["error"] = json!(e);
                        }
                        v
                    })
                    .collect();
                Ok(json!({"mcpServers": servers}))
            }
            "get_context_usage" => {
                let max = rein_engine::window_of(&self.model);
                let pct = if max == 0 { 0.0 } else { self.context_tokens as f64 * 100.0 / max as f64 };
                Ok(json!({
                    "categories": [{"name": "Messages", "tokens": self.context_tokens}],
                    "totalTokens": self.context_tokens,
                    "maxTokens": max,
                    "rawMaxTokens": max,
                    "percentage": pct,
                    "model": self.model,
                }))
            }
            "rewind_files" => Err("Cannot rewind files while a turn is running".into()),
            "initialize" => Err("Already initialized".into()),
            "mcp_reconnect" | "mcp_toggle" => {
                let name = request.get("serverName").and_then(Value::as_str).unwrap_or_default();
                Err(format!("Server not found: {name}"))
            }
            other => Err(format!("Unsupported control request subtype: {other}")),
        }
    }
}

/// Take in what `initialize` registers: hook callbacks (joined to the settings' hooks),
/// subagents, and (the TypeScript SDK) the system prompt.
pub fn apply_initialize(setup: &mut Setup, request: &Value, peer: &Arc<rein_sdk::Peer>) -> anyhow::Result<()> {
    let mut config = setup.hooks.as_ref().map(|h| h.config.clone()).unwrap_or_default();
    if let Some(hooks) = request.get("hooks").filter(|h| h.is_object()) {
        let notes = rein_sdk::register_hooks(&mut config, hooks).map_err(|e| anyhow::anyhow!("initialize: {e}"))?;
        for n in notes {
            crate::messages::note_message!("{n}");
        }
    }
    if !config.is_empty() {
        let mut hooks = rein_hooks::Hooks::new(config, setup.hook_session());
        hooks.callbacks = Some(Arc::new(SdkCallbacks { peer: peer.clone() }));
        setup.hooks = Some(Arc::new(hooks));
    }
    if let Some(agents) = request.get("agents") {
        setup.add_agents(agents);
    }
    let replace = request.get("systemPrompt").map(|p| match p {
        Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("\n\n"),
        other => other.as_str().unwrap_or_default().to_string(),
    });
    let append = request.get("appendSystemPrompt").and_then(Value::as_str).map(str::to_string);
    if replace.is_some() || append.is_some() {
        let (old_replace, old_append) = setup.prompt_parts.clone();
        setup.set_system_prompt(replace.or(old_replace), append.or(old_append));
    }
    Ok(())
}

/// The reply to `initialize`: what the session offers.
pub fn initialize_reply(setup: &Setup, policy: &SharedPolicy) -> Value {
    let commands: Vec<Value> = setup
        .commands
        .iter()
        .map(|c| json!({"name": c.name, "description": c.description, "argumentHint": "", "builtin": false}))
        .collect();
    let agents: Vec<Value> =
        setup.agents.iter().map(|a| json!({"name": a.name, "description": a.description})).collect();
    let models: Vec<Value> = ["opus", "sonnet", "haiku"]
        .iter()
        .map(|alias| {
            let id = rein_engine::resolve_alias(alias);
            json!({"value": alias, "resolvedModel": id, "displayName": alias, "description": id})
        })
        .collect();
    json!({
        "commands": commands,
        "agents": agents,
        "output_style": "default",
        "available_output_styles": ["default"],
        "models": models,
        "account": {"apiKeySource": setup.api_key_source(), "apiProvider": "firstParty"},
        "pid": std::process::id(),
        "claude_code_version": crate::CLAUDE_CODE_VERSION,
        "current_permission_mode": policy.get().mode.name(),
        "hooks_applied": true,
        "hook_on_failure_supported": true,
        "sandbox_enabled": setup.sandbox.as_ref().is_some_and(|s| s.is_active()),
        "session_state": "idle",
    })
}
