//! Headless frontends: `text`, `json` and `stream-json` output (spec §D2), and the
//! human-readable transcript used by `rein demo` and `-p --verbose`.

use std::io::IsTerminal;
use std::io::Write;
use std::time::Duration;

use rein_engine::{End, EngineEvent, Outcome};
use serde_json::{Value, json};

use crate::args::OutputFormat;
use crate::human::Human;
use crate::session::Setup;

enum Mode {
    Text,
    Json,
    StreamJson,
    Human(Human),
}

pub struct Frontend {
    mode: Mode,
    session_id: String,
    /// The tools offered to the model (after bare deny rules).
    tools: Vec<String>,
    /// The human transcript goes to stderr when stdout carries the result.
    result_on_stdout: bool,
    /// stream-json: also a `stream_event` line per streaming event.
    partial: bool,
    /// The model of the turn (the session's, or one the SDK set).
    model: Option<String>,
    /// The permission mode of the turn, when it changed since the start.
    permission_mode: Option<rein_policy::PermissionMode>,
}

impl Frontend {
    pub fn new(format: OutputFormat, verbose: bool) -> Self {
        let mode = match format {
            OutputFormat::Text if verbose => {
                Mode::Human(Human::new(Box::new(std::io::stderr()), std::io::stderr().is_terminal()))
            }
            OutputFormat::Text => Mode::Text,
            OutputFormat::Json => Mode::Json,
            OutputFormat::StreamJson => Mode::StreamJson,
        };
        Frontend {
            mode,
            session_id: String::new(),
            tools: Vec::new(),
            result_on_stdout: true,
            partial: false,
            model: None,
            permission_mode: None,
        }
    }

    /// `--include-partial-messages`.
    pub fn with_partial_messages(mut self, on: bool) -> Self {
        self.partial = on;
        self
    }

    /// The model and permission mode of the next turn, when they are not the session's
    /// first ones.
    pub fn set_turn(&mut self, model: &str, mode: rein_policy::PermissionMode) {
        self.model = Some(model.to_string());
        self.permission_mode = Some(mode);
    }

    /// The readable transcript on stdout, for the demo.
    pub fn human() -> Self {
        Frontend {
            mode: Mode::Human(Human::new(Box::new(std::io::stdout()), std::io::stdout().is_terminal())),
            session_id: String::new(),
            tools: Vec::new(),
            result_on_stdout: false,
            partial: false,
            model: None,
            permission_mode: None,
        }
    }

    pub fn set_tools(&mut self, tools: Vec<String>) {
        self.tools = tools;
    }

    pub fn start(&mut self, setup: &Setup) {
        self.session_id = setup.session_id.clone();
        if let Mode::StreamJson = self.mode {
            let mut init = json!({
                "type": "system",
                "subtype": "init",
                "uuid": uuid(),
                "session_id": setup.session_id,
                "cwd": setup.cwd,
                "model": self.model.as_deref().unwrap_or(&setup.model),
                "tools": self.tools,
                "mcp_servers": mcp_servers(setup),
                "permissionMode": self.permission_mode.unwrap_or(setup.policy.mode).name(),
                "slash_commands": setup.commands.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
                "apiKeySource": setup.api_key_source(),
                "claude_code_version": crate::CLAUDE_CODE_VERSION,
                "output_style": "default",
                "agents": setup.agents.iter().map(|a| a.name.clone()).collect::<Vec<_>>(),
                "skills": [],
                "plugins": [],
            });
            let errors = mcp_server_errors(setup);
            if !errors.is_empty() {
                init["mcp_server_errors"] = serde_json::Value::Array(errors);
            }
            line(&init);
        }
    }

    pub fn event(&mut self, event: EngineEvent) {
        if let EngineEvent::Notice(n) = &event {
            crate::messages::message!("{n}");
            return;
        }
        if let EngineEvent::Compacted { trigger, pre_tokens, post_tokens } = &event {
            if let Mode::StreamJson = self.mode {
                line(&json!({
                    "type": "system", "subtype": "compact_boundary", "uuid": uuid(), "session_id": self.session_id,
                    "compact_metadata": {"trigger": trigger, "pre_tokens": pre_tokens, "post_tokens": post_tokens},
                }));
            } else if let Mode::Human(_) = self.mode {
                crate::messages::message!("compacted the conversation ({pre_tokens} → {post_tokens} tokens)");
            }
            return;
        }
        if let EngineEvent::ApiRetry { attempt, max_retries, delay, status, error } = &event {
            if let Mode::StreamJson = self.mode {
                line(&json!({
                    "type": "system", "subtype": "api_retry", "uuid": uuid(), "session_id": self.session_id,
                    "attempt": attempt, "max_retries": max_retries, "retry_delay_ms": delay.as_millis() as u64,
                    "error_status": status, "error": error,
                }));
            } else {
                crate::messages::message!(
                    "{error}; retrying in {:.1} s ({attempt}/{max_retries})",
                    delay.as_secs_f64()
                );
            }
            return;
        }
        match &mut self.mode {
            Mode::StreamJson => match event {
                EngineEvent::Assistant(message) => {
                    line(&json!({
                        "type": "assistant",
                        "uuid": uuid(),
                        "session_id": self.session_id,
                        "parent_tool_use_id": null,
                        "message": message,
                    }));
                    // The engine keeps the response's end to itself; its events close the stream.
                    if self.partial {
                        self.stream_events(&rein_model::ModelEvent::MessageDone(message));
                    }
                }
                EngineEvent::ToolResults(message) => line(&json!({
                    "type": "user",
                    "uuid": uuid(),
                    "session_id": self.session_id,
                    "parent_tool_use_id": null,
                    "message": message,
                })),
                EngineEvent::Stream(e) => {
                    if self.partial {
                        self.stream_events(&e);
                    }
                }
                EngineEvent::ToolStarted(_)
                | EngineEvent::ToolFinished { .. }
                | EngineEvent::Permission { .. }
                | EngineEvent::Notice(_)
                | EngineEvent::ApiRetry { .. }
                | EngineEvent::Compacted { .. } => {}
            },
            Mode::Human(h) => h.event(&event),
            Mode::Text | Mode::Json => {}
        }
    }

    fn stream_events(&self, e: &rein_model::ModelEvent) {
        for event in crate::stream_events::api_events(e) {
            line(&json!({
                "type": "stream_event", "uuid": uuid(), "session_id": self.session_id,
                "parent_tool_use_id": null, "event": event,
            }));
        }
    }

    pub fn finish(&mut self, setup: &Setup, outcome: &Outcome, elapsed: Duration) {
        let result = result_json(setup, outcome, elapsed, self.model.as_deref().unwrap_or(&setup.model));
        match &mut self.mode {
            Mode::Json | Mode::StreamJson => line(&result),
            Mode::Text => {
                if !outcome.result_text.is_empty() {
                    let mut out = std::io::stdout().lock();
                    let _ = writeln!(out, "{}", outcome.result_text);
                }
            }
            Mode::Human(h) => {
                h.finish(outcome, elapsed);
                if self.result_on_stdout && !outcome.result_text.is_empty() {
                    let _ = writeln!(std::io::stdout().lock(), "{}", outcome.result_text);
                }
            }
        }
        match &outcome.end {
            End::Completed => {}
            End::Stopped(reason) => crate::messages::message!("stopped by a hook: {reason}"),
            End::Interrupted => crate::messages::message!("interrupted"),
            End::Deferred(call) => crate::messages::message!(
                "a hook deferred the {} call {}; run `rein -p … --resume {}` to carry on",
                call.name,
                call.id,
                setup.session_id
            ),
            End::MaxBudget => crate::messages::err_message!("reached the budget of ${:.4}", o_cost(outcome)),
            End::MaxTurns => {
                crate::messages::err_message!("reached the maximum number of turns ({})", outcome.num_turns)
            }
            End::Failed(msg) => crate::messages::err_message!("{msg}"),
        }
    }
}

fn o_cost(o: &Outcome) -> f64 {
    o.cost_usd
}

/// The `result` line (spec §D2).
fn result_json(setup: &Setup, o: &Outcome, elapsed: Duration, model: &str) -> Value {
    let subtype = match o.end {
        End::Completed | End::Stopped(_) | End::Deferred(_) => "success",
        End::MaxTurns => "error_max_turns",
        End::MaxBudget => "error_max_budget_usd",
        End::Failed(rein_engine::EngineError::RequiredToolNotCalled { .. }) => "error_max_structured_output_retries",
        End::Failed(_) | End::Interrupted => "error_during_execution",
    };
    let mut v = json!({
        "type": "result",
        "subtype": subtype,
        "uuid": uuid(),
        "session_id": setup.session_id,
        "is_error": o.is_error(),
        "duration_ms": elapsed.as_millis() as u64,
        "duration_api_ms": o.api_duration.as_millis() as u64,
        "num_turns": o.num_turns,
        "stop_reason": o.stop_reason,
        "total_cost_usd": o.cost_usd,
        "usage": o.usage,
        "modelUsage": {
            model: {
                "inputTokens": o.usage.input_tokens,
                "outputTokens": o.usage.output_tokens,
                "cacheReadInputTokens": o.usage.cache_read_input_tokens,
                "cacheCreationInputTokens": o.usage.cache_creation_input_tokens,
                "webSearchRequests": 0,
                "costUSD": o.cost_usd,
                "contextWindow": rein_engine::window_of(model),
                "maxOutputTokens": setup.max_tokens,
            }
        },
        "permission_denials": o.permission_denials.iter().map(|c| json!({
            "tool_name": c.name, "tool_use_id": c.id, "tool_input": c.input,
        })).collect::<Vec<_>>(),
    });
    if let Some(answer) = setup.structured_output.as_ref().and_then(|s| s.lock().ok().and_then(|a| a.clone())) {
        v["structured_output"] = answer;
    }
    if matches!(o.end, End::Completed | End::Stopped(_) | End::Deferred(_)) || !o.result_text.is_empty() {
        v["result"] = json!(o.result_text);
    }
    match &o.end {
        End::Deferred(call) => {
            v["stop_reason"] = json!("tool_deferred");
            v["deferred_tool_use"] = json!({"id": call.id, "name": call.name, "input": call.input});
        }
        End::Failed(e) => v["errors"] = json!([e.to_string()]),
        End::Interrupted => v["errors"] = json!([rein_protocol::INTERRUPTED]),
        End::MaxTurns => v["errors"] = json!([format!("Reached maximum number of turns ({})", o.num_turns)]),
        End::MaxBudget => v["errors"] = json!([format!("Reached the maximum budget (${:.4} spent)", o.cost_usd)]),
        _ => {}
    }
    v
}

fn line(v: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{v}");
    let _ = out.flush();
}

fn uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// `mcp_servers` of the init event: `[{name, status, source}]`.
fn mcp_servers(setup: &Setup) -> Vec<serde_json::Value> {
    let Some(servers) = &setup.mcp else { return Vec::new() };
    servers.statuses().iter().map(|s| json!({"name": s.name, "status": s.status, "source": s.source.name()})).collect()
}

/// `mcp_server_errors` of the init event: configuration entries that were skipped.
fn mcp_server_errors(setup: &Setup) -> Vec<serde_json::Value> {
    let Some(servers) = &setup.mcp else { return Vec::new() };
    servers
        .problems
        .iter()
        .map(|p| json!({"name": p.name, "type": p.kind, "message": p.message, "file": p.file}))
        .collect()
}
