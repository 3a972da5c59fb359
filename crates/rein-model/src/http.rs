//! What every HTTP provider shares: checking the endpoint URL, building the client
//! (timeouts, user agent, no proxy for loopback servers), the request's JSON headers, a
//! bearer token's header, and reading an on/off variable.

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
    if endpoint.scheme() == "https" {
        rein_tls::load_roots_in_background();
    }
    let mut builder = rein_tls::client_builder()
        .connect_timeout(Duration::from_secs(30))
        .read_timeout(Duration::from_secs(600))
        .user_agent(concat!("rein/", env!("CARGO_PKG_VERSION")));
    if matches!(endpoint.host_str(), Some("127.0.0.1" | "localhost" | "[::1]" | "::1")) {
        builder = builder.no_proxy();
    }
    builder.build().map_err(|e| ModelError::Request(e.to_string()))
}

/// Headers for a JSON request whose answer streams as `accept`.
pub(crate) fn json_headers(accept: &'static str) -> reqwest::header::HeaderMap {
    use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(ACCEPT, HeaderValue::from_static(accept));
    headers
}

/// `Authorization: Bearer {token}`; the error names `what` the token came from.
pub(crate) fn bearer(token: &str, what: &str) -> Result<reqwest::header::HeaderValue, ModelError> {
    reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| ModelError::Request(format!("{what} has invalid characters")))
}

/// A switch variable is on when set to anything but `0` or `false`.
pub(crate) fn switched_on(value: Option<String>) -> bool {
    value.is_some_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// A cloud region as it may go into a host name (`us-east5`, `eu-west-1`): lowercase
/// letters, digits and dashes only; anything else (a settings file's `evil.example/x?`)
/// is refused, so that a region never sends the request, and the credentials with it,
/// to another host.
pub(crate) fn region(name: &str, value: String) -> Result<String, crate::ModelError> {
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        return Ok(value);
    }
    Err(crate::ModelError::Request(format!("{name} {value:?} is not a region name (letters, digits and dashes)")))
}
