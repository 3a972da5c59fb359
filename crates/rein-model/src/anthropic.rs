//! The Anthropic Messages API streaming client.

use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{HeaderMap, HeaderValue};

pub(crate) use crate::error::error_chain;
use crate::sse_body::{Wire, model_events};
use crate::{Assembler, Model, ModelError, ModelEvent, ModelRequest, ModelStream};

/// The `anthropic-version` header rein sends.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// Error bodies longer than this are cut in messages.
const MAX_ERROR_BODY: usize = 2_000;

/// How requests are authenticated.
#[derive(Clone)]
pub enum Auth {
    /// `x-api-key: KEY` (`ANTHROPIC_API_KEY`).
    ApiKey(String),
    /// `Authorization: Bearer TOKEN` (`ANTHROPIC_AUTH_TOKEN`).
    Bearer(String),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print secrets.
        f.write_str(match self {
            Auth::ApiKey(_) => "Auth::ApiKey(…)",
            Auth::Bearer(_) => "Auth::Bearer(…)",
        })
    }
}

/// Endpoint and credentials.
#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    pub base_url: String,
    pub auth: Auth,
    /// Comma-separated `anthropic-beta` values, if any.
    pub beta: Option<String>,
    /// `apiKeyHelper`: a shell command that prints the API key (run again after a 401).
    pub key_helper: Option<String>,
    /// `ANTHROPIC_CUSTOM_HEADERS`: one `Name: value` per line, sent with every request.
    pub custom_headers: Vec<(String, String)>,
}

/// `Name: value` lines (blank and malformed lines left out).
pub(crate) fn custom_headers(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .filter(|(n, _)| !n.is_empty() && !n.contains(char::is_whitespace))
        .collect()
}

impl AnthropicConfig {
    /// Read `ANTHROPIC_API_KEY` / `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_BASE_URL` and
    /// `ANTHROPIC_BETAS` through `var` (the process environment in the binary).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ModelError> {
        Self::from_vars_or_helper(var, None)
    }

    /// As [`from_vars`](Self::from_vars); without a key in the environment, the
    /// `apiKeyHelper` command (if any) provides it.
    pub fn from_vars_or_helper(
        var: impl Fn(&str) -> Option<String>,
        key_helper: Option<&str>,
    ) -> Result<Self, ModelError> {
        let nonempty = |k: &str| var(k).filter(|v| !v.trim().is_empty());
        let auth = match (nonempty("ANTHROPIC_API_KEY"), nonempty("ANTHROPIC_AUTH_TOKEN"), key_helper) {
            (Some(key), _, _) => Auth::ApiKey(key),
            (None, Some(token), _) => Auth::Bearer(token),
            (None, None, Some(helper)) => Auth::ApiKey(run_key_helper(helper)?),
            (None, None, None) => return Err(ModelError::NoCredentials),
        };
        let helper_in_use = matches!(auth, Auth::ApiKey(_)) && nonempty("ANTHROPIC_API_KEY").is_none();
        Ok(AnthropicConfig {
            base_url: nonempty("ANTHROPIC_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_string()),
            auth,
            beta: nonempty("ANTHROPIC_BETAS"),
            key_helper: key_helper.filter(|_| helper_in_use).map(str::to_string),
            custom_headers: nonempty("ANTHROPIC_CUSTOM_HEADERS").map(|t| custom_headers(&t)).unwrap_or_default(),
        })
    }

    fn endpoint(&self) -> String {
        format!("{}/v1/messages", self.base_url.trim_end_matches('/'))
    }
}

/// Run an `apiKeyHelper` command; its trimmed stdout is the key.
fn run_key_helper(helper: &str) -> Result<String, ModelError> {
    let out = rein_process::env::for_child(&mut std::process::Command::new("sh"))
        .arg("-c")
        .arg(helper)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| ModelError::Request(format!("apiKeyHelper `{helper}` could not run: {e}")))?;
    let key = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || key.is_empty() {
        let why = String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("no key printed").to_string();
        return Err(ModelError::Request(format!("apiKeyHelper `{helper}` failed: {why}")));
    }
    Ok(key)
}

/// Streams responses from `POST {base}/v1/messages`.
#[derive(Clone)]
pub struct AnthropicClient {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    headers: std::sync::Arc<std::sync::RwLock<HeaderMap>>,
    key_helper: Option<String>,
}

impl AnthropicClient {
    pub fn new(config: &AnthropicConfig) -> Result<Self, ModelError> {
        let endpoint = crate::http::endpoint(&config.base_url, &config.endpoint())?;
        let mut headers = crate::http::json_headers("text/event-stream");
        let header = |v: &str| {
            HeaderValue::from_str(v).map_err(|_| ModelError::Request("a header value has invalid characters".into()))
        };
        match &config.auth {
            Auth::ApiKey(k) => headers.insert("x-api-key", header(k)?),
            Auth::Bearer(t) => headers.insert(reqwest::header::AUTHORIZATION, header(&format!("Bearer {t}"))?),
        };
        headers.insert("anthropic-version", HeaderValue::from_static(ANTHROPIC_VERSION));
        if let Some(beta) = &config.beta {
            headers.insert("anthropic-beta", header(beta)?);
        }
        // The user's own headers; the credentials and the API version stay rein's.
        for (name, value) in &config.custom_headers {
            let protected = ["x-api-key", "authorization", "anthropic-version"];
            if protected.contains(&name.to_ascii_lowercase().as_str()) {
                continue;
            }
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| ModelError::Request(format!("ANTHROPIC_CUSTOM_HEADERS: `{name}` is not a header name")))?;
            headers.insert(name, header(value)?);
        }
        let http = crate::http::client(&endpoint)?;
        Ok(AnthropicClient {
            http,
            endpoint,
            headers: std::sync::Arc::new(std::sync::RwLock::new(headers)),
            key_helper: config.key_helper.clone(),
        })
    }

    async fn open(self, request: ModelRequest) -> Result<reqwest::Response, ModelError> {
        let body = request.to_body()?;
        let mut headers = self.headers.read().map(|h| h.clone()).unwrap_or_default();
        let configured = headers.get("anthropic-beta").and_then(|v| v.to_str().ok()).map(str::to_string);
        let all = merged_betas(configured.as_deref(), &request);
        if let (false, Ok(value)) = (all.is_empty(), HeaderValue::from_str(&all.join(","))) {
            headers.insert("anthropic-beta", value);
        }
        post(&self.http, self.endpoint.clone(), headers, body).await
    }
}

/// POST `body` to `url`: the response when it is a success, else the error it says.
pub(crate) async fn post(
    http: &reqwest::Client,
    url: reqwest::Url,
    headers: HeaderMap,
    body: Vec<u8>,
) -> Result<reqwest::Response, ModelError> {
    let response = http
        .post(url.clone())
        .headers(headers)
        .body(body)
        .send()
        .await
        .map_err(|e| ModelError::Connect { url: url.to_string(), reason: error_chain(&e) })?;
    if response.status().is_success() {
        return Ok(response);
    }
    Err(error_response(response).await)
}

/// The configured betas (comma-separated) followed by those `request` needs, once each.
pub(crate) fn merged_betas<'a>(configured: Option<&'a str>, request: &ModelRequest) -> Vec<&'a str> {
    let mut all: Vec<&str> = configured.into_iter().flat_map(|b| b.split(',')).map(str::trim).collect();
    for beta in request.betas() {
        if !all.contains(&beta) {
            all.push(beta);
        }
    }
    all.retain(|b| !b.is_empty());
    all
}

/// A model stream: the response `opened` yields, read by `events`, or its error.
pub(crate) fn opened_stream(
    opened: impl std::future::Future<Output = Result<reqwest::Response, ModelError>> + Send + 'static,
    events: fn(reqwest::Response) -> ModelStream,
) -> ModelStream {
    Box::pin(futures::stream::once(opened).flat_map(move |result| -> ModelStream {
        match result {
            Ok(response) => events(response),
            Err(e) => Box::pin(futures::stream::iter([Err(e)])),
        }
    }))
}

/// A failed response as one error, with its `retry-after`.
pub(crate) async fn error_response(response: reqwest::Response) -> ModelError {
    let status = response.status();
    let retry_after = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64);
    let text = response.text().await.unwrap_or_default();
    http_error(status.as_u16(), &text, retry_after)
}

/// An HTTP error status turned into one readable error, using the API's error JSON when
/// the body is one.
fn http_error(status: u16, body: &str, retry_after: Option<Duration>) -> ModelError {
    #[derive(serde::Deserialize)]
    struct ErrorBody {
        error: rein_protocol::ApiError,
    }
    match serde_json::from_str::<ErrorBody>(body) {
        Ok(b) => ModelError::Api { status: Some(status), kind: b.error.kind, message: b.error.message, retry_after },
        Err(_) => {
            let mut body = body.trim().replace(['\n', '\r'], " ");
            if body.len() > MAX_ERROR_BODY {
                let cut = (0..=MAX_ERROR_BODY).rev().find(|i| body.is_char_boundary(*i)).unwrap_or(0);
                body.truncate(cut);
                body.push('…');
            }
            if body.is_empty() {
                body = "(empty body)".into();
            }
            ModelError::Http { status, body, retry_after }
        }
    }
}

impl Model for AnthropicClient {
    fn refresh_credentials(&self) -> bool {
        let Some(helper) = &self.key_helper else { return false };
        let Ok(key) = run_key_helper(helper) else { return false };
        let Ok(value) = HeaderValue::from_str(&key) else { return false };
        match self.headers.write() {
            Ok(mut h) => h.insert("x-api-key", value.clone()) != Some(value),
            Err(_) => false,
        }
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        opened_stream(self.clone().open(request), messages_events)
    }
}

/// A Messages API response's model events.
pub(crate) fn messages_events(response: reqwest::Response) -> ModelStream {
    Box::pin(model_events(response, MessagesWire))
}

/// The Messages API's events go to the assembler as they are.
pub(crate) struct MessagesWire;

impl Wire for MessagesWire {
    fn event(&mut self, assembler: &mut Assembler, name: &str, data: &str) -> Result<Vec<ModelEvent>, ModelError> {
        assembler.on_sse(name, data)
    }

    fn end(&mut self, assembler: &mut Assembler) -> Result<Vec<ModelEvent>, ModelError> {
        Err(assembler.take_error().unwrap_or(ModelError::Incomplete))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_wins_over_token_and_empty_means_unset() {
        let vars = |k: &str| match k {
            "ANTHROPIC_API_KEY" => Some(String::new()),
            "ANTHROPIC_AUTH_TOKEN" => Some("tok".into()),
            _ => None,
        };
        let c = AnthropicConfig::from_vars(vars).unwrap();
        assert!(matches!(c.auth, Auth::Bearer(ref t) if t == "tok"));
        assert_eq!(c.endpoint(), "https://api.anthropic.com/v1/messages");
        assert!(matches!(AnthropicConfig::from_vars(|_| None), Err(ModelError::NoCredentials)));
    }

    #[test]
    fn error_bodies_become_one_line() {
        let e = http_error(
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
            None,
        );
        assert_eq!(e.to_string(), "API error 401 authentication_error: invalid x-api-key");
        let e = http_error(502, "<html>\nBad gateway\n</html>", None);
        assert_eq!(e.to_string(), "HTTP 502 from the model endpoint: <html> Bad gateway </html>");
    }
}
