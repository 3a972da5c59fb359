//! The seam through which WebFetch has a page read for it: the session's small fast
//! model answers the call's prompt from the page, so the main model receives the answer
//! instead of the whole page. Set by the engine (which also counts what the answer
//! cost); without one, WebFetch returns the page.

use futures::future::BoxFuture;

/// Why a page could not be answered from (the request failed, the answer was empty).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct DigestError(pub Box<dyn std::error::Error + Send + Sync>);

/// Answers a prompt from a page's Markdown.
pub trait PageDigest: Send + Sync + std::fmt::Debug {
    /// `prompt` answered from `page` (the Markdown of `url`), or why it could not be.
    fn answer<'a>(&'a self, url: &'a str, page: &'a str, prompt: &'a str)
    -> BoxFuture<'a, Result<String, DigestError>>;
}
