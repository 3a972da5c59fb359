//! `prompt` hooks: the hook's prompt (its `$ARGUMENTS` filled with the hook's input)
//! judged by the small fast model, which answers one JSON object `{"ok": …, "reason":
//! …}`; "no" blocks as exit code 2 does, with the reason.

use std::sync::Arc;

use futures::future::BoxFuture;
use rein_model::Model;
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
    fn judge<'a>(
        &'a self,
        prompt: String,
        model: Option<&'a str>,
    ) -> BoxFuture<'a, Result<(bool, String), rein_hooks::DelegatedError>> {
        Box::pin(async move {
            let name = model.map_or_else(|| self.model_name.clone(), |m| rein_model::resolve_alias(m, |_| None));
            let (text, _) = crate::ask::ask_text(&*self.model, &name, HOOK_RUBRIC, prompt, 300)
                .await
                .map_err(|e| rein_hooks::DelegatedError::Failed { what: "the prompt hook", source: e.into() })?;
            parse(&text).map_err(|e| rein_hooks::DelegatedError::NoVerdict(e.to_string()))
        })
    }
}

/// `{"ok": true}` or `{"ok": false, "reason": "…"}` (a code fence tolerated).
pub fn parse(text: &str) -> Result<(bool, String), crate::AnswerError> {
    let t = text.trim();
    let body =
        t.strip_prefix("```json").or_else(|| t.strip_prefix("```")).and_then(|b| b.strip_suffix("```")).unwrap_or(t);
    let v: Value = serde_json::from_str(body.trim())
        .map_err(|_| crate::AnswerError::NotJson(t.chars().take(200).collect::<String>()))?;
    let ok = v.get("ok").and_then(Value::as_bool).ok_or(crate::AnswerError::NoOk)?;
    let reason = v.get("reason").and_then(Value::as_str).unwrap_or("").trim().to_string();
    Ok((ok, if reason.is_empty() && !ok { "the prompt hook's condition is not met".into() } else { reason }))
}
