//! Recording the results of one response: the audit of each permission verdict, the
//! per-response result budget, repeated results as pointers, the user message with the
//! results in call order.

use rein_protocol::{Message, ToolUse};
use rein_transcript::TranscriptEvent;

use crate::chain::CallReport;
use crate::{Engine, EngineEvent, Outcome};

/// What recording the results asks of the loop.
#[derive(Default)]
pub(crate) struct Recorded {
    /// A hook said `continue: false`.
    pub halt: Option<String>,
    /// A hook deferred this call (headless): stop, and run it on resume.
    pub deferred: Option<ToolUse>,
}

impl Engine {
    /// Put the results (in call order) into the conversation; audit and report each.
    pub(crate) fn record_results(
        &mut self,
        reports: Vec<CallReport>,
        out: &mut Outcome,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Recorded {
        let mut recorded = Recorded::default();
        if reports.is_empty() {
            return recorded;
        }
        let mut results = Vec::with_capacity(reports.len());
        let mut late_memory: Vec<String> = Vec::new();
        let calls: Vec<ToolUse> = self
            .conversation
            .messages()
            .rfind(|m| m.role == rein_protocol::Role::Assistant)
            .map(|m| m.tool_uses().cloned().collect())
            .unwrap_or_default();
        for (model, usage) in self.side.take() {
            out.usage.add(&usage);
            out.cost_usd += rein_model::cost_usd(&model, &usage);
        }
        for report in reports {
            let id = report.result.tool_result_id().unwrap_or_default().to_string();
            let call = calls.iter().find(|c| c.id == id).cloned();
            for n in report.notices {
                sink(EngineEvent::Notice(n));
            }
            recorded.halt = recorded.halt.or(report.stop);
            if let (Some(verdict), Some(call)) = (report.verdict, &call) {
                crate::audit::record(call, &verdict);
                if let Some(j) = &verdict.judgement {
                    out.usage.add(&j.usage);
                    out.cost_usd += j.cost_usd;
                    self.log(|t| t.event(&judgement_event(call, j)));
                }
                self.log(|t| {
                    t.event(&TranscriptEvent::Permission {
                        tool_use_id: call.id.clone(),
                        tool_name: call.name.clone(),
                        decision: verdict.decision.behavior.name().to_string(),
                        asked: verdict.asked,
                        source: match verdict.decision.grant {
                            rein_policy::Grant::User => verdict.decision.source.clone(),
                            g => format!("{}; runs in rein's {}", verdict.decision.source, g.name()),
                        },
                        reason: verdict.decision.reason.clone(),
                    })
                });
                if !verdict.allowed() && !report.deferred {
                    out.permission_denials.push(call.clone());
                }
                sink(EngineEvent::Permission { call: call.clone(), verdict });
            }
            if report.deferred {
                // Left unanswered on purpose: the transcript says so, and resume runs it.
                if let Some(call) = call {
                    self.log(|t| t.event(&TranscriptEvent::Deferred { tool_use_id: call.id.clone() }));
                    recorded.deferred.get_or_insert(call);
                }
                continue;
            }
            if let Some(call) = call {
                if let rein_protocol::ContentBlock::ToolResult { content, is_error, .. } = &report.result {
                    self.gate.judge_context.note_result(&call, report.effects.as_ref(), &content.to_text(), *is_error);
                }
                sink(EngineEvent::ToolFinished { call, result: report.result.clone(), saved: report.saved.clone() });
            }
            let succeeded = matches!(&report.result, rein_protocol::ContentBlock::ToolResult { is_error: false, .. });
            late_memory
                .extend(report.effects.as_ref().filter(|_| succeeded).map(|e| self.late_memory(e)).unwrap_or_default());
            results.push(report.result);
        }
        if results.is_empty() {
            return recorded;
        }
        results.extend(late_memory.into_iter().map(rein_protocol::ContentBlock::text));
        let mut message = Message::user(results);
        self.note_news(&mut message);
        let repeats = crate::repeats::collapse(&mut message, &calls, &self.conversation, &self.registry);
        if repeats > 0 {
            tracing::debug!(repeats, "repeated results sent as pointers to the earlier ones");
        }
        let exempt: Vec<String> =
            calls.iter().filter(|c| self.registry.never_spilled(&c.name)).map(|c| c.id.clone()).collect();
        let spilled =
            crate::context::budget_results(&mut message, self.config.context.window as usize, &self.ctx, &exempt);
        if spilled > 0 {
            tracing::debug!(spilled, "spilled tool results over the per-message budget");
        }
        sink(EngineEvent::ToolResults(message.clone()));
        if let Err(e) = self.push_user(message, false) {
            tracing::error!(error = %e, "could not record tool results");
        }
        // EnterWorktree or ExitWorktree ran: the next calls work in the new directory.
        self.apply_workdir_move();
        recorded
    }
}

impl Engine {
    /// The memory a file tool's file brings (nested `CLAUDE.md`, `paths:` rules), as
    /// reminders that join the results, as Claude Code attaches them.
    fn late_memory(&self, effects: &rein_tools::Effects) -> Vec<String> {
        let Some(memory) = &self.config.nested_memory else { return Vec::new() };
        if effects.shell.is_some() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for file in effects.reads.iter().chain(&effects.writes) {
            for m in memory.for_file(file) {
                if m.reason == "skill_path_match" {
                    out.push(format!("<system-reminder>\n{}\n</system-reminder>", m.content));
                    continue;
                }
                if let Some(hooks) = self.gate.hooks.clone() {
                    let input = rein_hooks::HookInput::InstructionsLoaded {
                        file_path: m.path.display().to_string(),
                        memory_type: "Project".into(),
                        load_reason: m.reason.into(),
                    };
                    // Fired in the background: it only informs.
                    tokio::spawn(async move { hooks.fire_input(&input, |_| true).await });
                }
                out.push(format!(
                    "<system-reminder>\nContents of {} (instructions for {}):\n\n{}\n</system-reminder>",
                    m.path.display(),
                    file.display(),
                    m.content.trim()
                ));
            }
        }
        out
    }
}

/// The transcript line of a judgement.
fn judgement_event(call: &ToolUse, j: &crate::Judgement) -> TranscriptEvent {
    let verdict = match j.verdict {
        crate::JudgeVerdict::Allow => "allow",
        crate::JudgeVerdict::Block => "block",
        crate::JudgeVerdict::Failed => "failed",
    };
    TranscriptEvent::Judgement {
        tool_use_id: call.id.clone(),
        tool_name: call.name.clone(),
        input: call.input.clone(),
        verdict: verdict.into(),
        reason: j.reason.clone(),
        model: j.model.clone(),
        latency_ms: j.latency.as_millis() as u64,
        input_tokens: j.usage.input_tokens,
        output_tokens: j.usage.output_tokens,
        cost_usd: j.cost_usd,
        cached: j.cached,
    }
}
