//! How a turn ends or goes on, outside the loop: the continuations when the model
//! stops without a tool call (max_tokens, Stop hooks), the limits checked after tool
//! calls, and settling a response that failed or was interrupted.

use rein_protocol::{AssistantMessage, Message};
use rein_transcript::TranscriptEvent;

use crate::executor::Executor;
use crate::record::Recorded;
use crate::sample::Sampled;
use crate::session_hooks::{self, StopVerdict};
use crate::{End, Engine, EngineError, EngineEvent, Outcome};

/// Counts that bound the continuations of one turn.
#[derive(Default)]
pub(crate) struct TurnCounters {
    /// Consecutive Stop-hook continuations.
    pub stop_blocks: u32,
    /// Continuations after max_tokens cut-offs.
    pub cut_offs: u32,
    /// Reminders to call the required tool.
    pub reminders: u32,
    /// Where the turn's messages begin in the conversation.
    pub turn_start: usize,
}

/// Reminders to call the required tool before the turn fails.
const MAX_REQUIRED_TOOL_REMINDERS: u32 = 5;

pub(crate) enum Next {
    Continue,
    End(End),
}

impl Engine {
    /// The model answered without a tool call. A response cut by max_tokens goes on; a
    /// Stop hook may send the model back to work; otherwise the turn ends.
    pub(crate) async fn when_done(
        &mut self,
        message: &AssistantMessage,
        counters: &mut TurnCounters,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Next {
        if let Some(meta) = self.max_tokens_continuation(message, &mut counters.cut_offs) {
            return self.go_on(meta);
        }
        if let Some(tool) = self.config.required_tool.clone()
            && !self.called_successfully(&tool, counters.turn_start)
        {
            if counters.reminders >= MAX_REQUIRED_TOOL_REMINDERS {
                return Next::End(End::Failed(EngineError::RequiredToolNotCalled {
                    tool,
                    reminders: counters.reminders,
                }));
            }
            counters.reminders += 1;
            return self.go_on(Message::user_text(format!(
                "You must call the {tool} tool to give your final answer, with an input that matches its schema. \
                 Call it now."
            )));
        }
        self.end_of_turn(message, counters, sink).await
    }

    /// The calls of a response ran. When the turn had to end with a tool (structured
    /// output) and it was called successfully, the answer is in: the turn ends here,
    /// as Claude Code's does, without asking the model for more.
    async fn after_required_tool(
        &mut self,
        message: &AssistantMessage,
        counters: &mut TurnCounters,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Option<Next> {
        let tool = self.config.required_tool.clone()?;
        if !self.called_successfully(&tool, counters.turn_start) {
            return None;
        }
        Some(self.end_of_turn(message, counters, sink).await)
    }

    /// Stop hooks may send the model back to work; otherwise the turn ends.
    async fn end_of_turn(
        &mut self,
        message: &AssistantMessage,
        counters: &mut TurnCounters,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Next {
        match self.stop_hooks(message, counters.stop_blocks, sink).await {
            StopVerdict::Continue(feedback) => {
                counters.stop_blocks += 1;
                self.go_on(Message::user_text(feedback))
            }
            StopVerdict::Halt(reason) => Next::End(End::Stopped(reason)),
            StopVerdict::End => Next::End(End::Completed),
        }
    }

    /// Whether `tool` was called and answered without error since `start`.
    fn called_successfully(&self, tool: &str, start: usize) -> bool {
        let messages: Vec<&Message> = self.conversation.messages().skip(start).collect();
        let ids: Vec<&str> =
            messages.iter().flat_map(|m| m.tool_uses()).filter(|c| c.name == tool).map(|c| c.id.as_str()).collect();
        messages.iter().flat_map(|m| m.content.iter()).any(|b| {
            matches!(b, rein_protocol::ContentBlock::ToolResult { tool_use_id, is_error: false, .. }
                if ids.contains(&tool_use_id.as_str()))
        })
    }

    fn go_on(&mut self, mut meta: Message) -> Next {
        self.note_news(&mut meta);
        match self.push_user(meta, true) {
            Ok(()) => Next::Continue,
            Err(e) => Next::End(End::Failed(e)),
        }
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
        session_hooks::stop(hooks, self.subagent.as_ref(), blocks > 0, &message.to_message().text(), sink).await
    }

    /// CwdChanged hooks when the calls moved the shell, FileChanged hooks for the watched
    /// files they changed, then PostToolBatch hooks once the
    /// response's calls are answered: their context joins the conversation; a block or
    /// `continue: false` ends the turn.
    pub(crate) async fn after_tool_batch(
        &mut self,
        calls: &[rein_protocol::ToolUse],
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Option<End> {
        let hooks = self.gate.hooks.clone()?;
        if let Some(change) = self.ctx.shell_dir.take_change(&self.ctx.cwd)
            && hooks.has(rein_hooks::HookEvent::CwdChanged)
        {
            session_hooks::cwd_changed(&hooks, change, sink).await;
        }
        session_hooks::file_changes(&hooks, sink).await;
        if !hooks.has(rein_hooks::HookEvent::PostToolBatch) {
            return None;
        }
        let results = self.conversation.messages().last().cloned()?;
        let (halt, context) = session_hooks::post_tool_batch(&hooks, calls, &results, sink).await;
        if let Some(reason) = halt {
            return Some(End::Stopped(reason));
        }
        if !context.is_empty() {
            let text = context.iter().map(|c| format!("<post-tool-batch-hook>\n{c}\n</post-tool-batch-hook>"));
            if let Err(e) = self.push_user(Message::user_text(text.collect::<Vec<_>>().join("\n")), true) {
                return Some(End::Failed(e));
            }
        }
        None
    }

    /// After the results are recorded: an interrupt, a hook's stop, a limit, or the
    /// answer of a turn that had to end with a tool ([`Self::after_required_tool`]) ends
    /// the run.
    pub(crate) async fn stop_after_tools(
        &mut self,
        interrupted: bool,
        recorded: Recorded,
        (message, counters): (&AssistantMessage, &mut TurnCounters),
        out: &Outcome,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Option<End> {
        if interrupted {
            self.log(|t| t.event(&TranscriptEvent::Interrupted { during: "tool calls".into() }));
            if let Err(e) = self.note_interrupt(rein_protocol::INTERRUPTED_TOOL_USE, sink) {
                return Some(End::Failed(e));
            }
            return Some(End::Interrupted);
        }
        if let Some(call) = recorded.deferred {
            return Some(End::Deferred(call));
        }
        if let Some(reason) = recorded.halt {
            return Some(End::Stopped(reason));
        }
        if self.config.max_turns.is_some_and(|max| out.num_turns >= max) {
            return Some(End::MaxTurns);
        }
        if self.config.max_budget_usd.is_some_and(|max| out.cost_usd >= max) {
            return Some(End::MaxBudget);
        }
        match self.after_required_tool(message, counters, sink).await? {
            Next::End(end) => Some(end),
            // A Stop hook sent the model back to work: its word is in the conversation.
            Next::Continue => None,
        }
    }

    /// Keep in the conversation that the person interrupted (`mark`), and say so.
    fn note_interrupt(&mut self, mark: &str, sink: &mut (dyn FnMut(EngineEvent) + Send)) -> Result<(), EngineError> {
        let note = Message::user_text(mark);
        self.push_user(note.clone(), false)?;
        sink(EngineEvent::Interrupted(note));
        Ok(())
    }

    /// A response that failed or was interrupted. After a failure, calls started from
    /// the broken stream are cancelled and forgotten, and the partial text is shown but
    /// not sent back. After an interrupt, every call is answered and recorded.
    pub(crate) async fn settle(
        &mut self,
        sampled: Sampled,
        mut exec: Executor,
        mut out: Outcome,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Outcome {
        match sampled {
            Sampled::Failed { partial, error } => {
                exec.discard().await;
                if let Some(p) = partial {
                    out.result_text = p.to_message().text();
                    sink(EngineEvent::Assistant(p));
                }
                if let Some(hooks) = self.gate.hooks.as_ref().filter(|_| self.subagent.is_none()) {
                    session_hooks::stop_failure(hooks, &error, &out.result_text).await;
                }
                out.end = End::Failed(EngineError::Model(error));
            }
            Sampled::Interrupted { partial } => {
                let reports = exec.interrupt().await;
                if let Some(p) = partial {
                    self.record_assistant(&p, &mut out, sink);
                }
                let ran = !reports.is_empty();
                self.record_results(reports, &mut out, sink);
                self.log(|t| t.event(&TranscriptEvent::Interrupted { during: "the response".into() }));
                let mark = if ran { rein_protocol::INTERRUPTED_TOOL_USE } else { rein_protocol::INTERRUPTED_RESPONSE };
                out.end = match self.note_interrupt(mark, sink) {
                    Ok(()) => End::Interrupted,
                    Err(e) => End::Failed(e),
                };
            }
            Sampled::Done(_) => {}
        }
        out
    }
}
