//! Hooks around the turn: SessionStart and UserPromptSubmit before the prompt, Stop when
//! the loop would end, SessionEnd at the end.

use rein_hooks::Hooks;
use rein_hooks::{HookEvent, HookInput};
use rein_protocol::{ContentBlock, Message};

use crate::{EngineError, EngineEvent};

/// What Stop hooks decided.
pub(crate) enum StopVerdict {
    /// End the turn.
    End,
    /// Keep going: this feedback becomes the next user message.
    Continue(String),
    /// A hook said `continue: false`.
    Halt(String),
}

/// SessionStart (the first time) and UserPromptSubmit: the prompt with any context the
/// hooks add, or the reason a hook blocked it.
pub(crate) async fn before_prompt(
    hooks: &Hooks,
    session_start: Option<&str>,
    mut prompt: Message,
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) -> Result<Message, EngineError> {
    let mut context = Vec::new();
    if let Some(source) = session_start {
        context.extend(session_start_now(hooks, source, sink).await);
    }
    file_changes(hooks, sink).await;
    let text = prompt.text();
    let out = hooks.fire_input(&HookInput::UserPromptSubmit { prompt: text }, |_| true).await;
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

/// SessionStart hooks with `source`: the context they add, ready for the next prompt.
pub(crate) async fn session_start_now(
    hooks: &Hooks,
    source: &str,
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) -> Vec<String> {
    let out = hooks.fire_input(&HookInput::SessionStart { source: source.to_string() }, |_| true).await;
    notices(sink, out.notices(HookEvent::SessionStart));
    hooks.watch_from(Some(&out));
    out.context(true).into_iter().map(|c| format!("<session-start-hook>\n{c}\n</session-start-hook>")).collect()
}

impl crate::Engine {
    /// `--init`, `--init-only`, `--maintenance`: the session runs Setup hooks with this
    /// trigger before SessionStart.
    pub fn set_setup_trigger(&mut self, trigger: Option<String>) {
        self.setup_trigger = trigger;
    }

    /// Setup hooks, once, if a trigger is pending: their context goes with the first
    /// prompt; what else they say is for the person.
    pub async fn setup_hooks(&mut self, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        let Some(trigger) = self.setup_trigger.take() else { return };
        let Some(hooks) = self.gate.hooks.clone().filter(|_| self.subagent.is_none()) else { return };
        let out = hooks.fire_input(&HookInput::Setup { trigger }, |_| true).await;
        notices(sink, out.notices(HookEvent::Setup));
        let context = out.context(false).into_iter().map(|c| format!("<setup-hook>\n{c}\n</setup-hook>"));
        self.start_context.extend(context);
    }
}

/// Stop hooks, when the model has finished.
pub(crate) async fn stop(
    hooks: &Hooks,
    subagent: Option<&crate::SubagentInfo>,
    active: bool,
    last_text: &str,
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) -> StopVerdict {
    let (stop_hook_active, last_assistant_message) = (active, last_text.to_string());
    let input = match subagent {
        Some(a) => HookInput::SubagentStop {
            stop_hook_active,
            last_assistant_message,
            background_tasks: Vec::new(),
            session_crons: Vec::new(),
            agent_id: a.agent_id.clone(),
            agent_type: a.agent_type.clone(),
            agent_transcript_path: None,
        },
        None => HookInput::Stop {
            stop_hook_active,
            last_assistant_message,
            background_tasks: Vec::new(),
            session_crons: Vec::new(),
        },
    };
    let event = input.event();
    let out = hooks.fire_input(&input, |_| true).await;
    notices(sink, out.notices(event));
    if let Some(reason) = out.stop() {
        return StopVerdict::Halt(reason);
    }
    if let Some((reason, hook)) = out.block() {
        return StopVerdict::Continue(format!("{event} hook `{hook}` feedback: {reason}"));
    }
    // A teammate about to go idle: TeammateIdle may keep it working (exit 2, its
    // message the feedback) or stop it (`continue: false`).
    let Some((teammate_name, team_name)) = subagent.and_then(|a| a.teammate.clone()) else { return StopVerdict::End };
    let idle = HookInput::TeammateIdle { teammate_name, team_name };
    let out = hooks.fire_input(&idle, |_| true).await;
    notices(sink, out.notices(HookEvent::TeammateIdle));
    if let Some(reason) = out.stop() {
        return StopVerdict::Halt(reason);
    }
    match out.block() {
        Some((reason, hook)) => StopVerdict::Continue(format!("TeammateIdle hook `{hook}` feedback: {reason}")),
        None => StopVerdict::End,
    }
}

/// StopFailure: an API error ended the turn.
pub(crate) async fn stop_failure(hooks: &Hooks, error: &rein_model::ModelError, last_text: &str) {
    let kind = match error {
        rein_model::ModelError::Api { status: Some(429), .. } | rein_model::ModelError::Http { status: 429, .. } => {
            "rate_limit"
        }
        rein_model::ModelError::Api { kind, .. } if kind == "overloaded_error" => "overloaded",
        rein_model::ModelError::Api { status: Some(401 | 403), .. }
        | rein_model::ModelError::Http { status: 401 | 403, .. }
        | rein_model::ModelError::NoCredentials => "authentication_failed",
        rein_model::ModelError::Api { status: Some(402), .. } => "billing_error",
        rein_model::ModelError::Api { status: Some(404), .. } => "model_not_found",
        rein_model::ModelError::Api { status: Some(400 | 413), .. } => "invalid_request",
        rein_model::ModelError::Api { status: Some(500..), .. }
        | rein_model::ModelError::Http { status: 500.., .. } => "server_error",
        _ => "unknown",
    };
    let input = HookInput::StopFailure {
        error: kind.to_string(),
        error_details: error.to_string(),
        last_assistant_message: last_text.to_string(),
    };
    // Its output is ignored, as in Claude Code.
    hooks.fire_input(&input, |_| true).await;
}

/// PostToolBatch: every call of the last response with its result. A block or
/// `continue: false` ends the turn; context joins the conversation.
pub(crate) async fn post_tool_batch(
    hooks: &Hooks,
    calls: &[rein_protocol::ToolUse],
    results: &Message,
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) -> (Option<String>, Vec<String>) {
    let response = |id: &str| {
        results.content.iter().find_map(|b| match b {
            ContentBlock::ToolResult { tool_use_id, content, .. } if tool_use_id == id => {
                Some(serde_json::to_value(content).unwrap_or_default())
            }
            _ => None,
        })
    };
    let tool_calls = calls
        .iter()
        .map(|c| {
            serde_json::json!({"tool_name": c.name, "tool_input": c.input, "tool_use_id": c.id,
                "tool_response": response(&c.id).unwrap_or_default()})
        })
        .collect();
    let out = hooks.fire_input(&HookInput::PostToolBatch { tool_calls }, |_| true).await;
    notices(sink, out.notices(HookEvent::PostToolBatch));
    let halt =
        out.stop().or_else(|| out.block().map(|(reason, hook)| format!("PostToolBatch hook `{hook}`: {reason}")));
    (halt, out.context(false))
}

/// CwdChanged: the session shell moved. What the hooks say is for the user only.
pub(crate) async fn cwd_changed(
    hooks: &Hooks,
    (old, new): (std::path::PathBuf, std::path::PathBuf),
    sink: &mut (dyn FnMut(EngineEvent) + Send),
) {
    let input = HookInput::CwdChanged { old_cwd: old.display().to_string(), new_cwd: new.display().to_string() };
    let out = hooks.fire_input(&input, |_| true).await;
    notices(sink, out.notices(HookEvent::CwdChanged));
    hooks.watch_from(Some(&out));
}

/// FileChanged: the watched files that changed since the last look (before a prompt,
/// after a batch of calls). What the hooks say is for the user only.
pub(crate) async fn file_changes(hooks: &Hooks, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
    notices(sink, hooks.file_changes().await);
}

/// SessionEnd, with why the session ended.
pub(crate) async fn end(hooks: &Hooks, reason: &str, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
    let out = hooks.fire_input(&HookInput::SessionEnd { reason: reason.to_string() }, |_| true).await;
    notices(sink, out.notices(HookEvent::SessionEnd));
}

fn notices(sink: &mut (dyn FnMut(EngineEvent) + Send), list: Vec<String>) {
    for n in list {
        sink(EngineEvent::Notice(n));
    }
}
