//! Hooks registered by the SDK in `initialize` (`hooks: {Event: [{matcher,
//! hookCallbackIds, timeout, onFailure}]}`): they join the session's hooks as callback
//! handlers, run in the same place of the chain as command hooks, and each run is a
//! `hook_callback` request whose reply is read as the hook's JSON output.

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rein_hooks::{CallbackRunner, HookEvent};
use serde_json::Value;

use crate::Peer;

/// One matcher of `initialize`'s hooks.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CallbackMatcher {
    #[serde(default)]
    matcher: Option<String>,
    #[serde(default)]
    hook_callback_ids: Vec<String>,
    #[serde(default)]
    timeout: Option<f64>,
    #[serde(default)]
    on_failure: Option<String>,
}

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
    ) -> BoxFuture<'a, Result<Value, rein_hooks::DelegatedError>> {
        Box::pin(async move {
            let request = crate::frames::OutRequest::HookCallback { callback_id, input, tool_use_id };
            self.peer
                .request(request)
                .await
                .map_err(|e| rein_hooks::DelegatedError::failed("the SDK's hook callback", e))
        })
    }
}

/// Add the callbacks of `initialize.hooks` to `config`. Events rein does not know are
/// skipped and named in the returned notes.
pub fn register_hooks(hooks: &Value) -> Result<(Vec<rein_session::CallbackGroup>, Vec<String>), crate::WireError> {
    let (mut groups, mut notes) = (Vec::new(), Vec::new());
    let Some(events) = hooks.as_object() else { return Ok((groups, notes)) };
    for (name, matchers) in events {
        let Some(event) = HookEvent::parse(name) else {
            notes.push(format!("hook event {name:?} is not one rein fires; its callbacks never run"));
            continue;
        };
        for m in matchers.as_array().into_iter().flatten() {
            let m: CallbackMatcher = serde_json::from_value(m.clone())
                .map_err(|source| crate::WireError::Hooks { event: name.clone(), source })?;
            groups.push(rein_session::CallbackGroup {
                event,
                matcher: m.matcher,
                ids: m.hook_callback_ids,
                timeout: m.timeout,
                block_on_failure: m.on_failure.as_deref() == Some("block"),
            });
        }
    }
    Ok((groups, notes))
}
