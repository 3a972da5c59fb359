//! Why a model request failed, typed, with what the recovery steps need to decide
//! (status, error type, `retry-after`).

use std::time::Duration;

/// Why a model request failed. Every variant renders as one readable line.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error(
        "no credentials: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or run `rein demo` for the offline scripted model)"
    )]
    NoCredentials,
    #[error("invalid ANTHROPIC_BASE_URL {url:?}: {reason}")]
    BadBaseUrl { url: String, reason: String },
    #[error("cannot reach the model at {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("API error {}{kind}: {message}", status.map(|s| format!("{s} ")).unwrap_or_default())]
    Api {
        /// `None` when the error arrived as an `error` event inside a 200 stream.
        status: Option<u16>,
        kind: String,
        message: String,
        retry_after: Option<Duration>,
    },
    #[error("HTTP {status} from the model endpoint: {body}")]
    Http { status: u16, body: String, retry_after: Option<Duration> },
    #[error("malformed response stream: {0}")]
    Protocol(String),
    #[error("the response stream ended before message_stop")]
    Incomplete,
    #[error("reading the response stream failed: {0}")]
    Stream(String),
    #[error("cannot build the request: {0}")]
    Request(String),
}
