//! A web page for WebFetch: fetched (redirects followed only on the same host), turned
//! into Markdown, and kept for 15 minutes per URL, as Claude Code keeps it, so a second
//! question about the same page costs no second download.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;

use crate::ToolError;

/// Bodies are read up to this many bytes.
const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
const MAX_SAME_HOST_REDIRECTS: usize = 10;
/// How long a fetched page is reused.
pub(super) const CACHE_TTL: Duration = Duration::from_secs(15 * 60);
/// The cache holds at most this many bytes of Markdown; the oldest pages go first.
const CACHE_BYTES: usize = 50 << 20;

/// A page as Markdown (or plain text).
#[derive(Debug)]
pub(super) struct Page {
    /// Where the content came from, after same-host redirects.
    pub url: url::Url,
    pub markdown: String,
    /// The body was larger than [`MAX_BODY_BYTES`] and was cut there.
    pub body_cut: bool,
}

/// What fetching a URL gave.
#[derive(Debug, Clone)]
pub(super) enum Fetched {
    Page(Arc<Page>),
    /// A redirect to another host: reported, not followed.
    Redirect {
        from: url::Url,
        to: url::Url,
        status: reqwest::StatusCode,
    },
}

pub(super) fn is_local(url: &url::Url) -> bool {
    matches!(url.host_str(), Some("localhost" | "127.0.0.1" | "[::1]" | "::1"))
}

/// The URL to fetch: parsed, http upgraded to https unless it is local.
pub(super) fn target_url(raw: &str) -> Result<url::Url, UrlError> {
    let mut url = url::Url::parse(raw.trim()).map_err(|source| UrlError::Invalid { raw: raw.to_string(), source })?;
    match url.scheme() {
        "https" => {}
        "http" if is_local(&url) => {}
        "http" => url.set_scheme("https").map_err(|_| UrlError::NoUpgrade(raw.to_string()))?,
        other => return Err(UrlError::Scheme(other.to_string())),
    }
    if url.host_str().is_none() {
        return Err(UrlError::NoHost(raw.to_string()));
    }
    Ok(url)
}

/// Why a URL is not one WebFetch fetches.
#[derive(Debug, Clone, thiserror::Error)]
pub(super) enum UrlError {
    #[error("invalid URL {raw:?}: {source}")]
    Invalid { raw: String, source: url::ParseError },
    #[error("cannot upgrade {0} to https")]
    NoUpgrade(String),
    #[error("unsupported URL scheme {0:?}; use http or https")]
    Scheme(String),
    #[error("{0} has no host")]
    NoHost(String),
}

impl From<UrlError> for crate::InputError {
    fn from(why: UrlError) -> Self {
        crate::InputError::Refused(why.to_string())
    }
}

#[derive(Default)]
struct Cache {
    pages: HashMap<String, (Instant, Arc<Page>)>,
    bytes: usize,
}

static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);

impl Cache {
    fn get(&mut self, url: &str) -> Option<Arc<Page>> {
        let (at, page) = self.pages.get(url)?;
        if at.elapsed() < CACHE_TTL {
            return Some(page.clone());
        }
        self.remove(url);
        None
    }

    fn remove(&mut self, url: &str) {
        if let Some((_, page)) = self.pages.remove(url) {
            self.bytes -= page.markdown.len();
        }
    }

    fn put(&mut self, url: String, page: Arc<Page>) {
        self.remove(&url);
        while self.bytes + page.markdown.len() > CACHE_BYTES {
            let Some(oldest) = self.pages.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| k.clone()) else {
                break;
            };
            self.remove(&oldest);
        }
        self.bytes += page.markdown.len();
        self.pages.insert(url, (Instant::now(), page));
    }
}

/// The page at `url`: from the cache when fetched in the last 15 minutes, else from
/// the network.
pub(super) async fn fetch(url: url::Url) -> Result<Fetched, ToolError> {
    let key = url.to_string();
    if let Some(page) = CACHE.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(Fetched::Page(page));
    }
    let fetched = download(url).await?;
    if let Fetched::Page(page) = &fetched {
        CACHE.lock().unwrap_or_else(|p| p.into_inner()).put(key, page.clone());
    }
    Ok(fetched)
}

async fn download(mut url: url::Url) -> Result<Fetched, ToolError> {
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
            return Ok(Fetched::Redirect { from: url, to: next, status: response.status() });
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
    let (bytes, body_cut) = read_capped(response).await?;
    if !status.is_success() {
        let body = String::from_utf8_lossy(&bytes[..bytes.len().min(2000)]).into_owned();
        return Err(ToolError::new(format!("{url} answered {status}: {body}")));
    }
    let markdown = if content_type.contains("html") || (content_type.is_empty() && bytes.starts_with(b"<")) {
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
    Ok(Fetched::Page(Arc::new(Page { url, markdown, body_cut })))
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

/// The body cap, for the note that says a body was cut.
pub(super) fn body_cap_mb() -> usize {
    MAX_BODY_BYTES / 1024 / 1024
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

    #[test]
    fn the_cache_keeps_a_page_and_drops_the_oldest_past_its_size() {
        let page = |n: usize| {
            Arc::new(Page {
                url: url::Url::parse("https://a.example/").unwrap(),
                markdown: "x".repeat(n),
                body_cut: false,
            })
        };
        let mut cache = Cache::default();
        cache.put("a".into(), page(CACHE_BYTES / 2));
        cache.put("b".into(), page(CACHE_BYTES / 2));
        assert!(cache.get("a").is_some() && cache.get("b").is_some());
        cache.put("c".into(), page(10));
        assert!(cache.get("a").is_none(), "the oldest page made room");
        assert!(cache.get("b").is_some() && cache.get("c").is_some());
        assert_eq!(cache.bytes, CACHE_BYTES / 2 + 10);
    }
}
