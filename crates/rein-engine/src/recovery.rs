//! Recovery, each a named transition of the turn rather than an `if` in the loop:
//! transient API failures are retried with backoff (honouring `retry-after`), repeated
//! overloads switch to the fallback model, and a response cut by `max_tokens` goes on
//! with a meta message.

use std::time::{Duration, Instant};

use rein_model::{ModelError, ModelRequest};
use rein_protocol::{ContentBlock, Message};
use tokio_util::sync::CancellationToken;

use crate::executor::Executor;
use crate::sample::{Sampled, sample};
use crate::{Engine, EngineEvent, Outcome};

/// Consecutive overloaded answers before switching to the fallback model.
const OVERLOADS_BEFORE_FALLBACK: u32 = 3;
/// Longest wait between retries.
const MAX_BACKOFF: Duration = Duration::from_secs(32);
/// Continuations after a response cut by max_tokens.
const MAX_CUT_OFF_CONTINUATIONS: u32 = 3;

/// Whether a failure is worth another try, and the HTTP status if there was one.
fn retryable(e: &ModelError) -> bool {
    if e.is_prompt_too_long() {
        return false; // the same request would fail the same way
    }
    match e {
        ModelError::Api { status: Some(s), .. } | ModelError::Http { status: s, .. } => {
            matches!(s, 408 | 409 | 429 | 529) || (500..600).contains(s)
        }
        // An `error` event inside a 200 stream (overloaded, api_error).
        ModelError::Api { status: None, .. } => true,
        ModelError::Connect { .. } | ModelError::Stream(_) | ModelError::Incomplete => true,
        _ => false,
    }
}

fn prompt_too_long(e: &ModelError) -> bool {
    e.is_prompt_too_long()
}

fn status(e: &ModelError) -> Option<u16> {
    match e {
        ModelError::Api { status, .. } => *status,
        ModelError::Http { status, .. } => Some(*status),
        _ => None,
    }
}

fn overloaded(e: &ModelError) -> bool {
    matches!(e, ModelError::Api { kind, .. } if kind == "overloaded_error") || status(e) == Some(529)
}

fn retry_after(e: &ModelError) -> Option<Duration> {
    match e {
        ModelError::Api { retry_after, .. } | ModelError::Http { retry_after, .. } => *retry_after,
        _ => None,
    }
}

/// 500 ms × 2ⁿ (from the configured base), capped at 32 s, with ±20 % jitter; a
/// `retry-after` from the server wins.
fn backoff(attempt: u32, base: Duration, server: Option<Duration>) -> Duration {
    if let Some(s) = server {
        return s.min(Duration::from_secs(600));
    }
    let exp = base.saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1))).min(MAX_BACKOFF);
    exp.mul_f64(fastrand::f64().mul_add(0.4, 0.8))
}

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
        let mut attempt = 0;
        let mut overloads = 0;
        let mut reactive_compaction_done = false;
        let mut credentials_refreshed = false;
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
            // 401: one more try after reading the credentials again (apiKeyHelper).
            if status(&error) == Some(401) && !credentials_refreshed {
                credentials_refreshed = true;
                if self.model.refresh_credentials() {
                    exec.discard().await;
                    sink(EngineEvent::Notice("the API rejected the key; read it again and retrying once".into()));
                    continue;
                }
            }
            // Prompt too long: one reactive compaction per turn, then the request again.
            if prompt_too_long(&error) && !reactive_compaction_done {
                reactive_compaction_done = true;
                exec.discard().await;
                if let Err(e) = self.compact("auto", sink).await {
                    let error = ModelError::Request(format!("the prompt is too long and compaction failed: {e}"));
                    return (Sampled::Failed { partial: None, error }, exec);
                }
                request = match self.request() {
                    Ok(r) => r,
                    Err(e) => {
                        return (Sampled::Failed { partial: None, error: ModelError::Request(e.to_string()) }, exec);
                    }
                };
                continue;
            }
            if !retryable(&error) || attempt >= self.config.max_retries {
                return (Sampled::Failed { partial, error }, exec);
            }
            // What the broken attempt started is cancelled and forgotten; its text was
            // shown as it streamed and is not repeated.
            exec.discard().await;
            overloads = if overloaded(&error) { overloads + 1 } else { 0 };
            if overloads >= OVERLOADS_BEFORE_FALLBACK
                && let Some(fallback) = self.config.fallback_model.take()
            {
                sink(EngineEvent::Notice(format!(
                    "{} is overloaded ({overloads} times in a row); switching to the fallback model {fallback}",
                    self.config.model
                )));
                self.config.model = fallback;
                self.conversation.strip_thinking();
                request = match self.request() {
                    Ok(r) => r,
                    Err(e) => {
                        return (Sampled::Failed { partial: None, error: ModelError::Request(e.to_string()) }, exec);
                    }
                };
                overloads = 0;
            }
            attempt += 1;
            let delay = backoff(attempt, self.config.retry_base, retry_after(&error));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_caps_and_honours_retry_after() {
        let base = Duration::from_millis(500);
        let d1 = backoff(1, base, None);
        let d3 = backoff(3, base, None);
        assert!(d1 >= Duration::from_millis(400) && d1 <= Duration::from_millis(600), "{d1:?}");
        assert!(d3 >= Duration::from_millis(1600) && d3 <= Duration::from_millis(2400), "{d3:?}");
        assert!(backoff(20, base, None) <= Duration::from_secs(39));
        assert_eq!(backoff(1, base, Some(Duration::from_secs(7))), Duration::from_secs(7));
    }

    #[test]
    fn jitter_differs_between_retries_of_one_process() {
        let base = Duration::from_millis(500);
        let mut seen: Vec<Duration> = (0..16).map(|_| backoff(2, base, None)).collect();
        seen.sort();
        seen.dedup();
        assert!(seen.len() > 4, "the same delays again and again: {seen:?}");
    }

    #[test]
    fn what_is_retried() {
        let api = |status, kind: &str| ModelError::Api {
            status,
            kind: kind.into(),
            message: String::new(),
            retry_after: None,
        };
        assert!(retryable(&api(Some(529), "overloaded_error")));
        assert!(retryable(&api(Some(429), "rate_limit_error")));
        assert!(retryable(&api(None, "overloaded_error")));
        assert!(retryable(&ModelError::Incomplete));
        for s in [400, 401, 403, 404] {
            assert!(!retryable(&api(Some(s), "x")), "{s}");
        }
    }
}
