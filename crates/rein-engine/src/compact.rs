//! Shaping the context before each request (also mid-turn): microcompact, then
//! autocompact when the next request would pass the threshold. Compaction asks the
//! model for a summary (no tools), runs the PreCompact and SessionStart(compact) hooks,
//! replaces the history by the summary plus the exchange in progress, and writes a
//! compact boundary to the transcript. Three failures in a row open a circuit breaker.

use futures::StreamExt;
use rein_hooks::HookInput;
use rein_model::{ModelEvent, ModelRequest};
use rein_protocol::{ContentBlock, Message};

use crate::context::{SUMMARY_PROMPT, compacted_history, estimate_tokens, microcompact};
use crate::{Engine, EngineError, EngineEvent};

/// Compaction attempts that may fail in a row before rein stops trying.
const MAX_COMPACT_FAILURES: u32 = 3;
/// Files re-attached after compaction, and how much of each.
const RECENT_FILES: usize = 5;
const RECENT_FILE_BYTES: usize = 8_000;
/// The summary's own output limit.
const SUMMARY_MAX_TOKENS: u32 = 8_000;

impl Engine {
    /// The estimated size of the next request, in tokens: the API's own count of the
    /// history when there is one, plus a cheap estimate of what was added since; never
    /// less than the estimate of the whole request.
    pub fn estimated_tokens(&self) -> u64 {
        let bytes = self.conversation.json_bytes();
        let whole = estimate_tokens(self.config.system.len() + self.tools_json_bytes + bytes);
        match self.counted {
            Some((counted, at)) if bytes >= at => whole.max(counted + estimate_tokens(bytes - at)),
            _ => whole,
        }
    }

    /// `/context`'s breakdown, in estimated tokens: the system prompt (memory files
    /// included), the tool definitions, the messages.
    pub fn context_breakdown(&self) -> [(&'static str, u64); 3] {
        [
            ("System prompt and memory", estimate_tokens(self.config.system.len())),
            ("Tool definitions", estimate_tokens(self.tools_json_bytes)),
            ("Messages", estimate_tokens(self.conversation.json_bytes())),
        ]
    }

    /// Run the shapers, then build the request.
    pub(crate) async fn prepare_request(
        &mut self,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<ModelRequest, EngineError> {
        let limits = self.config.context;
        if self.estimated_tokens() > limits.microcompact_at {
            let cleared = microcompact(&mut self.conversation, limits.keep_recent_results);
            if cleared > 0 {
                tracing::debug!(cleared, "microcompact cleared old tool results");
            }
        }
        if self.estimated_tokens() > limits.autocompact_at
            && self.compact_failures < MAX_COMPACT_FAILURES
            && let Err(e) = self.compact("auto", sink).await
        {
            self.compact_failures += 1;
            sink(EngineEvent::Notice(format!(
                "compaction failed ({}/{MAX_COMPACT_FAILURES}): {e}",
                self.compact_failures
            )));
        }
        self.request()
    }

    /// The most recently read files, re-attached after a compaction (current content,
    /// capped), so the model does not start by reading them all again.
    fn recent_files(&self) -> String {
        let mut out = String::new();
        for path in self.ctx.file_state.paths().iter().rev().take(RECENT_FILES) {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            let cut = (0..=RECENT_FILE_BYTES.min(text.len())).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
            let more = if cut < text.len() { "\n[… truncated; Read the file for the rest]" } else { "" };
            out.push_str(&format!(
                "\n\n<recently-read-file path=\"{}\">\n{}{more}\n</recently-read-file>",
                path.display(),
                &text[..cut]
            ));
        }
        out
    }

    /// Summarise the conversation and continue from the summary.
    pub(crate) async fn compact(
        &mut self,
        trigger: &str,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> Result<(), EngineError> {
        let pre_tokens = self.estimated_tokens();
        if let Some(hooks) = &self.gate.hooks {
            let input = HookInput::PreCompact {
                trigger: trigger.to_string(),
                custom_instructions: self.compact_instructions.clone().unwrap_or_default(),
            };
            let out = hooks.fire_input(&input, |_| true).await;
            if let Some((reason, hook)) = out.block() {
                return Err(EngineError::Compaction(format!(
                    "the PreCompact hook `{hook}` blocked compaction: {reason}"
                )));
            }
        }
        let mut messages = self.conversation.for_request()?;
        let ask = match self.compact_instructions.take() {
            Some(extra) if !extra.trim().is_empty() => format!("{SUMMARY_PROMPT}\n\nAlso: {extra}"),
            _ => SUMMARY_PROMPT.to_string(),
        };
        messages.push(std::sync::Arc::new(rein_model::CachedMessage::new(Message::user_text(ask))?));
        let request = ModelRequest {
            model: self.config.model.clone(),
            max_tokens: self.config.max_tokens.min(SUMMARY_MAX_TOKENS),
            system: "You write faithful, compact summaries of coding sessions.".into(),
            tools: std::sync::Arc::new([]),
            messages,
            cache: self.config.cache,
            reasoning: rein_model::Reasoning::default(),
            web_search: None,
        };
        let mut stream = self.model.stream(request);
        let mut summary = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(ModelEvent::MessageDone(m)) => summary = Some(m.to_message().text()),
                Ok(_) => {}
                Err(e) => return Err(EngineError::Compaction(format!("the summary request failed: {e}"))),
            }
        }
        let mut summary = summary
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| EngineError::Compaction("the summary was empty".into()))?;
        summary.push_str(&self.recent_files());
        let history: Vec<Message> = self.conversation.messages().cloned().collect();
        let mut compacted = compacted_history(&history, &summary);
        if let Some(hooks) = &self.gate.hooks {
            let done = HookInput::PostCompact { trigger: trigger.to_string(), compact_summary: summary.clone() };
            hooks.fire_input(&done, |_| true).await;
        }
        if let Some(hooks) = &self.gate.hooks {
            let out = hooks.fire_input(&HookInput::SessionStart { source: "compact".into() }, |_| true).await;
            let context = out.context(true);
            if let Some(first) = compacted.first_mut() {
                first.content.extend(
                    context
                        .into_iter()
                        .map(|c| ContentBlock::text(format!("<session-start-hook>\n{c}\n</session-start-hook>"))),
                );
            }
        }
        self.conversation.replace(compacted.clone())?;
        // A note of a mode change may have been summarised away: the next prompt says it.
        self.told_mode = None;
        // Prompt positions start again after a summary: earlier checkpoints cannot be
        // named any more.
        if let Some(cp) = &self.ctx.checkpoints {
            cp.forget_from(0);
        }
        self.counted = None;
        self.log(|t| {
            t.event(&rein_transcript::TranscriptEvent::CompactBoundary { trigger: trigger.to_string(), pre_tokens })?;
            compacted.iter().try_for_each(|m| t.message(m))
        });
        self.compact_failures = 0;
        sink(EngineEvent::Compacted { trigger: trigger.to_string(), pre_tokens, post_tokens: self.estimated_tokens() });
        Ok(())
    }
}
