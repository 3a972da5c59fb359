//! Hooks registered by the SDK in `initialize` (`hooks: {Event: [{matcher,
//! hookCallbackIds, timeout, onFailure}]}`): they join the session's hooks as callback
//! handlers, run in the same place of the chain as command hooks, and each run is a
//! `hook_callback` request whose reply is read as the hook's JSON output.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rein_hooks::{CallbackRunner, HookConfig, HookEvent};
use serde_json::{Value, json};

use crate::Peer;

/// Runs callbacks by asking the SDK host.
pub struct SdkCallbacks {
    pub peer: Arc<Peer>,
}

impl CallbackRunner for SdkCallbacks {
    fn call<'a>(
        &'a self,
        callback_id: &'a str,
        input: &'a Value,
        tool_use_id: Option<&'a str>,
        _timeout: Duration,
    ) -> BoxFuture<'a, Result<Value, String>> {
        Box::pin(async move {
            let request = json!({
                "subtype": "hook_callback",
                "callback_id": callback_id,
                "input": input,
                "tool_use_id": tool_use_id,
            });
            self.peer.request(request).await.map_err(|e| e.to_string())
        })
    }
}

/// Add the callbacks of `initialize.hooks` to `config`. Events rein does not know are
/// skipped and named in the returned notes.
pub fn register_hooks(config: &mut HookConfig, hooks: &Value) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    let Some(events) = hooks.as_object() else { return Ok(notes) };
    for (name, matchers) in events {
        let Some(event) = HookEvent::parse(name) else {
            notes.push(format!("hook event {name:?} is not one rein fires; its callbacks never run"));
            continue;
        };
        for m in matchers.as_array().into_iter().flatten() {
            let ids = crate::inbound::strings(m.get("hookCallbackIds"));
            let timeout = m.get("timeout").and_then(Value::as_f64);
            let block = m.get("onFailure").and_then(Value::as_str) == Some("block");
            config.add_callbacks(event, m.get("matcher").and_then(Value::as_str), &ids, timeout, block)?;
        }
    }
    Ok(notes)
}
