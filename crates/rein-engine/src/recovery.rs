//! Recovery, each a named transition of the turn rather than an `if` in the loop: what
//! a failed request calls for is decided by [`Retries`] (a pure step, tested on its
//! own) and done here — the credentials read again, the conversation compacted, the
//! request sent again after a backoff, on the fallback model after repeated overloads;
//! and a response cut by `max_tokens` goes on with a meta message.

use std::time::Instant;

use rein_model::{ModelError, ModelRequest};
use rein_protocol::{ContentBlock, Message};
use tokio_util::sync::CancellationToken;

use crate::executor::Executor;
use crate::retries::{OVERLOADS_BEFORE_FALLBACK, Recovery, Retries, status};
use crate::sample::{Sampled, sample};
use crate::{Engine, EngineEvent, Outcome};

/// Continuations after a response cut by max_tokens.
const MAX_CUT_OFF_CONTINUATIONS: u32 = 3;

impl Engine {
    /// One model request with its recoveries. Returns how it ended and the executor
    /// holding the calls it started.
    pub(crate) async fn sample_recovering(
        &mut self,
        mut request: ModelRequest,
        out: &mut Outcome,
        abort: &CancellationToken,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> (Sampled, Executor) {
        let mut retries = Retries::new(self.config.max_retries, self.config.retry_base);
        loop {
            let mut exec = Executor::new(
                self.registry.clone(),
                self.gate.clone(),
                self.tool_context(),
                self.config.max_tool_concurrency,
            );
            let started = Instant::now();
            let shown = self.gate.hooks.as_deref().filter(|_| self.subagent.is_none());
            let display = crate::display_hooks::Display::new(shown, &format!("turn-{}", self.user_prompts().len()));
            let timeout = self.config.idle_timeout;
            let sampled = sample(self.model.as_ref(), request.clone(), &mut exec, abort, timeout, display, sink).await;
            out.api_duration += started.elapsed();
            let Sampled::Failed { partial, error } = sampled else { return (sampled, exec) };
            let mut step = retries.next(&error, self.config.fallback_model.is_some());
            if step == Recovery::RefreshCredentials {
                if self.model.refresh_credentials() {
                    exec.discard().await;
                    sink(EngineEvent::Notice("the API rejected the key; read it again and retrying once".into()));
                    continue;
                }
                step = retries.next(&error, self.config.fallback_model.is_some());
            }
            match step {
                Recovery::RefreshCredentials | Recovery::GiveUp => return (Sampled::Failed { partial, error }, exec),
                Recovery::Compact => {
                    exec.discard().await;
                    if let Err(e) = self.compact("auto", sink).await {
                        let error = ModelError::Request(format!("the prompt is too long and compaction failed: {e}"));
                        return (Sampled::Failed { partial: None, error }, exec);
                    }
                }
                Recovery::Retry { attempt, delay, fall_back } => {
                    // What the broken attempt started is cancelled and forgotten; its text
                    // was shown as it streamed and is not repeated.
                    exec.discard().await;
                    if fall_back && let Some(fallback) = self.config.fallback_model.take() {
                        sink(EngineEvent::Notice(format!(
                            "{} is overloaded ({OVERLOADS_BEFORE_FALLBACK} times in a row); switching to the \
                             fallback model {fallback}",
                            self.config.model
                        )));
                        self.config.model = fallback;
                        self.conversation.strip_thinking();
                    }
                    sink(EngineEvent::ApiRetry {
                        attempt,
                        max_retries: self.config.max_retries,
                        delay,
                        status: status(&error),
                        error: error.to_string(),
                    });
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {}
                        _ = abort.cancelled() => return (Sampled::Interrupted { partial: None }, exec),
                    }
                }
            }
            // The request again, from the conversation as it is now (compacted, or
            // without the thinking another model made).
            if matches!(step, Recovery::Compact | Recovery::Retry { fall_back: true, .. }) {
                request = match self.request() {
                    Ok(r) => r,
                    Err(e) => {
                        return (Sampled::Failed { partial: None, error: ModelError::Request(e.to_string()) }, exec);
                    }
                };
            }
        }
    }

    /// A response cut by `max_tokens` (with no tool call to run) goes on, up to three
    /// times, with a meta message asking the model to resume where it stopped.
    pub(crate) fn max_tokens_continuation(
        &self,
        message: &rein_protocol::AssistantMessage,
        count: &mut u32,
    ) -> Option<Message> {
        if message.stop_reason.as_deref() != Some("max_tokens") || *count >= MAX_CUT_OFF_CONTINUATIONS {
            return None;
        }
        *count += 1;
        Some(Message::user(vec![ContentBlock::text(
            "Your last response was cut off by the output token limit. Continue exactly where you left off, \
             without repeating anything and without apologising.",
        )]))
    }
}
