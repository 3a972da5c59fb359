//! The provider's own tools a request may offer: web search, which the provider runs
//! itself (no network from the user's machine) and whose results come back in the
//! answer, as the Messages API's `web_search` server tool or the Responses API's
//! `web_search` tool.

use serde_json::{Value, json};

/// The Messages API's web search tool version.
pub const WEB_SEARCH_TOOL: &str = "web_search_20250305";

/// Web search, offered in a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebSearch {
    /// Searches one answer may run.
    pub max_uses: u32,
    /// Only results from these domains (empty: any).
    pub allowed_domains: Vec<String>,
    /// Never results from these domains.
    pub blocked_domains: Vec<String>,
}

impl WebSearch {
    /// The Messages API's server tool (Anthropic, Vertex AI, Bedrock).
    pub(crate) fn messages_tool(&self) -> Value {
        let mut tool = json!({"type": WEB_SEARCH_TOOL, "name": "web_search", "max_uses": self.max_uses});
        if !self.allowed_domains.is_empty() {
            tool["allowed_domains"] = json!(self.allowed_domains);
        }
        if !self.blocked_domains.is_empty() {
            tool["blocked_domains"] = json!(self.blocked_domains);
        }
        tool
    }

    /// The Responses API's tool. It filters by allowed domains only; blocked ones are
    /// left out of the results afterwards (by the WebSearch tool).
    pub(crate) fn responses_tool(&self) -> Value {
        let mut tool = json!({"type": "web_search"});
        if !self.allowed_domains.is_empty() {
            tool["filters"] = json!({"allowed_domains": self.allowed_domains});
        }
        tool
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_api_gets_its_own_shape() {
        let search = WebSearch { max_uses: 8, allowed_domains: vec!["docs.rs".into()], blocked_domains: vec![] };
        assert_eq!(
            search.messages_tool(),
            json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 8, "allowed_domains": ["docs.rs"]})
        );
        assert_eq!(search.responses_tool(), json!({"type": "web_search", "filters": {"allowed_domains": ["docs.rs"]}}));
        let blocked = WebSearch { max_uses: 8, allowed_domains: vec![], blocked_domains: vec!["x.com".into()] };
        assert_eq!(blocked.messages_tool()["blocked_domains"], json!(["x.com"]));
        assert_eq!(blocked.responses_tool(), json!({"type": "web_search"}));
    }
}
