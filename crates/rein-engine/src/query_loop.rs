//! The loop. It continues on facts, not claims: another request is made exactly when
//! the assistant's content holds a `tool_use` block, whatever `stop_reason` says.

use std::sync::Arc;

use rein_model::{Model, ModelRequest, cost_usd};
use rein_protocol::{AssistantMessage, ContentBlock, Message, ToolSpec, ToolUse};
use rein_tools::{Registry, ToolContext};
use rein_transcript::{Transcript, TranscriptEvent};

use crate::journal::Journal;
use crate::sample::Sampled;
use crate::session_hooks;
use crate::turn_end::{Next, TurnCounters};
use crate::{Conversation, End, EngineError, EngineEvent, Gate, Outcome};

/// Settings of one session.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub model: String,
    pub max_tokens: u32,
    /// Stop with `End::MaxTurns` after this many model requests.
    pub max_turns: Option<u32>,
    /// Consecutive Stop-hook continuations allowed before rein stops anyway.
    pub max_stop_continuations: u32,
    /// Concurrency-safe tool calls run at once, at most.
    pub max_tool_concurrency: usize,
    /// Transient API failures are retried this many times.
    pub max_retries: u32,
    /// The first retry waits this long; each next one twice as long (capped at 32 s).
    pub retry_base: std::time::Duration,
    /// A stream with no event for this long is abandoned and retried.
    pub idle_timeout: std::time::Duration,
    /// The model to switch to after repeated overloads.
    pub fallback_model: Option<String>,
    /// End the session once it has cost this much.
    pub max_budget_usd: Option<f64>,
    /// The context window and the shapers' thresholds.
    pub context: crate::ContextLimits,
    pub system: rein_model::System,
    /// Prompt-cache breakpoints; `None` when caching is off.
    pub cache: Option<rein_model::CacheTtl>,
    /// What the person asked for about thinking and effort; each request applies it to
    /// its model (which changes on fallback, `/model` and in subagents).
    pub thinking: rein_model::ThinkingChoice,
    /// A tool the model must call before its turn may end (`--json-schema`'s
    /// StructuredOutput): without a successful call it is reminded, a few times.
    pub required_tool: Option<String>,
    /// What `opus`, `sonnet` and `haiku` mean (a subagent's `model:`, `/model`).
    pub aliases: rein_model::Aliases,
    /// Memory given when the model first reads or edits a file it is about (nested
    /// `CLAUDE.md`, `paths:` rules).
    pub nested_memory: Option<std::sync::Arc<rein_prompt::nested_memory::NestedMemory>>,
    /// Who starts the MCP servers a subagent's definition defines.
    pub subagent_servers: Option<crate::SharedSubagentServers>,
    /// The small fast model (WebFetch's digest, WebSearch); `None` is `model`.
    pub small_model: Option<String>,
    /// A prompt with the word `ultracode` asks the model to do the task as a workflow
    /// (`workflowKeywordTriggerEnabled`, on while workflows are).
    pub workflow_keyword: bool,
}

impl Default for EngineConfig {
    /// Claude Code's defaults: 32 000 output tokens, 8 Stop continuations, 10 tools at
    /// once, 10 retries from 500 ms, a 90 s idle stream, the model's window.
    fn default() -> Self {
        let model = "claude-sonnet-4-5";
        EngineConfig {
            model: model.into(),
            max_tokens: 32_000,
            max_turns: None,
            max_stop_continuations: 8,
            max_tool_concurrency: 10,
            max_retries: 10,
            retry_base: std::time::Duration::from_millis(500),
            idle_timeout: std::time::Duration::from_secs(90),
            fallback_model: None,
            max_budget_usd: None,
            context: crate::ContextLimits::for_model(model, None, None),
            system: "".into(),
            cache: Some(rein_model::CacheTtl::FiveMinutes),
            thinking: rein_model::ThinkingChoice::default(),
            required_tool: None,
            aliases: rein_model::Aliases::default(),
            nested_memory: None,
            subagent_servers: None,
            small_model: None,
            workflow_keyword: false,
        }
    }
}

/// Who a subagent is, for its hooks.
#[derive(Debug, Clone)]
pub struct SubagentInfo {
    pub agent_id: String,
    pub agent_type: String,
    /// A background agent's name and its session's id: a teammate, whose end also
    /// fires TeammateIdle.
    pub teammate: Option<(String, String)>,
}

/// A session: the model, the tool table, the conversation.
pub struct Engine {
    pub(crate) model: Arc<dyn Model>,
    pub(crate) registry: Arc<Registry>,
    pub(crate) gate: Gate,
    pub(crate) tools: Arc<[ToolSpec]>,
    pub(crate) ctx: ToolContext,
    pub(crate) config: EngineConfig,
    pub(crate) conversation: Conversation,
    /// SessionStart's source for the first prompt of this process: startup or resume.
    session_start: Option<&'static str>,
    /// What SessionStart hooks run at [`open_session`](Self::open_session) added, for the
    /// first prompt.
    pub(crate) start_context: Vec<String>,
    /// `--init` / `--maintenance`: Setup hooks to run before SessionStart.
    pub(crate) setup_trigger: Option<String>,
    pub(crate) transcript: Journal,
    /// Size of the tools array, for the token estimate.
    pub(crate) tools_json_bytes: usize,
    /// The registry's version the tools array was made from.
    pub(crate) tools_version: u64,
    /// The system prompt before late instructions were added to it.
    pub(crate) base_system: Option<rein_model::System>,
    /// Compactions that failed in a row (the circuit breaker).
    pub(crate) compact_failures: u32,
    /// What the person asked `/compact` to keep (for the next compaction only).
    pub(crate) compact_instructions: Option<String>,
    /// Tokens the API counted for the history, and the history's size then.
    pub(crate) counted: Option<(u64, usize)>,
    /// Set when this engine runs a subagent.
    pub(crate) subagent: Option<SubagentInfo>,
    /// Deferred calls of a resumed session, run before its next prompt.
    pub(crate) resume_calls: Vec<ToolUse>,
    /// Ids the next prompt is known by besides its transcript uuid (an Agent SDK's).
    pub(crate) prompt_ids: Vec<String>,
    /// Deferred tool definitions and which the model loaded (ToolSearch).
    pub(crate) search: Option<(crate::SharedSearch, crate::ToolSearchMode)>,
    /// How many tools were loaded when the tools array was last made.
    pub(crate) search_loaded: usize,
    /// The worktree the session works in (EnterWorktree), and a move still to make.
    pub(crate) workdir: crate::worktree_tools::SharedWorkdir,
    /// What the tools' own model requests cost (WebFetch's digest, WebSearch).
    pub(crate) side: crate::SideUsage,
    /// The permission mode the model was last told of (the system prompt tells it the
    /// mode the session starts in; a prompt after a change carries the new one). `None`
    /// after a rewind: the next prompt says it again.
    pub(crate) told_mode: Option<rein_policy::PermissionMode>,
}

impl Engine {
    /// A session. Tools a bare deny rule removes are not offered to the model.
    pub fn new(
        model: Arc<dyn Model>,
        registry: Arc<Registry>,
        gate: Gate,
        ctx: ToolContext,
        config: EngineConfig,
    ) -> Self {
        let tools: Arc<[ToolSpec]> =
            registry.specs().into_iter().filter(|t| !gate.policy.get().removes_tool(&t.name)).collect();
        let tools_json_bytes = serde_json::to_string(&*tools).map(|s| s.len()).unwrap_or(0);
        let told_mode = Some(gate.policy.get().mode);
        Engine {
            model,
            registry,
            gate,
            tools,
            ctx,
            config,
            conversation: Conversation::new(),
            session_start: Some("startup"),
            start_context: Vec::new(),
            setup_trigger: None,
            transcript: Journal::default(),
            tools_json_bytes,
            // Anything that joined before the first request is taken in by it.
            tools_version: u64::MAX,
            base_system: None,
            compact_failures: 0,
            compact_instructions: None,
            counted: None,
            subagent: None,
            resume_calls: Vec::new(),
            prompt_ids: Vec::new(),
            search: None,
            search_loaded: 0,
            workdir: Default::default(),
            side: Default::default(),
            told_mode,
        }
    }

    /// Continue an earlier conversation (resume). Calls it left unanswered get an
    /// "interrupted" result so that the history is valid before anything is sent.
    pub fn with_history(self, messages: Vec<Message>) -> Result<Self, EngineError> {
        self.with_history_deferred(messages, &[])
    }

    /// As [`with_history`](Self::with_history); calls whose ids are in `deferred`
    /// (a hook deferred them) run before the next prompt instead of being answered
    /// "interrupted".
    pub fn with_history_deferred(mut self, messages: Vec<Message>, deferred: &[String]) -> Result<Self, EngineError> {
        for m in messages {
            self.conversation.push(m)?;
        }
        // The history may end with a note of another mode: the next message says it.
        self.told_mode = None;
        self.resume_calls = self.conversation.unanswered().into_iter().filter(|c| deferred.contains(&c.id)).collect();
        if !self.resume_calls.is_empty() {
            self.session_start = Some("resume");
            return Ok(self);
        }
        let repairs = self.conversation.enforce_pairing()?;
        let interrupted = !repairs.is_empty()
            || self
                .conversation
                .messages()
                .next_back()
                .is_some_and(|m| m.content.iter().any(ContentBlock::is_interrupted));
        for r in repairs {
            tracing::info!(repair = %r.0, "repaired the resumed history");
        }
        if interrupted {
            // The next prompt joins this note (one user message).
            self.conversation
                .push(Message::user_text("[The previous turn was interrupted before it finished. Continue from where it stopped if that still makes sense.]"))
?;
        }
        if !self.conversation.is_empty() {
            self.session_start = Some("resume");
        }
        Ok(self)
    }

    /// Run as a subagent: no session or prompt hooks; its end fires SubagentStop.
    pub fn as_subagent(mut self, info: SubagentInfo) -> Self {
        self.subagent = Some(info);
        self.session_start = None;
        self
    }

    /// Record the session in `transcript`: every message, each tool start, each
    /// permission decision, interrupts.
    pub fn with_transcript(mut self, transcript: Transcript) -> Self {
        self.transcript = Journal::new(transcript);
        self
    }

    /// Record the session from now on in `transcript` (a new session after `/clear`).
    pub fn set_transcript(&mut self, transcript: Transcript) {
        self.transcript = Journal::new(transcript);
    }

    /// The uuid of the transcript's last message line (the next line's parent).
    pub fn transcript_last_uuid(&self) -> Option<String> {
        self.transcript.last_uuid()
    }

    pub(crate) fn log(&self, write: impl FnOnce(&mut Transcript) -> Result<(), rein_transcript::SessionError>) {
        self.transcript.write(write);
    }

    /// Push a user message to the conversation and the transcript.
    pub(crate) fn push_user(&mut self, message: Message, is_meta: bool) -> Result<(), EngineError> {
        self.log(|t| t.user(&message, is_meta));
        Ok(self.conversation.push(message)?)
    }

    /// The next prompt starts the session again (SessionStart with `source`).
    pub(crate) fn restart_session(&mut self, source: &'static str) {
        self.session_start = Some(source);
    }

    /// The session opens now (an interactive one, before its first prompt): SessionStart
    /// hooks run at once, as in Claude Code; what context they add goes with the first
    /// prompt.
    pub async fn open_session(&mut self, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        self.setup_hooks(sink).await;
        let Some(hooks) = self.gate.hooks.clone().filter(|_| self.subagent.is_none()) else { return };
        let Some(source) = self.session_start.take() else { return };
        let context = session_hooks::session_start_now(&hooks, source, sink).await;
        self.start_context.extend(context);
    }

    /// Run one user prompt to the end of its turn.
    pub async fn run(&mut self, prompt: Message, sink: &mut (dyn FnMut(EngineEvent) + Send)) -> Outcome {
        let mut out = self.run_turn(prompt, sink).await;
        // What was spent beside the conversation and not counted yet (a background
        // agent that ended after the turn's last step) counts in this turn.
        for (model, usage) in self.side.take() {
            out.usage.add(&usage);
            out.cost_usd += cost_usd(&model, &usage);
        }
        out
    }

    async fn run_turn(&mut self, prompt: Message, sink: &mut (dyn FnMut(EngineEvent) + Send)) -> Outcome {
        let mut out = Outcome::new();
        let mut prompt = prompt;
        self.setup_hooks(sink).await;
        prompt.content.extend(self.start_context.drain(..).map(rein_protocol::ContentBlock::text));
        let prompt = match self.gate.hooks.as_ref().filter(|_| self.subagent.is_none()) {
            Some(h) => match session_hooks::before_prompt(h, self.session_start.take(), prompt, sink).await {
                Ok(p) => p,
                Err(blocked) => return out.failed(blocked),
            },
            None => prompt,
        };
        self.session_start = None;
        if let Err(e) = self.run_deferred(&mut out, sink).await {
            return out.failed(e);
        }
        if let Err(e) = self.push_prompt(prompt) {
            return out.failed(e);
        }
        // Tool starts go to the transcript before the tool runs; a failed write is
        // reported once, with the next event.
        let journal = self.transcript.clone();
        let sink = &mut |e: EngineEvent| {
            if let EngineEvent::ToolStarted(call) = &e {
                journal.write(|t| {
                    t.event(&TranscriptEvent::ToolStarted {
                        tool_use_id: call.id.clone(),
                        name: call.name.clone(),
                        input: call.input.clone(),
                    })
                });
            }
            if let Some(warning) = journal.take_warning() {
                sink(EngineEvent::Notice(warning));
            }
            sink(e);
        };
        let mut counters = TurnCounters { turn_start: self.conversation.len(), ..TurnCounters::default() };
        let abort = self.ctx.abort.clone();
        loop {
            let request = match self.prepare_request(sink).await {
                Ok(r) => r,
                Err(e) => return out.failed(e),
            };
            out.num_turns += 1;
            let (sampled, mut exec) = self.sample_recovering(request, &mut out, &abort, sink).await;
            let Sampled::Done(message) = sampled else { return self.settle(sampled, exec, out, sink).await };
            self.record_assistant(&message, &mut out, sink);
            let calls: Vec<ToolUse> = message.to_message().tool_uses().cloned().collect();
            if calls.is_empty() {
                // No tool call: the turn ends, unless a named step continues it.
                match self.when_done(&message, &mut counters, sink).await {
                    Next::Continue => continue,
                    Next::End(end) => return out.end(end),
                }
            }
            counters.stop_blocks = 0;
            calls.iter().for_each(|call| exec.submit(call.clone(), sink));
            let (reports, interrupted) = exec.finish(&abort, sink).await;
            let recorded = self.record_results(reports, &mut out, sink);
            if let Some(end) = self.stop_after_tools(interrupted, recorded, (&message, &mut counters), &out, sink).await
            {
                return out.end(end);
            }
            if let Some(end) = self.after_tool_batch(&calls, sink).await {
                return out.end(end);
            }
        }
    }

    pub(crate) fn request(&mut self) -> Result<ModelRequest, EngineError> {
        self.join_late_tools();
        Ok(ModelRequest {
            model: self.config.model.clone(),
            max_tokens: self.output_limit(),
            system: self.config.system.clone(),
            tools: self.tools.clone(),
            messages: self.conversation.for_request()?,
            cache: self.config.cache,
            reasoning: rein_model::Reasoning::choose(&self.config.model, self.output_limit(), &self.config.thinking),
            web_search: None,
        })
    }

    /// `max_tokens`, within what the model can write when the table knows it (after a
    /// fallback to a smaller model, say).
    fn output_limit(&self) -> u32 {
        let info = rein_model::model_info(&self.config.model);
        if info.id.is_empty() { self.config.max_tokens } else { self.config.max_tokens.min(info.max_output_tokens) }
    }

    pub(crate) fn record_assistant(
        &mut self,
        m: &AssistantMessage,
        out: &mut Outcome,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) {
        out.usage.add(&m.usage);
        out.cost_usd += cost_usd(&m.model, &m.usage);
        out.stop_reason = m.stop_reason.clone();
        out.result_text = m.to_message().text();
        self.log(|t| t.assistant(m));
        if let Err(e) = self.conversation.push(m.to_message()) {
            tracing::error!(error = %e, "could not record an assistant message");
        }
        // What the API counted: the request and this answer, at this length of history.
        let u = &m.usage;
        let counted = u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens + u.output_tokens;
        if counted > 0 {
            self.counted = Some((counted, self.conversation.json_bytes()));
        }
        sink(EngineEvent::Assistant(m.clone()));
    }

    /// Run the calls a hook deferred in the session being resumed, through the whole
    /// chain again (the hook may defer once more), and answer them in call order.
    async fn run_deferred(
        &mut self,
        out: &mut Outcome,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<(), EngineError> {
        let calls = std::mem::take(&mut self.resume_calls);
        if calls.is_empty() {
            return Ok(());
        }
        let mut exec = crate::executor::Executor::new(
            self.registry.clone(),
            self.gate.clone(),
            self.tool_context(),
            self.config.max_tool_concurrency,
        );
        for call in calls {
            exec.submit(call, sink);
        }
        let (reports, _) = exec.finish(&self.ctx.abort.clone(), sink).await;
        let recorded = self.record_results(reports, out, sink);
        if let Some(call) = recorded.deferred {
            return Err(EngineError::DeferredAgain { tool: call.name, id: call.id });
        }
        // Results join the ones already given, in call order.
        self.conversation.enforce_pairing()?;
        Ok(())
    }

    /// SessionEnd hooks.
    pub async fn end_session(&self, reason: &str, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        if let Some(h) = &self.gate.hooks {
            session_hooks::end(h, reason, sink).await;
        }
    }
}

impl Outcome {
    fn new() -> Self {
        Outcome {
            end: End::Completed,
            num_turns: 0,
            usage: Default::default(),
            cost_usd: 0.0,
            api_duration: Default::default(),
            result_text: String::new(),
            stop_reason: None,
            permission_denials: Vec::new(),
        }
    }

    fn end(mut self, end: End) -> Self {
        self.end = end;
        self
    }

    fn failed(self, error: EngineError) -> Self {
        self.end(End::Failed(error))
    }
}
