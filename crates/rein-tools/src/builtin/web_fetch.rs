//! WebFetch: fetch a URL, turn it into Markdown, and have the small fast model answer
//! the call's prompt from it (the session's [`crate::PageDigest`]), as Claude Code does:
//! the main model reads the answer, not the page. The whole page is saved under the
//! session's saved outputs for a later Read; nothing of it is lost.

use schemars::JsonSchema;
use serde::Deserialize;

use super::web_page::{self, Fetched, Page};
use crate::{Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

/// Page content given to the digest, or returned without one, in characters.
const MAX_CONTENT_CHARS: usize = 100_000;

pub struct WebFetch;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WebFetchInput {
    /// The URL to fetch.
    pub url: String,
    /// What to find out from the page.
    pub prompt: String,
}

impl Tool for WebFetch {
    type Input = WebFetchInput;

    fn name(&self) -> &'static str {
        "WebFetch"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Fetches a URL, converts it to Markdown and answers the prompt from it with a small fast model. http \
         becomes https. A redirect to another host is reported, not followed: call again with the new URL. Pages \
         are kept for 15 minutes; the whole page is saved to a file you can Read."
            .to_string()
    }

    fn validate(&self, input: &WebFetchInput, _: &ToolContext) -> Result<(), crate::InputError> {
        web_page::target_url(&input.url)?;
        Ok(())
    }

    fn effects(&self, input: &WebFetchInput, _: &ToolContext) -> Effects {
        Effects::contacting(url::Url::parse(&input.url).ok().and_then(|u| u.host_str().map(str::to_string)))
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Domain { field: "url" }
    }

    async fn call(&self, input: WebFetchInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let url = web_page::target_url(&input.url).map_err(|e| ToolError::new(e.to_string()))?;
        tokio::select! {
            result = fetch_and_answer(url, &input.prompt, ctx) => result,
            _ = ctx.abort.cancelled() => Err(ToolError::new(rein_protocol::INTERRUPTED)),
        }
    }
}

async fn fetch_and_answer(url: url::Url, prompt: &str, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let page = match web_page::fetch(url).await? {
        Fetched::Page(page) => page,
        Fetched::Redirect { from, to, status } => {
            return Ok(ToolOutput::text(format!(
                "Not followed: {from} redirects to another host, {to} (HTTP {status}). To read that page, call \
                 WebFetch again with its URL."
            )));
        }
    };
    let saved = save_page(&page, ctx);
    let content = within_limit(&page);
    let answer = match &ctx.digest {
        Some(digest) => Some(digest.answer(page.url.as_str(), &content, prompt).await),
        None => None,
    };
    let whole = page.markdown.chars().count();
    let where_saved = match &saved {
        Ok(path) => {
            format!("The whole page ({whole} characters of Markdown) is saved at {}; Read it for more.", path.display())
        }
        Err(e) => format!("The whole page could not be saved: {e}."),
    };
    let text = match answer {
        Some(Ok(answer)) => format!("{answer}\n\n[{where_saved}]"),
        // No digest, or one that failed: the page itself, so that nothing is lost.
        Some(Err(e)) => format!(
            "The page could not be summarised ({e}). Content of {} (asked: {prompt}):\n\n{content}\n\n[{where_saved}]",
            page.url
        ),
        None => format!("Content of {} (asked: {prompt}):\n\n{content}\n\n[{where_saved}]", page.url),
    };
    Ok(ToolOutput::text(text))
}

/// The page's Markdown up to the limit, with a note when it was cut.
fn within_limit(page: &Page) -> String {
    let mut content: String = page.markdown.chars().take(MAX_CONTENT_CHARS).collect();
    let mut notes = Vec::new();
    if content.len() < page.markdown.len() {
        notes.push(format!("the content was cut at {MAX_CONTENT_CHARS} characters"));
    }
    if page.body_cut {
        notes.push(format!("the body was larger than {} MB and was cut", web_page::body_cap_mb()));
    }
    if !notes.is_empty() {
        content.push_str(&format!("\n\n[Note: {}.]", notes.join("; ")));
    }
    content
}

/// The page's whole Markdown, written under the session's saved outputs.
fn save_page(page: &Page, ctx: &ToolContext) -> Result<std::path::PathBuf, NotSaved> {
    let path = crate::spilling::new_file(ctx, "WebFetch").with_extension("md");
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| NotSaved { path: dir.to_path_buf(), source })?;
    }
    // A new file, never one found there (a link planted in its place is not followed).
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|source| NotSaved { path: path.clone(), source })?;
    std::io::Write::write_all(&mut file, format!("<!-- {} -->\n{}", page.url, page.markdown).as_bytes())
        .map_err(|source| NotSaved { path: path.clone(), source })?;
    Ok(path)
}

/// Why a page's Markdown was not saved.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
struct NotSaved {
    path: std::path::PathBuf,
    source: std::io::Error,
}
