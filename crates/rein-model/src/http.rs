//! What every HTTP provider shares: checking the endpoint URL and building the client
//! (timeouts, user agent, no proxy for loopback servers).

use std::time::Duration;

use crate::ModelError;

/// `url` parsed, http or https only; errors name `base_url`, the value the person set.
pub(crate) fn endpoint(base_url: &str, url: &str) -> Result<reqwest::Url, ModelError> {
    let bad = |reason: String| ModelError::BadBaseUrl { url: base_url.to_string(), reason };
    let endpoint = reqwest::Url::parse(url).map_err(|e| bad(e.to_string()))?;
    if !matches!(endpoint.scheme(), "http" | "https") {
        return Err(bad("only http and https are supported".into()));
    }
    Ok(endpoint)
}

/// The HTTP client for `endpoint`.
pub(crate) fn client(endpoint: &reqwest::Url) -> Result<reqwest::Client, ModelError> {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .read_timeout(Duration::from_secs(600))
        .user_agent(concat!("rein/", env!("CARGO_PKG_VERSION")));
    if matches!(endpoint.host_str(), Some("127.0.0.1" | "localhost" | "[::1]" | "::1")) {
        builder = builder.no_proxy();
    }
    builder.build().map_err(|e| ModelError::Request(e.to_string()))
}
