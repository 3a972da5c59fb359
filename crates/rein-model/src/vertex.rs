//! Claude on Google Vertex AI (`CLAUDE_CODE_USE_VERTEX=1`): the Messages API, posted to
//! the model's own `:streamRawPredict` URL, with the body's `model` moved into that URL and
//! `anthropic_version: vertex-2023-10-16` added; the response is the same event stream.
//! Requests carry a Google OAuth token from Application Default Credentials (a service
//! account file in `GOOGLE_APPLICATION_CREDENTIALS`, gcloud's login, or the metadata
//! server, through the `gcp_auth` crate), unless `CLAUDE_CODE_SKIP_VERTEX_AUTH` says a
//! gateway in between authenticates.

use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderValue};
use tokio::sync::OnceCell;

use crate::anthropic::{merged_betas, messages_events, opened_stream, post};
use crate::request::Host;
use crate::{Model, ModelError, ModelRequest, ModelStream};

/// The `anthropic_version` Vertex expects in the body.
pub const VERTEX_ANTHROPIC_VERSION: &str = "vertex-2023-10-16";
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// Where and as whom requests go.
#[derive(Debug, Clone)]
pub struct VertexConfig {
    /// Up to the version: `https://{region}-aiplatform.googleapis.com/v1` by default.
    pub base_url: String,
    pub project: String,
    pub region: String,
    /// A gateway authenticates: send no token.
    pub skip_auth: bool,
    /// Comma-separated `anthropic-beta` values, if any.
    pub beta: Option<String>,
}

impl VertexConfig {
    /// `ANTHROPIC_VERTEX_PROJECT_ID` (required), `CLOUD_ML_REGION` (default `us-east5`;
    /// `global` for the global endpoint), `ANTHROPIC_VERTEX_BASE_URL`,
    /// `CLAUDE_CODE_SKIP_VERTEX_AUTH`, `ANTHROPIC_BETAS`.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, ModelError> {
        let nonempty = |k: &str| var(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let project = nonempty("ANTHROPIC_VERTEX_PROJECT_ID").ok_or_else(|| {
            ModelError::Request(
                "CLAUDE_CODE_USE_VERTEX needs ANTHROPIC_VERTEX_PROJECT_ID (the Google Cloud project)".into(),
            )
        })?;
        let region = nonempty("CLOUD_ML_REGION").unwrap_or_else(|| "us-east5".into());
        let base_url = nonempty("ANTHROPIC_VERTEX_BASE_URL").unwrap_or_else(|| match region.as_str() {
            "global" => "https://aiplatform.googleapis.com/v1".into(),
            r => format!("https://{r}-aiplatform.googleapis.com/v1"),
        });
        let skip_auth = nonempty("CLAUDE_CODE_SKIP_VERTEX_AUTH").is_some_and(|v| !matches!(v.as_str(), "0" | "false"));
        Ok(VertexConfig { base_url, project, region, skip_auth, beta: nonempty("ANTHROPIC_BETAS") })
    }

    /// The streaming URL of `model`.
    pub fn url(&self, model: &str) -> String {
        format!(
            "{}/projects/{}/locations/{}/publishers/anthropic/models/{model}:streamRawPredict",
            self.base_url.trim_end_matches('/'),
            self.project,
            self.region
        )
    }
}

/// Streams responses from Vertex AI.
#[derive(Clone)]
pub struct VertexClient {
    http: reqwest::Client,
    config: Arc<VertexConfig>,
    /// Found on the first request (finding it may read files or ask the metadata server).
    tokens: Arc<OnceCell<Arc<dyn gcp_auth::TokenProvider>>>,
}

impl VertexClient {
    pub fn new(config: &VertexConfig) -> Result<Self, ModelError> {
        let probe = crate::http::endpoint(&config.base_url, &config.url("probe"))?;
        Ok(VertexClient {
            http: crate::http::client(&probe)?,
            config: Arc::new(config.clone()),
            tokens: Arc::new(OnceCell::new()),
        })
    }

    async fn token(&self) -> Result<String, ModelError> {
        let no_token = |e: gcp_auth::Error| {
            ModelError::Request(format!(
                "no Google credentials for Vertex AI ({e}); run `gcloud auth application-default login` or set \
                 GOOGLE_APPLICATION_CREDENTIALS"
            ))
        };
        let provider = self.tokens.get_or_try_init(gcp_auth::provider).await.map_err(no_token)?;
        let token = provider.token(&[SCOPE]).await.map_err(no_token)?;
        Ok(token.as_str().to_string())
    }

    async fn open(self, request: ModelRequest) -> Result<reqwest::Response, ModelError> {
        let body = request.body_for(Host::Vertex)?;
        let url = crate::http::endpoint(&self.config.base_url, &self.config.url(&request.model))?;
        let mut headers = HeaderMap::new();
        headers.insert(reqwest::header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(reqwest::header::ACCEPT, HeaderValue::from_static("text/event-stream"));
        let betas = merged_betas(self.config.beta.as_deref(), &request);
        if let (false, Ok(value)) = (betas.is_empty(), HeaderValue::from_str(&betas.join(","))) {
            headers.insert("anthropic-beta", value);
        }
        if !self.config.skip_auth {
            let value = HeaderValue::from_str(&format!("Bearer {}", self.token().await?))
                .map_err(|_| ModelError::Request("the Google token has invalid characters".into()))?;
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        post(&self.http, url, headers, body).await
    }
}

impl Model for VertexClient {
    fn stream(&self, request: ModelRequest) -> ModelStream {
        opened_stream(self.clone().open(request), messages_events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_follow_the_region_and_the_gateway() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        let c = VertexConfig::from_vars(vars(&[("ANTHROPIC_VERTEX_PROJECT_ID", "p1")])).unwrap();
        assert_eq!(
            c.url("claude-x@2025"),
            "https://us-east5-aiplatform.googleapis.com/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-x@2025:streamRawPredict"
        );
        assert!(!c.skip_auth);
        let g = VertexConfig::from_vars(vars(&[("ANTHROPIC_VERTEX_PROJECT_ID", "p"), ("CLOUD_ML_REGION", "global")]));
        assert!(g.unwrap().url("m").starts_with("https://aiplatform.googleapis.com/v1/projects/p/locations/global/"));
        let gw = VertexConfig::from_vars(vars(&[
            ("ANTHROPIC_VERTEX_PROJECT_ID", "p"),
            ("ANTHROPIC_VERTEX_BASE_URL", "http://gw/v1/"),
            ("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1"),
        ]))
        .unwrap();
        assert!(gw.skip_auth && gw.url("m").starts_with("http://gw/v1/projects/p/locations/us-east5/"));
        let missing = VertexConfig::from_vars(|_| None).unwrap_err().to_string();
        assert!(missing.contains("ANTHROPIC_VERTEX_PROJECT_ID"), "{missing}");
    }
}
