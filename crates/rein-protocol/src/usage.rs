//! Token usage as the API reports it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// How the cache writes split by lifetime (1-hour writes cost more), when the API
    /// says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation: Option<CacheCreation>,
    /// Server-side tools the provider ran (web searches), when it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_tool_use: Option<ServerToolUse>,
}

/// `usage.server_tool_use`: what the provider's own tools did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerToolUse {
    #[serde(default)]
    pub web_search_requests: u64,
    #[serde(default)]
    pub web_fetch_requests: u64,
}

impl Usage {
    /// Web searches the provider ran.
    pub fn web_searches(&self) -> u64 {
        self.server_tool_use.map_or(0, |s| s.web_search_requests)
    }
}

/// `usage.cache_creation`: cache-write tokens by time to live.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheCreation {
    #[serde(default)]
    pub ephemeral_5m_input_tokens: u64,
    #[serde(default)]
    pub ephemeral_1h_input_tokens: u64,
}

impl Usage {
    /// Fold a `message_delta` usage into this one. Delta usage is cumulative, so a field
    /// the delta reports replaces ours; a zero means "not reported".
    pub fn update_cumulative(&mut self, delta: &Usage) {
        for (mine, theirs) in [
            (&mut self.input_tokens, delta.input_tokens),
            (&mut self.output_tokens, delta.output_tokens),
            (&mut self.cache_creation_input_tokens, delta.cache_creation_input_tokens),
            (&mut self.cache_read_input_tokens, delta.cache_read_input_tokens),
        ] {
            if theirs != 0 {
                *mine = theirs;
            }
        }
        if delta.cache_creation.is_some() {
            self.cache_creation = delta.cache_creation;
        }
        if delta.server_tool_use.is_some() {
            self.server_tool_use = delta.server_tool_use;
        }
    }

    /// Add another request's usage to a session total.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        if let Some(theirs) = other.cache_creation {
            let mine = self.cache_creation.get_or_insert_default();
            mine.ephemeral_5m_input_tokens += theirs.ephemeral_5m_input_tokens;
            mine.ephemeral_1h_input_tokens += theirs.ephemeral_1h_input_tokens;
        }
        if let Some(theirs) = other.server_tool_use {
            let mine = self.server_tool_use.get_or_insert_default();
            mine.web_search_requests += theirs.web_search_requests;
            mine.web_fetch_requests += theirs.web_fetch_requests;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delta_usage_replaces_rather_than_adds() {
        let mut u = Usage { input_tokens: 10, output_tokens: 1, ..Usage::default() };
        u.update_cumulative(&Usage { output_tokens: 40, ..Usage::default() });
        u.update_cumulative(&Usage { output_tokens: 41, ..Usage::default() });
        assert_eq!(u.input_tokens, 10);
        assert_eq!(u.output_tokens, 41);
    }
}
