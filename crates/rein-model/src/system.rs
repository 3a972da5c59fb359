//! The system prompt as the model layer sends it, and where prompt-cache breakpoints go.
//!
//! The prompt is split in two: a stable part (the built-in or `--system-prompt`
//! instructions, the same for every session) and a per-session part (environment,
//! memory, appended text). With caching on, each part ends with a breakpoint, as do the
//! tools array and the newest message: four, the most the API allows. Nothing that
//! changes from one request to the next sits before a breakpoint.

use std::sync::Arc;

use serde::Serialize;

/// How long a cached prefix lives: the API's default five minutes, or one hour
/// (`ENABLE_PROMPT_CACHING_1H`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheTtl {
    FiveMinutes,
    OneHour,
}

/// `{"type":"ephemeral"}` with an optional `ttl`.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl: Option<&'static str>,
}

impl From<CacheTtl> for CacheControl {
    fn from(ttl: CacheTtl) -> Self {
        CacheControl {
            kind: "ephemeral",
            ttl: match ttl {
                CacheTtl::FiveMinutes => None,
                CacheTtl::OneHour => Some("1h"),
            },
        }
    }
}

/// The system prompt: `text`, whose first `stable_len` bytes are the same for every
/// session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct System {
    text: Arc<str>,
    stable_len: usize,
}

impl System {
    /// A prompt whose stable part is `stable` and per-session part `session`.
    pub fn split(stable: &str, session: &str) -> Self {
        System { text: format!("{stable}{session}").into(), stable_len: stable.len() }
    }

    /// The same prompt with its stable part rewritten by `rewrite`.
    pub fn with_stable(&self, rewrite: impl FnOnce(&str) -> String) -> System {
        System::split(&rewrite(&self.text[..self.stable_len]), &self.text[self.stable_len..])
    }

    /// The same prompt with `extra` after its per-session part (MCP server
    /// instructions, which are known only once the servers answer).
    pub fn with_session_appended(&self, extra: &str) -> System {
        System::split(&self.text[..self.stable_len], &format!("{}{extra}", &self.text[self.stable_len..]))
    }

    /// The same prompt with the environment block's working directory changed (the
    /// session moved into or out of a worktree).
    pub fn with_working_directory(&self, dir: &str) -> System {
        const MARK: &str = "# Environment\nWorking directory: ";
        let Some(at) = self.text.find(MARK) else { return self.clone() };
        let start = at + MARK.len();
        let end = self.text[start..].find('\n').map_or(self.text.len(), |e| start + e);
        let text = format!("{}{dir}{}", &self.text[..start], &self.text[end..]);
        let stable_len = if start < self.stable_len {
            (self.stable_len + dir.len()).saturating_sub(end - start)
        } else {
            self.stable_len
        };
        System { text: text.into(), stable_len }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The non-empty parts, stable first.
    pub(crate) fn parts(&self) -> impl Iterator<Item = &str> {
        let (stable, session) = self.text.split_at(self.stable_len.min(self.text.len()));
        [stable, session].into_iter().filter(|p| !p.is_empty())
    }
}

impl From<&str> for System {
    fn from(text: &str) -> Self {
        System { text: text.into(), stable_len: text.len() }
    }
}

impl From<String> for System {
    fn from(text: String) -> Self {
        let stable_len = text.len();
        System { text: text.into(), stable_len }
    }
}

/// One text block of the `system` array.
#[derive(Serialize)]
pub(crate) struct SystemBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

impl System {
    /// The `system` array with a breakpoint after each part.
    pub(crate) fn blocks(&self, cache: CacheControl) -> Vec<SystemBlock<'_>> {
        self.parts().map(|text| SystemBlock { kind: "text", text, cache_control: Some(cache) }).collect()
    }
}
