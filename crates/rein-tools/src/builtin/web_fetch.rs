//! WebFetch: fetch a URL and return its content as Markdown.

use std::time::Duration;

use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

/// Bodies are read up to this many bytes.
const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
/// Content returned to the model, in characters.
const MAX_CONTENT_CHARS: usize = 80_000;
const MAX_SAME_HOST_REDIRECTS: usize = 10;

pub struct WebFetch;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WebFetchInput {
    pub url: String,
    /// What to look for.
    pub prompt: String,
}

impl Tool for WebFetch {
    type Input = WebFetchInput;

    fn name(&self) -> &'static str {
        "WebFetch"
    }

    fn description(&self) -> String {
        "Fetches a URL as Markdown; the prompt says what to look for. http becomes https. A redirect to another \
         host is reported, not followed. Large pages are cut."
            .to_string()
    }

    fn validate(&self, input: &WebFetchInput, _: &ToolContext) -> Result<(), String> {
        target_url(&input.url).map(|_| ())
    }

    fn effects(&self, input: &WebFetchInput, _: &ToolContext) -> Effects {
        Effects::contacting(url::Url::parse(&input.url).ok().and_then(|u| u.host_str().map(str::to_string)))
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Domain { field: "url" }
    }

    async fn call(&self, input: WebFetchInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let url = target_url(&input.url).map_err(ToolError::new)?;
        tokio::select! {
            result = fetch(url, &input.prompt) => result,
            _ = ctx.abort.cancelled() => Err(ToolError::new(rein_protocol::INTERRUPTED)),
        }
    }
}

fn is_local(url: &url::Url) -> bool {
    matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]" | "::1"))
}

/// The URL to fetch: parsed, http upgraded to https unless it is local.
fn target_url(raw: &str) -> Result<url::Url, String> {
    let mut url = url::Url::parse(raw.trim()).map_err(|e| format!("invalid URL {raw:?}: {e}"))?;
    match url.scheme() {
        "https" => {}
        "http" if is_local(&url) => {}
        "http" => url.set_scheme("https").map_err(|_| format!("cannot upgrade {raw} to https"))?,
        other => return Err(format!("unsupported URL scheme {other:?}; use http or https")),
    }
    if url.host_str().is_none() {
        return Err(format!("{raw} has no host"));
    }
    Ok(url)
}

async fn fetch(mut url: url::Url, prompt: &str) -> Result<ToolOutput, ToolError> {
    rein_tls::load_roots_in_background();
    let mut builder = rein_tls::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60))
        .user_agent(concat!("rein/", env!("CARGO_PKG_VERSION"), " (WebFetch)"));
    if is_local(&url) {
        builder = builder.no_proxy();
    }
    let client = builder.build().map_err(|e| ToolError::new(format!("cannot start an HTTP client: {e}")))?;
    let mut hops = 0;
    let response = loop {
        let response =
            client.get(url.clone()).send().await.map_err(|e| ToolError::new(format!("fetching {url} failed: {e}")))?;
        if !response.status().is_redirection() {
            break response;
        }
        let Some(location) = response.headers().get(reqwest::header::LOCATION).and_then(|l| l.to_str().ok()) else {
            break response;
        };
        let next = url.join(location).map_err(|e| ToolError::new(format!("bad redirect from {url}: {e}")))?;
        if next.host_str() != url.host_str() {
            return Ok(ToolOutput::text(format!(
                "REDIRECT DETECTED: {url} redirects to a different host: {next}\nStatus: {}\nTo read it, call \
                 WebFetch again with url {next}.",
                response.status()
            )));
        }
        hops += 1;
        if hops > MAX_SAME_HOST_REDIRECTS {
            return Err(ToolError::new(format!("too many redirects from {url}")));
        }
        url = next;
    };
    let status = response.status();
    let content_type =
        response.headers().get(reqwest::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let (bytes, cut) = read_capped(response).await?;
    if !status.is_success() {
        let body = String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned();
        return Err(ToolError::new(format!("{url} answered {status}: {body}")));
    }
    let text = if content_type.contains("html") || (content_type.is_empty() && bytes.starts_with(b"<")) {
        let html = String::from_utf8_lossy(&bytes);
        htmd::HtmlToMarkdown::builder()
            .skip_tags(vec!["script", "style", "noscript"])
            .build()
            .convert(&html)
            .map_err(|e| ToolError::new(format!("cannot convert the HTML of {url}: {e}")))?
    } else if content_type.starts_with("text/")
        || content_type.contains("json")
        || content_type.contains("xml")
        || content_type.is_empty()
    {
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        return Err(ToolError::new(format!("{url} returned {content_type}, which is not text")));
    };
    let mut content: String = text.chars().take(MAX_CONTENT_CHARS).collect();
    let mut notes = Vec::new();
    if content.len() < text.len() {
        notes.push(format!("the content was cut at {MAX_CONTENT_CHARS} characters"));
    }
    if cut {
        notes.push(format!("the body was larger than {} MB and was cut", MAX_BODY_BYTES / 1024 / 1024));
    }
    if !notes.is_empty() {
        content.push_str(&format!("\n\n[Note: {}.]", notes.join("; ")));
    }
    Ok(ToolOutput::text(format!("Content of {url} (asked: {prompt}):\n\n{content}")))
}

/// The body, up to the cap; `true` when it was cut.
async fn read_capped(response: reqwest::Response) -> Result<(Vec<u8>, bool), ToolError> {
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| ToolError::new(format!("reading the body failed: {e}")))?;
        let room = MAX_BODY_BYTES - body.len();
        if chunk.len() >= room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_is_upgraded_except_for_localhost() {
        assert_eq!(target_url("http://example.com/a").unwrap().as_str(), "https://example.com/a");
        assert_eq!(target_url("http://localhost:8080/").unwrap().scheme(), "http");
        assert_eq!(target_url("http://127.0.0.1:1/x").unwrap().scheme(), "http");
        assert!(target_url("ftp://example.com").is_err());
        assert!(target_url("not a url").is_err());
    }
}
