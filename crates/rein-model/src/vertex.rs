//! Claude on Google Vertex AI (`CLAUDE_CODE_USE_VERTEX=1`): the Messages API, posted to
//! the model's own `:streamRawPredict` URL, with the body's `model` moved into that URL and
//! `anthropic_version: vertex-2023-10-16` added; the response is the same event stream.
//! Requests carry a Google OAuth token from Application Default Credentials (a service
//! account file in `GOOGLE_APPLICATION_CREDENTIALS`, gcloud's login, or the metadata
//! server, through the `gcp_auth` crate), unless `CLAUDE_CODE_SKIP_VERTEX_AUTH` says a
//! gateway in between authenticates. A model whose `VERTEX_REGION_CLAUDE_*` variable
//! (Claude Code's names) is set goes to that region instead of `CLOUD_ML_REGION`.

use std::collections::BTreeMap;
use std::sync::Arc;

use reqwest::header::HeaderValue;
use tokio::sync::OnceCell;

use crate::anthropic::{merged_betas, messages_events, opened_stream, post};
use crate::request::Host;
use crate::{Model, ModelError, ModelRequest, ModelStream};

pub use crate::request::VERTEX_ANTHROPIC_VERSION;
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";

/// The prefix of the per-model region variables.
pub const MODEL_REGION_PREFIX: &str = "VERTEX_REGION_CLAUDE_";

/// Where and as whom requests go.
#[derive(Debug, Clone)]
pub struct VertexConfig {
    /// A gateway's URL up to the version (`ANTHROPIC_VERTEX_BASE_URL`); without one each
    /// region's own endpoint, `https://{region}-aiplatform.googleapis.com/v1`.
    pub gateway: Option<String>,
    pub project: String,
    pub region: String,
    /// Per-model regions, by variable name (`VERTEX_REGION_CLAUDE_4_5_SONNET` → `us-east5`).
    pub model_regions: BTreeMap<String, String>,
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
        let region =
            crate::http::region("CLOUD_ML_REGION", nonempty("CLOUD_ML_REGION").unwrap_or_else(|| "us-east5".into()))?;
        let skip_auth = crate::http::switched_on(var("CLAUDE_CODE_SKIP_VERTEX_AUTH"));
        Ok(VertexConfig {
            gateway: nonempty("ANTHROPIC_VERTEX_BASE_URL"),
            project,
            region,
            model_regions: BTreeMap::new(),
            skip_auth,
            beta: nonempty("ANTHROPIC_BETAS"),
        })
    }

    /// With the per-model regions among `vars` (names starting `VERTEX_REGION_CLAUDE_`,
    /// values not empty); other names are ignored.
    pub fn with_model_regions(mut self, vars: impl IntoIterator<Item = (String, String)>) -> Result<Self, ModelError> {
        for (k, v) in vars {
            let v = v.trim().to_string();
            if k.starts_with(MODEL_REGION_PREFIX) && !v.is_empty() {
                let v = crate::http::region(&k, v)?;
                self.model_regions.insert(k, v);
            }
        }
        Ok(self)
    }

    /// The region `model` is served from: its own variable's, else `CLOUD_ML_REGION`'s.
    pub fn region_for(&self, model: &str) -> &str {
        region_var(model).and_then(|name| self.model_regions.get(&name)).map_or(self.region.as_str(), String::as_str)
    }

    /// The streaming URL of `model`.
    pub fn url(&self, model: &str) -> String {
        let region = self.region_for(model);
        let base = match (&self.gateway, region) {
            (Some(gateway), _) => gateway.trim_end_matches('/').to_string(),
            (None, "global") => "https://aiplatform.googleapis.com/v1".into(),
            (None, r) => format!("https://{r}-aiplatform.googleapis.com/v1"),
        };
        format!(
            "{base}/projects/{}/locations/{region}/publishers/anthropic/models/{model}:streamRawPredict",
            self.project
        )
    }
}

/// The variable Claude Code reads a model's Vertex AI region from: the version's numbers
/// and the family (`claude-sonnet-4-5@20250929` → `VERTEX_REGION_CLAUDE_4_5_SONNET`,
/// `claude-3-7-sonnet` → `…_3_7_SONNET`, `claude-opus-4` → `…_4_0_OPUS`), except Haiku
/// 4.5's, `VERTEX_REGION_CLAUDE_HAIKU_4_5`. `None` for ids that are not Claude's.
pub fn region_var(model: &str) -> Option<String> {
    let id = model.split('@').next()?.trim_end_matches("[1m]").to_ascii_lowercase();
    let rest = id.strip_prefix("claude-")?;
    let mut family = None;
    let mut numbers: Vec<&str> = Vec::new();
    for part in rest.split('-') {
        match part {
            "opus" | "sonnet" | "haiku" => family = Some(part.to_ascii_uppercase()),
            p if (1..=2).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()) => numbers.push(p),
            _ => {} // a date, `v2`, `latest`
        }
    }
    let family = family?;
    if numbers.is_empty() {
        return None;
    }
    if family == "HAIKU" && numbers == ["4", "5"] {
        return Some(format!("{MODEL_REGION_PREFIX}HAIKU_4_5"));
    }
    if numbers == ["4"] {
        numbers.push("0");
    }
    Some(format!("{MODEL_REGION_PREFIX}{}_{family}", numbers.join("_")))
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
        let probe = crate::http::endpoint(config.gateway.as_deref().unwrap_or_default(), &config.url("probe"))?;
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
        let gateway = self.config.gateway.as_deref().unwrap_or_default();
        let url = crate::http::endpoint(gateway, &self.config.url(&request.model))?;
        let mut headers = crate::http::json_headers("text/event-stream");
        let betas = merged_betas(self.config.beta.as_deref(), &request);
        if let (false, Ok(value)) = (betas.is_empty(), HeaderValue::from_str(&betas.join(","))) {
            headers.insert("anthropic-beta", value);
        }
        if !self.config.skip_auth {
            headers
                .insert(reqwest::header::AUTHORIZATION, crate::http::bearer(&self.token().await?, "the Google token")?);
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
        let overridden =
            VertexConfig::from_vars(vars(&[("ANTHROPIC_VERTEX_PROJECT_ID", "p"), ("CLOUD_ML_REGION", "global")]))
                .unwrap()
                .with_model_regions([
                    ("VERTEX_REGION_CLAUDE_4_5_SONNET".to_string(), "europe-west4".to_string()),
                    ("VERTEX_REGION_CLAUDE_HAIKU_4_5".into(), " ".into()),
                    ("OTHER".into(), "asia-east1".into()),
                ])
                .unwrap();
        assert_eq!(overridden.region_for("claude-sonnet-4-5@20250929"), "europe-west4");
        assert!(overridden.url("claude-sonnet-4-5").starts_with(
            "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/"
        ));
        assert_eq!(overridden.region_for("claude-haiku-4-5"), "global", "an empty value is no override");
        assert_eq!(overridden.region_for("claude-opus-4-1"), "global");
        let missing = VertexConfig::from_vars(|_| None).unwrap_err().to_string();
        assert!(missing.contains("ANTHROPIC_VERTEX_PROJECT_ID"), "{missing}");
    }

    /// A region goes into the host name: one that is not a region's name (a repository's
    /// settings could set it) is refused, so the token never goes to another host.
    #[test]
    fn a_region_that_would_change_the_host_is_refused() {
        for bad in ["evil.example/x?", "evil.example#", "us-east5.evil.example", "a b"] {
            let region = |k: &str| match k {
                "ANTHROPIC_VERTEX_PROJECT_ID" => Some("p".to_string()),
                "CLOUD_ML_REGION" => Some(bad.to_string()),
                _ => None,
            };
            assert!(VertexConfig::from_vars(region).is_err(), "{bad}");
            let project = |k: &str| (k == "ANTHROPIC_VERTEX_PROJECT_ID").then(|| "p".to_string());
            let per_model = VertexConfig::from_vars(project)
                .unwrap()
                .with_model_regions([("VERTEX_REGION_CLAUDE_4_5_SONNET".to_string(), bad.to_string())]);
            assert!(per_model.is_err(), "{bad}");
        }
    }

    #[test]
    fn model_ids_name_claude_code_s_region_variables() {
        for (model, var) in [
            ("claude-3-5-haiku@20241022", "VERTEX_REGION_CLAUDE_3_5_HAIKU"),
            ("claude-3-5-sonnet-v2@20241022", "VERTEX_REGION_CLAUDE_3_5_SONNET"),
            ("claude-3-7-sonnet@20250219", "VERTEX_REGION_CLAUDE_3_7_SONNET"),
            ("claude-opus-4@20250514", "VERTEX_REGION_CLAUDE_4_0_OPUS"),
            ("claude-sonnet-4@20250514", "VERTEX_REGION_CLAUDE_4_0_SONNET"),
            ("claude-opus-4-1@20250805", "VERTEX_REGION_CLAUDE_4_1_OPUS"),
            ("claude-sonnet-4-5@20250929", "VERTEX_REGION_CLAUDE_4_5_SONNET"),
            ("claude-sonnet-4-6", "VERTEX_REGION_CLAUDE_4_6_SONNET"),
            ("claude-haiku-4-5@20251001", "VERTEX_REGION_CLAUDE_HAIKU_4_5"),
            ("claude-opus-5-5[1m]", "VERTEX_REGION_CLAUDE_5_5_OPUS"),
        ] {
            assert_eq!(region_var(model).as_deref(), Some(var), "{model}");
        }
        assert_eq!(region_var("gpt-5"), None);
        assert_eq!(region_var("claude-x"), None);
    }
}
