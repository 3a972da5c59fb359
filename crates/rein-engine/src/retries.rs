//! What a failed model request calls for, decided without doing it: [`Retries::next`]
//! reads the failure and what was tried already and names one [`Recovery`]. The turn
//! does what it says (`recovery.rs`), so the rules are tested here without a model.

use std::time::Duration;

use rein_model::ModelError;

/// Consecutive overloaded answers before switching to the fallback model.
pub(crate) const OVERLOADS_BEFORE_FALLBACK: u32 = 3;
/// Longest wait between retries.
const MAX_BACKOFF: Duration = Duration::from_secs(32);

/// Whether a failure is worth another try, and the HTTP status if there was one.
pub(crate) fn retryable(e: &ModelError) -> bool {
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

pub(crate) fn status(e: &ModelError) -> Option<u16> {
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

/// What to do about a failed request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Recovery {
    /// A 401: read the credentials again (`apiKeyHelper`) and send it once more.
    RefreshCredentials,
    /// The prompt is too long: compact the conversation (once a turn) and send it again.
    Compact,
    /// A transient failure: wait `delay` and send it again (`attempt` of the maximum);
    /// `fall_back` first to the fallback model after repeated overloads.
    Retry { attempt: u32, delay: Duration, fall_back: bool },
    /// Nothing more to try: the failure is the turn's.
    GiveUp,
}

/// What one request has tried so far.
#[derive(Debug)]
pub(crate) struct Retries {
    max: u32,
    base: Duration,
    attempt: u32,
    overloads: u32,
    compacted: bool,
    refreshed: bool,
}

impl Retries {
    pub(crate) fn new(max: u32, base: Duration) -> Self {
        Retries { max, base, attempt: 0, overloads: 0, compacted: false, refreshed: false }
    }

    /// The recovery `error` calls for; `has_fallback`: a fallback model is still there
    /// to switch to.
    pub(crate) fn next(&mut self, error: &ModelError, has_fallback: bool) -> Recovery {
        if status(error) == Some(401) && !std::mem::replace(&mut self.refreshed, true) {
            return Recovery::RefreshCredentials;
        }
        if prompt_too_long(error) && !std::mem::replace(&mut self.compacted, true) {
            return Recovery::Compact;
        }
        if !retryable(error) || self.attempt >= self.max {
            return Recovery::GiveUp;
        }
        self.overloads = if overloaded(error) { self.overloads + 1 } else { 0 };
        let fall_back = has_fallback && self.overloads >= OVERLOADS_BEFORE_FALLBACK;
        if fall_back {
            self.overloads = 0;
        }
        self.attempt += 1;
        Recovery::Retry {
            attempt: self.attempt,
            delay: backoff(self.attempt, self.base, retry_after(error)),
            fall_back,
        }
    }
}

#[cfg(test)]
#[path = "retries_tests.rs"]
mod tests;
