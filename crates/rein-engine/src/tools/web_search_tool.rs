//! WebSearch, as Claude Code offers it: the search runs at the provider (the Messages
//! API's `web_search` server tool, the Responses API's `web_search`), in one side
//! request to the small fast model; the call returns the results' titles and URLs and
//! what the search found. Nothing leaves the user's machine but that request, so the
//! sandbox needs no extra network. Offered only on a provider that searches.

use rein_tools::{Effects, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::side_requests::{ask, one_message};

/// Searches one call may run at the provider.
const MAX_SEARCHES: u32 = 8;
const MAX_ANSWER_TOKENS: u32 = 4_096;
const SYSTEM: &str = "You run web searches for a coding agent. Search for what you are asked, then summarise what \
                      the results say, briefly and factually.";

pub struct WebSearchTool {
    /// Whether the session's provider searches (the tool stays registered either way,
    /// so that rules can name it).
    pub offered: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WebSearchInput {
    /// The search query.
    pub query: String,
    /// Only include results from these domains.
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// Never include results from these domains.
    #[serde(default)]
    pub blocked_domains: Option<Vec<String>>,
}

impl Tool for WebSearchTool {
    type Input = WebSearchInput;

    fn name(&self) -> &'static str {
        "WebSearch"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Searches the web and returns the results' titles and URLs with a summary of what they say. Use it for \
         anything newer than your knowledge or that you need to check. allowed_domains or blocked_domains (not \
         both) narrow the results. Cite the sources you use as Markdown links in your answer."
            .into()
    }

    fn validate(&self, input: &WebSearchInput, _: &ToolContext) -> Result<(), rein_tools::InputError> {
        if input.query.trim().chars().count() < 2 {
            return Err("the query needs at least 2 characters".into());
        }
        let given = |d: &Option<Vec<String>>| d.as_ref().is_some_and(|d| !d.is_empty());
        if given(&input.allowed_domains) && given(&input.blocked_domains) {
            return Err("give allowed_domains or blocked_domains, not both".into());
        }
        Ok(())
    }

    fn effects(&self, _: &WebSearchInput, _: &ToolContext) -> Effects {
        // The provider searches; no host is contacted from here. Still asked by default:
        // nothing allows it but a rule or the user.
        Effects::contacting(None)
    }

    fn offered_to_model(&self) -> bool {
        self.offered
    }

    async fn call(&self, input: WebSearchInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let services = crate::EngineServices::of(ctx)?;
        let model_name = services.config.small_model_name();
        let allowed = input.allowed_domains.clone().unwrap_or_default();
        let blocked = input.blocked_domains.clone().unwrap_or_default();
        let mut request =
            one_message(&model_name, SYSTEM, format!("Search the web for: {}", input.query), MAX_ANSWER_TOKENS)
                .map_err(|e| ToolError::new(e.to_string()))?;
        request.web_search = Some(rein_model::WebSearch {
            max_uses: MAX_SEARCHES,
            allowed_domains: allowed.clone(),
            blocked_domains: blocked.clone(),
        });
        let answer = tokio::select! {
            answer = ask(services.model.as_ref(), request, &services.side) => answer.map_err(|e| ToolError::new(e.to_string()))?,
            _ = ctx.abort.cancelled() => return Err(ToolError::new(rein_protocol::INTERRUPTED)),
        };
        let found = Found::read(&answer.content, &allowed, &blocked);
        if found.links.is_empty() && !found.errors.is_empty() {
            return Err(ToolError::new(format!("the web search failed: {}", found.errors.join(", "))));
        }
        Ok(ToolOutput::text(found.report(&input.query)))
    }
}

/// What a search answer held: the results' links, the summary, and search errors.
#[derive(Debug, Default)]
struct Found {
    links: Vec<Value>,
    text: String,
    errors: Vec<String>,
}

impl Found {
    fn read(content: &[rein_protocol::ContentBlock], allowed: &[String], blocked: &[String]) -> Found {
        let mut found = Found::default();
        for block in content {
            match block {
                rein_protocol::ContentBlock::Text { text } => found.text.push_str(text),
                rein_protocol::ContentBlock::Other(v) if v["type"] == "web_search_tool_result" => match &v["content"] {
                    Value::Array(results) => {
                        for r in results {
                            let Some(url) = r["url"].as_str() else { continue };
                            let keep = url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_string));
                            let host = keep.unwrap_or_default();
                            if (!allowed.is_empty() && !allowed.iter().any(|d| within(&host, d)))
                                || blocked.iter().any(|d| within(&host, d))
                            {
                                continue;
                            }
                            let title = r["title"].as_str().unwrap_or(url);
                            let link = json!({"title": title, "url": url});
                            if !found.links.contains(&link) {
                                found.links.push(link);
                            }
                        }
                    }
                    error => found.errors.push(error["error_code"].as_str().unwrap_or("unknown error").to_string()),
                },
                _ => {}
            }
        }
        found
    }

    fn report(&self, query: &str) -> String {
        let links = serde_json::to_string(&self.links).unwrap_or_else(|_| "[]".into());
        let mut out = format!("Web search results for query: \"{query}\"\n\nLinks: {links}\n\n");
        if !self.text.trim().is_empty() {
            out.push_str(self.text.trim());
            out.push_str("\n\n");
        }
        if self.links.is_empty() {
            out.push_str("No results.\n\n");
        }
        out.push_str("REMINDER: cite the sources above in your answer to the user as Markdown links.");
        out
    }
}

/// Whether `host` is `domain` or one of its subdomains.
fn within(host: &str, domain: &str) -> bool {
    let domain = domain.trim().trim_start_matches("*.").to_ascii_lowercase();
    let host = host.to_ascii_lowercase();
    host == domain || host.ends_with(&format!(".{domain}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::ContentBlock;

    fn results(urls: &[&str]) -> ContentBlock {
        let content: Vec<Value> =
            urls.iter().map(|u| json!({"type": "web_search_result", "url": u, "title": format!("T {u}")})).collect();
        ContentBlock::Other(json!({"type": "web_search_tool_result", "tool_use_id": "s", "content": content}))
    }

    #[test]
    fn links_are_kept_once_and_filtered_by_the_domains_asked() {
        let content =
            [results(&["https://docs.rs/a", "https://x.com/b", "https://docs.rs/a"]), ContentBlock::text("Summary.")];
        let all = Found::read(&content, &[], &[]);
        assert_eq!(all.links.len(), 2);
        assert!(
            all.report("q").contains("Summary.") && all.report("q").starts_with("Web search results for query: \"q\"")
        );
        assert_eq!(Found::read(&content, &[], &["x.com".into()]).links.len(), 1);
        let only = Found::read(&content, &["docs.rs".into()], &[]);
        assert_eq!(only.links, vec![json!({"title": "T https://docs.rs/a", "url": "https://docs.rs/a"})]);
        assert!(within("api.docs.rs", "docs.rs") && !within("notdocs.rs", "docs.rs"));
    }

    #[test]
    fn a_search_error_is_reported() {
        let error = ContentBlock::Other(json!({"type": "web_search_tool_result", "tool_use_id": "s",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}));
        let found = Found::read(&[error], &[], &[]);
        assert_eq!(found.errors, vec!["max_uses_exceeded"]);
    }
}
