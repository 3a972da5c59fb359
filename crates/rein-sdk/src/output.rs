//! The `json` and `stream-json` output of a session (spec §D2), written as
//! [`frames`](crate::frames): `system/init` as each turn starts, the turn's messages,
//! compactions, retries and (with `--include-partial-messages`) streaming events, then
//! one `result`. Print mode (`-p --output-format json|stream-json`) and the Agent SDK
//! loop write through the same [`Lines`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rein_policy::PermissionMode;
use rein_session::Setup;
use rein_session::events::{AgentStep, End, EngineError, EngineEvent, Outcome};

use crate::Peer;
use crate::frames::{
    CompactMetadata, Denial, Frame, Init, McpServer, McpServerError, ModelUsage, ResultFrame, ResultUsage, System,
    ToolCall, UserMessage, uuid,
};
use crate::stream_events::{api_events, closing_events};

/// The writer of one session's lines.
pub struct Lines {
    out: Arc<Peer>,
    /// stream-json (every frame) or json (the result only).
    stream: bool,
    /// stream-json: also a `stream_event` line per streaming event.
    partial: bool,
    session_id: String,
    /// The tools offered to the model.
    tools: Vec<String>,
    /// The model of the turn, when the SDK changed it since the start.
    model: Option<String>,
    /// The permission mode of the turn, when it changed since the start.
    permission_mode: Option<PermissionMode>,
    /// The response streaming now: its head (id, model, usage) and how many of its
    /// blocks went out as `assistant` lines.
    response: Option<Box<(rein_protocol::AssistantMessage, usize)>>,
    /// The characters of thinking the response streaming now has sent.
    thinking_chars: u64,
}

impl Lines {
    /// `--output-format stream-json`.
    pub fn stream_json(out: Arc<Peer>, partial: bool) -> Self {
        Lines { stream: true, partial, ..Lines::json(out) }
    }

    /// `--output-format json`: the result line only.
    pub fn json(out: Arc<Peer>) -> Self {
        Lines {
            out,
            stream: false,
            partial: false,
            session_id: String::new(),
            tools: Vec::new(),
            model: None,
            permission_mode: None,
            response: None,
            thinking_chars: 0,
        }
    }

    /// The model and permission mode of the next turn.
    pub fn set_turn(&mut self, model: &str, mode: PermissionMode) {
        self.model = Some(model.to_string());
        self.permission_mode = Some(mode);
    }

    /// The tools offered to the model, as `init` lists them for a program: by name,
    /// the subagent tool first under its older name `Task` (as Claude Code lists it),
    /// then MCP servers' tools in their order.
    pub fn set_tools(&mut self, tools: Vec<String>) {
        let (mut own, servers): (Vec<String>, Vec<String>) = tools.into_iter().partition(|t| !t.starts_with("mcp__"));
        for name in &mut own {
            if name == "Agent" {
                *name = "Task".into();
            }
        }
        own.sort_by_key(|n| (n != "Task", n.clone()));
        own.extend(servers);
        self.tools = own;
    }

    /// A turn starts: `system/init`.
    pub fn start(&mut self, setup: &Setup, session: &rein_session::Session) {
        self.session_id = session.session_id();
        if !self.stream {
            return;
        }
        let statuses = session.mcp().map(|m| m.statuses()).unwrap_or_default();
        let problems = session.mcp().map(|m| m.problems.as_slice()).unwrap_or_default();
        let init = Init {
            cwd: &setup.cwd,
            model: self.model.as_deref().unwrap_or(&setup.model),
            tools: &self.tools,
            mcp_servers: statuses
                .iter()
                .map(|s| McpServer {
                    name: &s.name,
                    status: s.status,
                    source: Some(s.source.name()),
                    scope: None,
                    error: None,
                })
                .collect(),
            permission_mode: self.permission_mode.unwrap_or(setup.policy.mode).name(),
            slash_commands: rein_session::slash::for_programs(&setup.commands, &setup.skills)
                .into_iter()
                .map(|c| c.name)
                .collect(),
            terminal_slash_commands: rein_session::slash::terminal_only().collect(),
            api_key_source: setup.api_key_source(),
            claude_code_version: rein_session::CLAUDE_CODE_VERSION,
            output_style: setup.output_style.as_ref().map_or("default", |s| s.name.as_str()),
            agents: sorted_names(setup.agents.iter().map(|a| a.name.as_str())),
            skills: setup.skills.iter().map(|s| s.name.as_str()).collect(),
            plugins: setup
                .plugins
                .iter()
                .map(|p| crate::frames::PluginInfo {
                    name: p.name.clone(),
                    path: p.root.display().to_string(),
                    source: p.id.replace("@--plugin-dir", "@inline"),
                    version: p.version.clone(),
                })
                .collect(),
            plugin_errors: setup.plugin_problems.iter().map(String::as_str).collect(),
            mcp_server_errors: problems
                .iter()
                .map(|p| McpServerError { name: &p.name, kind: p.kind, message: &p.message, file: &p.file })
                .collect(),
            analytics_disabled: true,
            product_feedback_disabled: true,
            sandbox_enabled: session.sandbox_active(),
            memory_paths: setup.policy.memory_dir.iter().map(|d| ("auto", format!("{}/", d.display()))).collect(),
            original_cwd: &setup.cwd,
            additional_directories: setup
                .policy
                .roots
                .iter()
                .filter(|r| **r != setup.cwd)
                .map(|r| r.display().to_string())
                .collect(),
            fast_mode_state: "off",
        };
        self.system(System::Init(Box::new(init)));
    }

    /// The prompt, echoed (`--replay-user-messages`).
    pub fn replay_prompt(&self, content: &serde_json::Value, id: &str) {
        self.out.send(&Frame::User {
            message: UserMessage::Prompt { role: "user", content },
            uuid: id.to_string(),
            session_id: &self.session_id,
            parent_tool_use_id: None,
        });
    }

    /// One event of the turn. Notices are said on stderr.
    pub fn event(&mut self, event: &EngineEvent) {
        let session_id = self.session_id.as_str();
        match event {
            EngineEvent::Notice(n) => rein_session::message!("{n}"),
            EngineEvent::Compacted { trigger, pre_tokens, post_tokens } => self.system(System::CompactBoundary {
                compact_metadata: CompactMetadata { trigger, pre_tokens: *pre_tokens, post_tokens: *post_tokens },
            }),
            EngineEvent::ApiRetry { attempt, max_retries, delay, status, error } if self.stream => {
                self.system(System::ApiRetry {
                    attempt: *attempt,
                    max_retries: *max_retries,
                    retry_delay_ms: delay.as_millis() as u64,
                    error_status: *status,
                    error,
                });
            }
            EngineEvent::ApiRetry { attempt, max_retries, delay, error, .. } => {
                rein_session::message!("{error}; retrying in {:.1} s ({attempt}/{max_retries})", delay.as_secs_f64());
            }
            _ if !self.stream => {}
            // Each block went out as it completed; what did not stream (a message rein
            // made itself) goes now, a block a line as well.
            EngineEvent::Assistant(message) => {
                let sent = self.response.take().filter(|r| r.0.id == message.id).map_or(0, |r| r.1);
                if message.content.is_empty() && sent == 0 {
                    self.out.send(&Frame::Assistant { message, uuid: uuid(), session_id, parent_tool_use_id: None });
                }
                for block in message.content.iter().skip(sent) {
                    let one = one_block(message, block.clone());
                    self.out.send(&Frame::Assistant {
                        message: &one,
                        uuid: uuid(),
                        session_id,
                        parent_tool_use_id: None,
                    });
                }
                // The engine keeps the response's end to itself; its events close the stream.
                if self.partial {
                    for event in closing_events(message) {
                        self.out.send(&Frame::StreamEvent {
                            event,
                            uuid: uuid(),
                            session_id,
                            parent_tool_use_id: None,
                        });
                    }
                }
            }
            EngineEvent::Stream(delta) => self.stream_delta(delta),
            EngineEvent::ToolResults(message) | EngineEvent::Interrupted(message) => self.out.send(&Frame::User {
                message: UserMessage::Message(message),
                uuid: uuid(),
                session_id,
                parent_tool_use_id: None,
            }),
            // A subagent's work, marked with the call it works inside, as Claude Code
            // sends it: the task it was given, then its calls (a block a line) and their
            // results; its words reach the program as the Agent call's result.
            EngineEvent::ToolStarted(call) if is_agent_call(&call.name) => {
                let task = call.input.get("prompt").and_then(serde_json::Value::as_str).unwrap_or_default();
                let content = serde_json::json!([{"type": "text", "text": task}]);
                self.out.send(&Frame::User {
                    message: UserMessage::Prompt { role: "user", content: &content },
                    uuid: uuid(),
                    session_id,
                    parent_tool_use_id: Some(&call.id),
                });
            }
            EngineEvent::AgentStep { parent, step: AgentStep::Assistant(message) } => {
                for block in message.content.iter().filter(|b| matches!(b, rein_protocol::ContentBlock::ToolUse(_))) {
                    self.out.send(&Frame::Assistant {
                        message: &one_block(message, block.clone()),
                        uuid: uuid(),
                        session_id,
                        parent_tool_use_id: Some(parent),
                    });
                }
            }
            EngineEvent::AgentStep { parent, step: AgentStep::ToolResults(message) } => {
                self.out.send(&Frame::User {
                    message: UserMessage::Message(message),
                    uuid: uuid(),
                    session_id,
                    parent_tool_use_id: Some(parent),
                });
            }
            EngineEvent::AgentStep { step: AgentStep::ToolStarted(_), .. }
            | EngineEvent::ToolStarted(_)
            | EngineEvent::ToolDone { .. }
            | EngineEvent::ToolFinished { .. }
            | EngineEvent::Permission { .. } => {}
        }
    }

    /// A streaming event: its API events (`--include-partial-messages`), and each block
    /// as an `assistant` line of its own the moment it completes — before its
    /// `content_block_stop`, and before a question about the call it holds.
    fn stream_delta(&mut self, delta: &rein_session::events::StreamDelta) {
        use rein_session::events::StreamDelta;
        if self.partial {
            self.progress(delta);
        }
        let session_id = self.session_id.as_str();
        let mut events = if self.partial { api_events(delta) } else { Vec::new() };
        match delta {
            StreamDelta::MessageStarted { id, model, usage } => {
                let mut head = rein_protocol::AssistantMessage::new(id.clone(), model.clone());
                head.usage = *usage;
                self.response = Some(Box::new((head, 0)));
            }
            StreamDelta::BlockDone { block, .. } => {
                let stop = events.pop();
                for event in events.drain(..) {
                    self.out.send(&Frame::StreamEvent { event, uuid: uuid(), session_id, parent_tool_use_id: None });
                }
                let (head, sent) = &mut **self.response.get_or_insert_with(|| {
                    Box::new((rein_protocol::AssistantMessage::new(String::new(), String::new()), 0))
                });
                let one = one_block(head, block.clone());
                *sent += 1;
                self.out.send(&Frame::Assistant { message: &one, uuid: uuid(), session_id, parent_tool_use_id: None });
                events.extend(stop);
            }
            _ => {}
        }
        for event in events {
            self.out.send(&Frame::StreamEvent { event, uuid: uuid(), session_id, parent_tool_use_id: None });
        }
    }

    /// What Claude Code says of a response's progress beside its events: a request is
    /// under way; the thinking's tokens so far.
    fn progress(&mut self, delta: &rein_session::events::StreamDelta) {
        use rein_session::events::StreamDelta;
        match delta {
            StreamDelta::MessageStarted { .. } => {
                self.thinking_chars = 0;
                self.system(System::Status { status: "requesting" });
            }
            StreamDelta::Thinking { thinking, .. } => {
                let before = self.thinking_chars.div_ceil(4);
                self.thinking_chars += thinking.chars().count() as u64;
                let now = self.thinking_chars.div_ceil(4);
                self.system(System::ThinkingTokens { estimated_tokens: now, estimated_tokens_delta: now - before });
            }
            _ => {}
        }
    }

    fn system(&self, system: System<'_>) {
        if self.stream {
            // Claude Code stamps its system frames but the thinking counts.
            let written_at = (!matches!(system, System::ThinkingTokens { .. })).then(crate::frames::written_at);
            self.out.send(&Frame::System { system, uuid: uuid(), session_id: &self.session_id, written_at });
        }
    }

    /// The turn ended: the `result` line, and how it ended said on stderr.
    pub fn finish(&mut self, setup: &Setup, outcome: &Outcome, elapsed: Duration) {
        let model = self.model.as_deref().unwrap_or(&setup.model);
        let structured = setup.structured_output.as_ref().and_then(|s| s.lock().ok().and_then(|a| a.clone()));
        let frame = result_frame(setup, &self.session_id, outcome, elapsed, model, structured);
        self.out.send(&Frame::Result(Box::new(frame)));
        rein_session::messages::report_end(outcome, &self.session_id);
    }
}

/// The `result` line (spec §D2).
fn result_frame<'a>(
    setup: &Setup,
    session_id: &'a str,
    o: &'a Outcome,
    elapsed: Duration,
    model: &'a str,
    structured_output: Option<serde_json::Value>,
) -> ResultFrame<'a> {
    let subtype = match o.end {
        End::Completed | End::Stopped(_) | End::Deferred(_) => "success",
        End::MaxTurns => "error_max_turns",
        End::MaxBudget => "error_max_budget_usd",
        End::Failed(EngineError::RequiredToolNotCalled { .. }) => "error_max_structured_output_retries",
        End::Failed(_) | End::Interrupted => "error_during_execution",
    };
    let result_usage = ResultUsage::of(&o.usage);
    let usage = ModelUsage {
        input_tokens: o.usage.input_tokens,
        output_tokens: o.usage.output_tokens,
        cache_read_input_tokens: o.usage.cache_read_input_tokens,
        cache_creation_input_tokens: o.usage.cache_creation_input_tokens,
        web_search_requests: o.usage.web_searches(),
        cost_usd: o.cost_usd,
        context_window: rein_session::events::window_of(model),
        max_output_tokens: setup.max_tokens,
        thinking_tokens: 0,
        cache_creation_ephemeral_5m_input_tokens: result_usage.cache_creation.ephemeral_5m_input_tokens,
        cache_creation_ephemeral_1h_input_tokens: result_usage.cache_creation.ephemeral_1h_input_tokens,
        canonical_model: model.to_string(),
        provider: setup.api_provider(),
        cost_basis: "list",
    };
    let answered = matches!(o.end, End::Completed | End::Stopped(_) | End::Deferred(_)) || !o.result_text.is_empty();
    let errors = match &o.end {
        End::Failed(e) => Some(vec![e.to_string()]),
        End::Interrupted => Some(vec![rein_protocol::INTERRUPTED.to_string()]),
        End::MaxTurns => Some(vec![format!("Reached maximum number of turns ({})", o.num_turns)]),
        End::MaxBudget => Some(vec![format!("Reached the maximum budget (${:.4} spent)", o.cost_usd)]),
        _ => None,
    };
    let deferred = match &o.end {
        End::Deferred(call) => Some(call),
        _ => None,
    };
    ResultFrame {
        subtype,
        uuid: uuid(),
        session_id,
        is_error: o.is_error(),
        duration_ms: elapsed.as_millis() as u64,
        duration_api_ms: o.api_duration.as_millis() as u64,
        num_turns: o.num_turns,
        stop_reason: if deferred.is_some() { Some("tool_deferred") } else { o.stop_reason.as_deref() },
        total_cost_usd: o.cost_usd,
        terminal_reason: matches!(o.end, End::Completed).then_some("completed"),
        usage: result_usage,
        model_usage: BTreeMap::from([(model, usage)]),
        permission_denials: o
            .permission_denials
            .iter()
            .map(|c| Denial { tool_name: &c.name, tool_use_id: &c.id, tool_input: &c.input })
            .collect(),
        structured_output,
        result: answered.then_some(o.result_text.as_str()),
        deferred_tool_use: deferred.map(|c| ToolCall { id: &c.id, name: &c.name, input: &c.input }),
        errors,
    }
}

/// `message` holding `block` only, as a streamed `assistant` line is (no stop reason yet).
fn one_block(
    message: &rein_protocol::AssistantMessage,
    block: rein_protocol::ContentBlock,
) -> rein_protocol::AssistantMessage {
    rein_protocol::AssistantMessage { content: vec![block], stop_reason: None, stop_sequence: None, ..message.clone() }
}

/// Whether a call starts a subagent (`Task` is the tool's older name).
fn is_agent_call(name: &str) -> bool {
    matches!(name, "Agent" | "Task")
}

/// Names sorted as Claude Code lists them, letter case aside.
fn sorted_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut names: Vec<&str> = names.collect();
    names.sort_by_key(|n| n.to_lowercase());
    names
}
