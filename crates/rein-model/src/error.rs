//! Why a model request failed, typed, with what the recovery steps need to decide
//! (status, error type, `retry-after`).

use std::time::Duration;

/// Why a model request failed. Every variant renders as one readable line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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

/// How each API says the prompt does not fit the model's context window: the Messages
/// API (also on Vertex AI), Bedrock, OpenAI's two APIs and the servers that copy them
/// (vLLM, OpenRouter, DeepSeek, Groq, …), llama.cpp's server and Ollama.
const PROMPT_TOO_LONG: &[&str] = &[
    "prompt is too long",
    "input is too long",
    "context_length_exceeded",
    "maximum context length",
    "exceeds the context window",
    "exceeds the available context size",
    "exceed_context_size",
    "prompt too long",
];

impl ModelError {
    /// The request was refused because its prompt does not fit the context window (the
    /// cure is compaction, not a retry), in any provider's words.
    pub fn is_prompt_too_long(&self) -> bool {
        let said = match self {
            ModelError::Api { status, kind, message, .. } if status.is_none_or(|s| matches!(s, 400 | 413)) => {
                format!("{kind} {message}")
            }
            ModelError::Http { status: 400 | 413, body, .. } => body.clone(),
            _ => return false,
        };
        let said = said.to_ascii_lowercase();
        PROMPT_TOO_LONG.iter().any(|p| said.contains(p))
    }
}

/// The message of an error with its sources, on one line.
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(inner) = cur {
        let t = inner.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = inner.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api(status: Option<u16>, kind: &str, message: &str) -> ModelError {
        ModelError::Api { status, kind: kind.into(), message: message.into(), retry_after: None }
    }

    #[test]
    fn every_provider_s_context_overflow_is_recognised() {
        let overflows = [
            api(Some(400), "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum"),
            ModelError::Http {
                status: 400,
                body: r#"{"message":"Input is too long for requested model."}"#.into(),
                retry_after: None,
            },
            api(
                Some(400),
                "invalid_request_error",
                "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
            ),
            api(None, "context_length_exceeded", "Your input exceeds the context window of this model."),
            api(Some(400), "exceed_context_size_error", "the request exceeds the available context size"),
            ModelError::Http {
                status: 413,
                body: "prompt too long; exceeded max context length".into(),
                retry_after: None,
            },
        ];
        for e in &overflows {
            assert!(e.is_prompt_too_long(), "{e}");
        }
        let others = [
            api(Some(400), "invalid_request_error", "messages: text content blocks must be non-empty"),
            api(Some(429), "rate_limit_error", "prompt is too long for your rate limit"),
            api(Some(529), "overloaded_error", "Overloaded"),
            ModelError::Incomplete,
        ];
        for e in &others {
            assert!(!e.is_prompt_too_long(), "{e}");
        }
    }
}

/// A command-line value that is none of the choices (`--effort`, `--thinking`,
/// `--provider`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not {what}: {choices}")]
pub struct UnknownChoice {
    pub given: String,
    /// What was expected, with its article (`an effort`).
    pub what: &'static str,
    /// The choices, as a sentence lists them.
    pub choices: &'static str,
}
