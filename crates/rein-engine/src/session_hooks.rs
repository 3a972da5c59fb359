//! Hooks around the turn: SessionStart and UserPromptSubmit before the prompt, Stop when
//! the loop would end, SessionEnd at the end.

use rein_hooks::HookEvent;
use rein_hooks::Hooks;
use rein_protocol::{ContentBlock, Message};
use serde_json::json;

use crate::{EngineError, EngineEvent};

/// What Stop hooks decided.
pub enum StopVerdict {
    /// End the turn.
    End,
    /// Keep going: this feedback becomes the next user message.
    Continue(String),
    /// A hook said `continue: false`.
    Halt(String),
}

/// SessionStart (the first time) and UserPromptSubmit: the prompt with any context the
/// hooks add, or the reason a hook blocked it.
pub async fn before_prompt(
    hooks: &Hooks,
    session_start: Option<&str>,
    mut prompt: Message,
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) -> Result<Message, EngineError> {
    let mut context = Vec::new();
    if let Some(source) = session_start {
        let out = hooks.fire(HookEvent::SessionStart, Some(source), json!({"source": source}), |_| true).await;
        notices(sink, out.notices(HookEvent::SessionStart));
        context
            .extend(out.context(true).into_iter().map(|c| format!("<session-start-hook>\n{c}\n</session-start-hook>")));
    }
    let text = prompt.text();
    let out = hooks.fire(HookEvent::UserPromptSubmit, None, json!({"prompt": text}), |_| true).await;
    notices(sink, out.notices(HookEvent::UserPromptSubmit));
    if let Some((reason, hook)) = out.block() {
        return Err(EngineError::PromptBlocked { hook, reason });
    }
    if let Some(reason) = out.stop() {
        return Err(EngineError::PromptStopped(reason));
    }
    context.extend(
        out.context(true).into_iter().map(|c| format!("<user-prompt-submit-hook>\n{c}\n</user-prompt-submit-hook>")),
    );
    prompt.content.extend(context.into_iter().map(ContentBlock::text));
    Ok(prompt)
}

/// Stop hooks, when the model has finished.
pub async fn stop(
    hooks: &Hooks,
    subagent: Option<&crate::SubagentInfo>,
    active: bool,
    last_text: &str,
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) -> StopVerdict {
    let mut fields = json!({
        "stop_hook_active": active,
        "last_assistant_message": last_text,
        "background_tasks": [],
        "session_crons": [],
    });
    let (event, matcher) = match subagent {
        Some(a) => {
            fields["agent_id"] = json!(a.agent_id);
            fields["agent_type"] = json!(a.agent_type);
            fields["agent_transcript_path"] = json!(null);
            (HookEvent::SubagentStop, Some(a.agent_type.as_str()))
        }
        None => (HookEvent::Stop, None),
    };
    let out = hooks.fire(event, matcher, fields, |_| true).await;
    notices(sink, out.notices(event));
    if let Some(reason) = out.stop() {
        return StopVerdict::Halt(reason);
    }
    match out.block() {
        Some((reason, hook)) => StopVerdict::Continue(format!("{event} hook `{hook}` feedback: {reason}")),
        None => StopVerdict::End,
    }
}

/// SessionEnd, with why the session ended.
pub async fn end(hooks: &Hooks, reason: &str, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
    let out = hooks.fire(HookEvent::SessionEnd, Some(reason), json!({"reason": reason}), |_| true).await;
    notices(sink, out.notices(HookEvent::SessionEnd));
}

fn notices(sink: &mut (dyn FnMut(EngineEvent) + Send), list: Vec<String>) {
    for n in list {
        sink(EngineEvent::Notice(n));
    }
}
