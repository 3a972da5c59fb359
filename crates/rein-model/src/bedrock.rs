//! Claude on Amazon Bedrock (`CLAUDE_CODE_USE_BEDROCK=1`): the Messages API posted to
//! `/model/{id}/invoke-with-response-stream`, the body without `model` and `stream`, with
//! `anthropic_version: bedrock-2023-05-31` and the betas as `anthropic_beta`. Requests are
//! signed with SigV4 (`aws-sigv4`) from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` /
//! `AWS_SESSION_TOKEN` or else from the AWS credential chain (`aws-config`: `AWS_PROFILE`
//! and `~/.aws`, SSO, web identity, container and instance roles), or carry a Bedrock API
//! key (`AWS_BEARER_TOKEN_BEDROCK`), or nothing behind a gateway
//! (`CLAUDE_CODE_SKIP_BEDROCK_AUTH`). The answer is AWS's
//! binary event stream (decoded by `aws-smithy-eventstream`): each `chunk` carries one
//! Messages event, base64-encoded; an `exception` frame is an error the recovery steps
//! know (throttling is a rate limit, a stream or service error is retried).

use std::sync::Arc;
use std::time::SystemTime;

use aws_credential_types::Credentials;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
use base64::Engine as _;
use bytes::{Buf, BytesMut};
use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue};
use tokio::sync::OnceCell;

use crate::anthropic::{MessagesWire, error_chain, merged_betas, opened_stream, post};
use crate::request::Host;
use crate::sse_body::{EventStream, events_through};
use crate::{Model, ModelError, ModelRequest, ModelStream};

pub use crate::request::BEDROCK_ANTHROPIC_VERSION;

/// How requests are authenticated.
#[derive(Clone)]
pub enum BedrockAuth {
    /// SigV4 with these keys (and session token).
    Keys { access_key: String, secret_key: String, session_token: Option<String> },
    /// A Bedrock API key: `Authorization: Bearer`.
    Bearer(String),
    /// SigV4 with what the AWS credential chain finds (profiles, SSO, roles).
    Chain,
    /// A gateway authenticates.
    Skip,
}

impl std::fmt::Debug for BedrockAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print secrets.
        f.write_str(match self {
            BedrockAuth::Keys { .. } => "BedrockAuth::Keys(…)",
            BedrockAuth::Bearer(_) => "BedrockAuth::Bearer(…)",
            BedrockAuth::Chain => "BedrockAuth::Chain",
            BedrockAuth::Skip => "BedrockAuth::Skip",
        })
    }
}

/// Where and as whom requests go.
#[derive(Debug, Clone)]
pub struct BedrockConfig {
    pub base_url: String,
    pub region: String,
    pub auth: BedrockAuth,
    /// Comma-separated betas, if any.
    pub beta: Option<String>,
}

impl BedrockConfig {
    /// `AWS_REGION` (else `AWS_DEFAULT_REGION`, else `us-east-1`),
    /// `ANTHROPIC_BEDROCK_BASE_URL`, `CLAUDE_CODE_SKIP_BEDROCK_AUTH`,
    /// `AWS_BEARER_TOKEN_BEDROCK`, the `AWS_*` keys, `ANTHROPIC_BETAS`.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ModelError> {
        let nonempty = |k: &str| var(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let region = crate::http::region(
            "AWS_REGION",
            nonempty("AWS_REGION").or_else(|| nonempty("AWS_DEFAULT_REGION")).unwrap_or("us-east-1".into()),
        )?;
        let base_url = nonempty("ANTHROPIC_BEDROCK_BASE_URL")
            .unwrap_or_else(|| format!("https://bedrock-runtime.{region}.amazonaws.com"));
        let skip = crate::http::switched_on(var("CLAUDE_CODE_SKIP_BEDROCK_AUTH"));
        let auth = match (skip, nonempty("AWS_BEARER_TOKEN_BEDROCK"), nonempty("AWS_ACCESS_KEY_ID")) {
            (true, _, _) => BedrockAuth::Skip,
            (false, Some(token), _) => BedrockAuth::Bearer(token),
            (false, None, Some(access_key)) => BedrockAuth::Keys {
                access_key,
                secret_key: nonempty("AWS_SECRET_ACCESS_KEY").ok_or_else(|| {
                    ModelError::Request("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not".into())
                })?,
                session_token: nonempty("AWS_SESSION_TOKEN"),
            },
            (false, None, None) => BedrockAuth::Chain,
        };
        Ok(BedrockConfig { base_url, region, auth, beta: nonempty("ANTHROPIC_BETAS") })
    }

    /// The streaming URL of `model` (its id percent-encoded: ids hold `:`).
    pub fn url(&self, model: &str) -> String {
        let id: String = model
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
                other => format!("%{other:02X}"),
            })
            .collect();
        format!("{}/model/{id}/invoke-with-response-stream", self.base_url.trim_end_matches('/'))
    }
}

/// Streams responses from Bedrock.
#[derive(Clone)]
pub struct BedrockClient {
    http: reqwest::Client,
    config: Arc<BedrockConfig>,
    /// The credential chain, set up on the first request that needs it.
    chain: Arc<OnceCell<Option<SharedCredentialsProvider>>>,
    /// What the chain last gave, reused until shortly before it expires (the chain
    /// itself may ask SSO, STS or the instance for them).
    cached: Arc<std::sync::Mutex<Option<Credentials>>>,
}

/// Chain credentials are fetched again this long before they expire.
const REFRESH_BEFORE_EXPIRY: std::time::Duration = std::time::Duration::from_secs(300);

impl BedrockClient {
    pub fn new(config: &BedrockConfig) -> Result<Self, ModelError> {
        let probe = crate::http::endpoint(&config.base_url, &config.url("probe"))?;
        Ok(BedrockClient {
            http: crate::http::client(&probe)?,
            config: Arc::new(config.clone()),
            chain: Arc::new(OnceCell::new()),
            cached: Arc::new(std::sync::Mutex::new(None)),
        })
    }

    /// Credentials from the AWS chain (cached and refreshed by it).
    async fn chain_credentials(&self) -> Result<Credentials, ModelError> {
        let fresh = |c: &Credentials| {
            c.expiry()
                .is_none_or(|at| at.duration_since(SystemTime::now()).is_ok_and(|left| left > REFRESH_BEFORE_EXPIRY))
        };
        if let Some(c) = self.cached.lock().ok().and_then(|c| c.clone()).filter(fresh) {
            return Ok(c);
        }
        let region = self.config.region.clone();
        let provider = self
            .chain
            .get_or_init(|| async move {
                let config = aws_config::defaults(aws_config::BehaviorVersion::latest())
                    .region(aws_config::Region::new(region))
                    .load()
                    .await;
                config.credentials_provider()
            })
            .await;
        let missing = |why: String| {
            ModelError::Request(format!(
                "no AWS credentials for Bedrock ({why}): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and \
                 AWS_SESSION_TOKEN), AWS_PROFILE, or a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK"
            ))
        };
        let provider = provider.as_ref().ok_or_else(|| missing("no credential chain".into()))?;
        let credentials = provider.provide_credentials().await.map_err(|e| missing(error_chain(&e)))?;
        if let Ok(mut cached) = self.cached.lock() {
            *cached = Some(credentials.clone());
        }
        Ok(credentials)
    }

    async fn open(self, request: ModelRequest) -> Result<reqwest::Response, ModelError> {
        let betas = merged_betas(self.config.beta.as_deref(), &request);
        let body = request.body_for(Host::Bedrock { betas: &betas })?;
        let url_text = self.config.url(&request.model);
        let url = crate::http::endpoint(&self.config.base_url, &url_text)?;
        let mut headers = crate::http::json_headers("application/vnd.amazon.eventstream");
        match &self.config.auth {
            BedrockAuth::Skip => {}
            BedrockAuth::Bearer(token) => {
                headers.insert(reqwest::header::AUTHORIZATION, crate::http::bearer(token, "AWS_BEARER_TOKEN_BEDROCK")?);
            }
            BedrockAuth::Keys { .. } | BedrockAuth::Chain => {
                let credentials = match &self.config.auth {
                    BedrockAuth::Keys { access_key, secret_key, session_token } => {
                        Credentials::new(access_key, secret_key, session_token.clone(), None, "environment")
                    }
                    _ => self.chain_credentials().await?,
                };
                for (name, value) in sign(&url_text, &body, &self.config.region, credentials)? {
                    let name = HeaderName::from_bytes(name.as_bytes());
                    let value = HeaderValue::from_str(&value);
                    if let (Ok(name), Ok(value)) = (name, value) {
                        headers.insert(name, value);
                    }
                }
            }
        }
        post(&self.http, url, headers, body).await
    }
}

/// The SigV4 headers (`authorization`, `x-amz-date`, `x-amz-security-token`) of a POST.
fn sign(url: &str, body: &[u8], region: &str, credentials: Credentials) -> Result<Vec<(String, String)>, ModelError> {
    use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
    let failed = |e: &dyn std::fmt::Display| ModelError::Request(format!("cannot sign the Bedrock request: {e}"));
    let identity = credentials.into();
    let params = aws_sigv4::sign::v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name("bedrock")
        .time(SystemTime::now())
        .settings(SigningSettings::default())
        .build()
        .map_err(|e| failed(&e))?
        .into();
    let headers = [("content-type", "application/json"), ("accept", "application/vnd.amazon.eventstream")];
    let request =
        SignableRequest::new("POST", url, headers.into_iter(), SignableBody::Bytes(body)).map_err(|e| failed(&e))?;
    let (instructions, _) = sign(request, &params).map_err(|e| failed(&e))?.into_parts();
    Ok(instructions.headers().map(|(k, v)| (k.to_string(), v.to_string())).collect())
}

/// The Messages events inside a Bedrock event-stream body, as `(type, json)`.
fn bedrock_events(response: reqwest::Response) -> EventStream {
    struct State {
        body: std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
        buffer: BytesMut,
        decoder: MessageFrameDecoder,
    }
    let state = State { body: Box::pin(response.bytes_stream()), buffer: BytesMut::new(), decoder: Default::default() };
    Box::pin(futures::stream::unfold(Some(state), |st| async move {
        let mut st = st?;
        loop {
            match st.decoder.decode_frame(&mut st.buffer) {
                Ok(DecodedFrame::Complete(message)) => match frame_event(&message) {
                    Ok(Some(event)) => return Some((Ok(event), Some(st))),
                    Ok(None) => continue,
                    Err(e) => return Some((Err(e), None)),
                },
                Ok(DecodedFrame::Incomplete) => {}
                Err(e) => return Some((Err(ModelError::Protocol(format!("bad event-stream frame: {e}"))), None)),
            }
            match st.body.next().await {
                Some(Ok(bytes)) => st.buffer.extend_from_slice(&bytes),
                Some(Err(e)) => return Some((Err(ModelError::Stream(error_chain(&e))), None)),
                None if st.buffer.has_remaining() => {
                    return Some((Err(ModelError::Stream("the body ended inside an event-stream frame".into())), None));
                }
                None => return None,
            }
        }
    }))
}

/// One frame: a `chunk`'s Messages event, nothing for other events, an error for an
/// exception.
fn frame_event(message: &aws_smithy_types::event_stream::Message) -> Result<Option<(String, String)>, ModelError> {
    let header = |name: &str| {
        message
            .headers()
            .iter()
            .find(|h| h.name().as_str() == name)
            .and_then(|h| h.value().as_string().ok())
            .map(|s| s.as_str().to_string())
    };
    let payload = String::from_utf8_lossy(message.payload()).into_owned();
    match header(":message-type").as_deref() {
        Some("exception") | Some("error") => {
            let exception = header(":exception-type").or_else(|| header(":error-code")).unwrap_or_default();
            let text = serde_json::from_str::<serde_json::Value>(&payload)
                .ok()
                .and_then(|v| v.get("message").and_then(|m| m.as_str()).map(str::to_string))
                .unwrap_or(payload);
            let kind = match exception.as_str() {
                "throttlingException" => "rate_limit_error",
                "serviceUnavailableException" | "modelStreamErrorException" | "internalServerException" => {
                    "overloaded_error"
                }
                "validationException" => "invalid_request_error",
                _ => "api_error",
            };
            Err(ModelError::Api {
                status: None,
                kind: kind.into(),
                message: format!("{exception}: {text}"),
                retry_after: None,
            })
        }
        _ if header(":event-type").as_deref() == Some("chunk") => {
            #[derive(serde::Deserialize)]
            struct Chunk {
                bytes: String,
            }
            let chunk: Chunk = serde_json::from_str(&payload)
                .map_err(|e| ModelError::Protocol(format!("a Bedrock chunk is not {{\"bytes\": …}}: {e}")))?;
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(chunk.bytes.as_bytes())
                .map_err(|e| ModelError::Protocol(format!("a Bedrock chunk is not base64: {e}")))?;
            let json = String::from_utf8(decoded).map_err(|e| ModelError::Protocol(e.to_string()))?;
            #[derive(serde::Deserialize)]
            struct Typed {
                #[serde(rename = "type")]
                kind: String,
            }
            let typed: Typed = serde_json::from_str(&json)
                .map_err(|e| ModelError::Protocol(format!("a Bedrock chunk holds no Messages event: {e}")))?;
            Ok(Some((typed.kind, json)))
        }
        _ => Ok(None),
    }
}

impl Model for BedrockClient {
    fn stream(&self, request: ModelRequest) -> ModelStream {
        opened_stream(self.clone().open(request), |response| {
            Box::pin(events_through(bedrock_events(response), MessagesWire))
        })
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_region_that_would_change_the_host_is_refused() {
        for bad in ["evil.example#", "evil.example/x?", "us-east-1.evil.example"] {
            let vars = |k: &str| (k == "AWS_REGION").then(|| bad.to_string());
            assert!(BedrockConfig::from_vars(vars).is_err(), "{bad}");
        }
        let fine = |k: &str| (k == "AWS_REGION").then(|| "eu-west-1".to_string());
        assert!(BedrockConfig::from_vars(fine).is_ok_and(|c| c.base_url.contains("bedrock-runtime.eu-west-1.")));
    }

    use super::*;

    fn decode(frame: &[u8]) -> aws_smithy_types::event_stream::Message {
        match MessageFrameDecoder::new().decode_frame(&mut BytesMut::from(frame)).unwrap() {
            DecodedFrame::Complete(m) => m,
            DecodedFrame::Incomplete => panic!("incomplete"),
        }
    }

    #[test]
    fn chunks_carry_messages_events_and_exceptions_become_errors_recovery_knows() {
        let chunk = rein_testkit::bedrock::chunk(r#"{"type":"message_stop"}"#);
        assert_eq!(
            frame_event(&decode(&chunk)).unwrap(),
            Some(("message_stop".into(), r#"{"type":"message_stop"}"#.into()))
        );
        let throttled = rein_testkit::bedrock::exception("throttlingException", "Too many requests");
        match frame_event(&decode(&throttled)) {
            Err(ModelError::Api { kind, message, .. }) => {
                assert_eq!(kind, "rate_limit_error");
                assert!(message.contains("Too many requests"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let mut corrupt = chunk;
        let last = corrupt.len() - 1;
        corrupt[last] ^= 1;
        assert!(MessageFrameDecoder::new().decode_frame(&mut BytesMut::from(&corrupt[..])).is_err(), "CRC checked");
    }

    #[test]
    fn model_ids_are_percent_encoded() {
        let c = BedrockConfig::from_vars(|k| (k == "AWS_BEARER_TOKEN_BEDROCK").then(|| "t".to_string())).unwrap();
        assert_eq!(
            c.url("us.anthropic.claude-opus-4-1-20250805-v1:0"),
            "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-opus-4-1-20250805-v1%3A0/invoke-with-response-stream"
        );
    }
}
