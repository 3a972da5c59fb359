//! The loop. It continues on facts, not claims: another request is made exactly when
//! the assistant's content holds a `tool_use` block, whatever `stop_reason` says.

use std::sync::Arc;
use std::time::Instant;

use rein_model::{Model, ModelRequest, cost_usd};
use rein_protocol::{AssistantMessage, Message, ToolSpec, ToolUse};
use rein_tools::{Registry, ToolContext};

use crate::sample::{SampleFailure, sample};
use crate::session_hooks::{self, StopVerdict};
use crate::{Conversation, End, EngineEvent, Gate, Outcome, chain};

/// Settings of one session.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub model: String,
    pub max_tokens: u32,
    /// Stop with `End::MaxTurns` after this many model requests.
    pub max_turns: Option<u32>,
    /// Consecutive Stop-hook continuations allowed before rein stops anyway.
    pub max_stop_continuations: u32,
    pub system: Arc<str>,
}

/// A session: the model, the tool table, the conversation.
pub struct Engine {
    model: Arc<dyn Model>,
    registry: Arc<Registry>,
    gate: Gate,
    tools: Arc<[ToolSpec]>,
    ctx: ToolContext,
    config: EngineConfig,
    conversation: Conversation,
    started: bool,
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
        let tools = registry.specs().into_iter().filter(|t| !gate.policy.removes_tool(&t.name)).collect();
        Engine { model, registry, gate, tools, ctx, config, conversation: Conversation::new(), started: false }
    }

    /// The tools offered to the model.
    pub fn tool_names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name.clone()).collect()
    }

    pub fn conversation(&self) -> &Conversation {
        &self.conversation
    }

    /// Run one user prompt to the end of its turn.
    pub async fn run(&mut self, prompt: Message, sink: &mut (dyn FnMut(EngineEvent) + Send)) -> Outcome {
        let mut out = Outcome::new();
        let prompt = match &self.gate.hooks {
            Some(h) => match session_hooks::before_prompt(h, !self.started, prompt, sink).await {
                Ok(p) => p,
                Err(blocked) => return out.failed(blocked),
            },
            None => prompt,
        };
        self.started = true;
        if let Err(e) = self.conversation.push(prompt) {
            return out.failed(e.to_string());
        }
        let mut stop_blocks = 0;
        loop {
            let request = match self.request() {
                Ok(r) => r,
                Err(e) => return out.failed(e),
            };
            out.num_turns += 1;
            let started = Instant::now();
            let sampled = sample(self.model.as_ref(), request, sink).await;
            out.api_duration += started.elapsed();
            let message = match sampled {
                Ok(m) => m,
                Err(SampleFailure { partial, error }) => {
                    if let Some(p) = partial {
                        self.record_assistant(&p, &mut out, sink);
                    }
                    return out.failed(error.to_string());
                }
            };
            self.record_assistant(&message, &mut out, sink);
            let calls: Vec<ToolUse> = message.to_message().tool_uses().cloned().collect();
            if calls.is_empty() {
                // A Stop hook may send the model back to work (the one other way to continue).
                match self.stop_hooks(&message, stop_blocks, sink).await {
                    StopVerdict::Continue(feedback) => {
                        stop_blocks += 1;
                        if let Err(e) = self.conversation.push(Message::user_text(feedback)) {
                            return out.failed(e.to_string());
                        }
                        continue;
                    }
                    StopVerdict::Halt(reason) => return out.end(End::Stopped(reason)),
                    StopVerdict::End => return out.end(End::Completed),
                }
            }
            stop_blocks = 0;
            let (results, halt) = self.run_tools(&calls, &mut out, sink).await;
            if let Err(e) = self.conversation.push(results) {
                return out.failed(e.to_string());
            }
            if let Some(reason) = halt {
                return out.end(End::Stopped(reason));
            }
            if self.config.max_turns.is_some_and(|max| out.num_turns >= max) {
                return out.end(End::MaxTurns);
            }
        }
    }

    fn request(&mut self) -> Result<ModelRequest, String> {
        Ok(ModelRequest {
            model: self.config.model.clone(),
            max_tokens: self.config.max_tokens,
            system: self.config.system.clone(),
            tools: self.tools.clone(),
            messages: self.conversation.for_request().map_err(|e| e.to_string())?,
        })
    }

    fn record_assistant(
        &mut self,
        m: &AssistantMessage,
        out: &mut Outcome,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) {
        out.usage.add(&m.usage);
        out.cost_usd += cost_usd(&m.model, &m.usage);
        out.stop_reason = m.stop_reason.clone();
        out.result_text = m.to_message().text();
        if let Err(e) = self.conversation.push(m.to_message()) {
            tracing::error!(error = %e, "could not record an assistant message");
        }
        sink(EngineEvent::Assistant(m.clone()));
    }

    /// Stop hooks, with the cap on consecutive continuations.
    async fn stop_hooks(
        &self,
        message: &AssistantMessage,
        blocks: u32,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> StopVerdict {
        let Some(hooks) = &self.gate.hooks else { return StopVerdict::End };
        if blocks >= self.config.max_stop_continuations {
            sink(EngineEvent::Notice(format!(
                "Stop hooks blocked the end of the turn {blocks} times in a row; rein stopped anyway (cap: {})",
                self.config.max_stop_continuations
            )));
            return StopVerdict::End;
        }
        session_hooks::stop(hooks, blocks > 0, &message.to_message().text(), sink).await
    }

    /// SessionEnd hooks.
    pub async fn end_session(&self, reason: &str, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        if let Some(h) = &self.gate.hooks {
            session_hooks::end(h, reason, sink).await;
        }
    }

    /// Run the calls in order through the chain; one result per call, in call order.
    /// Also returns a hook's `continue: false` reason, if one said so.
    async fn run_tools(
        &self,
        calls: &[ToolUse],
        out: &mut Outcome,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> (Message, Option<String>) {
        let mut halt = None;
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            sink(EngineEvent::ToolStarted(call.clone()));
            let report = chain::run_call(&self.registry, &self.gate, call, &self.ctx).await;
            for n in report.notices {
                sink(EngineEvent::Notice(n));
            }
            halt = halt.or(report.stop);
            if let Some(verdict) = report.verdict {
                crate::audit::record(call, &verdict);
                if !verdict.allowed() {
                    out.permission_denials.push(call.clone());
                }
                sink(EngineEvent::Permission { call: call.clone(), verdict });
            }
            sink(EngineEvent::ToolFinished { call: call.clone(), result: report.result.clone() });
            results.push(report.result);
        }
        let message = Message::user(results);
        sink(EngineEvent::ToolResults(message.clone()));
        (message, halt)
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

    fn failed(self, message: String) -> Self {
        self.end(End::Failed(message))
    }
}
