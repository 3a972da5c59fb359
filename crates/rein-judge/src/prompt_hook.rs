//! `prompt` hooks: the hook's prompt (its `$ARGUMENTS` filled with the hook's input)
//! judged by the small fast model, which answers one JSON object `{"ok": …, "reason":
//! …}`; "no" blocks as exit code 2 does, with the reason.

use std::sync::Arc;

use futures::StreamExt;
use futures::future::BoxFuture;
use rein_model::{Model, ModelEvent, ModelRequest};
use rein_protocol::Message;
use serde_json::Value;

/// The system prompt of every prompt-hook request (it names itself, as the auto-mode
/// judge's does).
pub const HOOK_RUBRIC: &str = "You are rein's hook judge. A user configured a hook that asks you to judge a moment \
of a coding agent's work (a tool call, a prompt, the end of a turn) against their condition. Read the condition and \
the hook's input, and answer with exactly one JSON object and nothing else: {\"ok\": true} when the condition is met \
(the agent may go on), or {\"ok\": false, \"reason\": \"<one short line for the agent>\"} when it is not.";

/// Judges prompt hooks on a model.
pub struct PromptHookJudge {
    pub model: Arc<dyn Model>,
    pub model_name: String,
}

impl rein_hooks::PromptJudge for PromptHookJudge {
    fn judge<'a>(&'a self, prompt: String, model: Option<&'a str>) -> BoxFuture<'a, Result<(bool, String), String>> {
        Box::pin(async move {
            let request = ModelRequest {
                model: model.map_or_else(|| self.model_name.clone(), |m| rein_model::resolve_alias(m, |_| None)),
                max_tokens: 300,
                system: rein_model::System::split(HOOK_RUBRIC, ""),
                tools: Arc::new([]),
                messages: vec![Arc::new(
                    rein_model::CachedMessage::new(Message::user_text(prompt)).map_err(|e| e.to_string())?,
                )],
                cache: Some(rein_model::CacheTtl::FiveMinutes),
                reasoning: rein_model::Reasoning::default(),
            };
            let mut stream = self.model.stream(request);
            let mut text = None;
            while let Some(item) = stream.next().await {
                match item {
                    Ok(ModelEvent::MessageDone(m)) => text = Some(m.to_message().text()),
                    Ok(_) => {}
                    Err(e) => return Err(format!("the prompt hook's request failed: {e}")),
                }
            }
            parse(&text.ok_or("the prompt hook's response ended early")?)
        })
    }
}

/// `{"ok": true}` or `{"ok": false, "reason": "…"}` (a code fence tolerated).
pub fn parse(text: &str) -> Result<(bool, String), String> {
    let t = text.trim();
    let body =
        t.strip_prefix("```json").or_else(|| t.strip_prefix("```")).and_then(|b| b.strip_suffix("```")).unwrap_or(t);
    let v: Value = serde_json::from_str(body.trim())
        .map_err(|_| format!("not a JSON answer: {}", t.chars().take(200).collect::<String>()))?;
    let ok = v.get("ok").and_then(Value::as_bool).ok_or("an answer without a boolean `ok`")?;
    let reason = v.get("reason").and_then(Value::as_str).unwrap_or("").trim().to_string();
    Ok((ok, if reason.is_empty() && !ok { "the prompt hook's condition is not met".into() } else { reason }))
}
