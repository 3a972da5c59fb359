//! Content blocks, the unit of every message.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One content block of a message, in the Messages API's JSON shape.
///
/// Blocks rein does not model (server tool blocks, documents, citations…) are kept
/// verbatim in [`ContentBlock::Other`] so that they travel back to the API unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
    },
    ToolUse(ToolUse),
    ToolResult {
        tool_use_id: String,
        content: ToolResultContent,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    /// Extended thinking; sent back unmodified, signature included.
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    Image {
        source: ImageSource,
    },
    /// A PDF the model reads (text and page images).
    Document {
        source: DocumentSource,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
    },
    /// Any block type rein does not interpret, kept as the API sent it.
    #[serde(untagged)]
    Other(Value),
}

/// A `tool_use` block: the model's request to run a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// The content of a `tool_result`: a plain string or a list of blocks (text, image).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

/// Where an image's bytes come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ImageSource {
    Base64 { media_type: String, data: String },
    Url { url: String },
}

/// Where a document's bytes come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DocumentSource {
    Base64 { media_type: String, data: String },
    Url { url: String },
}

/// What an interrupted call's result says (Claude Code's wording, which models know).
pub const INTERRUPTED: &str = "Interrupted by user";

/// The note a conversation keeps where the person interrupted a response (Claude
/// Code's marker, which models and SDK programs know).
pub const INTERRUPTED_RESPONSE: &str = "[Request interrupted by user]";

/// The same, where the person interrupted calls that were running.
pub const INTERRUPTED_TOOL_USE: &str = "[Request interrupted by user for tool use]";

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// A `tool_result` answering `tool_use_id`.
    pub fn tool_result(tool_use_id: impl Into<String>, content: impl Into<String>, is_error: bool) -> Self {
        ContentBlock::ToolResult {
            tool_use_id: tool_use_id.into(),
            content: ToolResultContent::Text(content.into()),
            is_error,
        }
    }

    /// The result of a call the user interrupted.
    pub fn interrupted(tool_use_id: impl Into<String>) -> Self {
        ContentBlock::tool_result(tool_use_id, INTERRUPTED, true)
    }

    /// Whether this is the result of an interrupted call (made by
    /// [`interrupted`](Self::interrupted), or a tool's output ending with [`INTERRUPTED`]).
    pub fn is_interrupted(&self) -> bool {
        match self {
            ContentBlock::ToolResult { content: ToolResultContent::Text(t), is_error: true, .. } => {
                t == INTERRUPTED || t.ends_with(&format!("\n{INTERRUPTED}"))
            }
            _ => false,
        }
    }

    pub fn as_tool_use(&self) -> Option<&ToolUse> {
        match self {
            ContentBlock::ToolUse(t) => Some(t),
            _ => None,
        }
    }

    /// The id this block answers, when it is a `tool_result`.
    pub fn tool_result_id(&self) -> Option<&str> {
        match self {
            ContentBlock::ToolResult { tool_use_id, .. } => Some(tool_use_id),
            _ => None,
        }
    }
}

impl ToolResultContent {
    /// The text of the result, images left out.
    pub fn to_text(&self) -> String {
        match self {
            ToolResultContent::Text(t) => t.clone(),
            ToolResultContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// Tokens an image is estimated to cost (the API scales a large one to about 1.15
/// megapixels: about 1 600 tokens).
pub const IMAGE_TOKENS: u64 = 1_600;
/// Tokens a PDF is estimated to cost per 100 KB of its base64 (a page is text and an
/// image, some 1 500–3 000 tokens), at least one page's.
const DOCUMENT_TOKENS_PER_100_KB: u64 = 3_000;

/// The images and documents in some content: their base64 bytes (which the API does
/// not count as text) and the tokens they are estimated to cost instead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MediaWeight {
    pub payload_bytes: usize,
    pub tokens: u64,
}

impl MediaWeight {
    pub fn add(&mut self, other: MediaWeight) {
        self.payload_bytes += other.payload_bytes;
        self.tokens += other.tokens;
    }
}

impl ContentBlock {
    /// The weight of the images and documents in this block (a tool result's too).
    pub fn media_weight(&self) -> MediaWeight {
        match self {
            ContentBlock::Image { source: ImageSource::Base64 { data, .. } } => {
                MediaWeight { payload_bytes: data.len(), tokens: IMAGE_TOKENS }
            }
            ContentBlock::Image { .. } => MediaWeight { payload_bytes: 0, tokens: IMAGE_TOKENS },
            ContentBlock::Document { source: DocumentSource::Base64 { data, .. }, .. } => MediaWeight {
                payload_bytes: data.len(),
                tokens: (data.len() as u64 / 100_000 + 1) * DOCUMENT_TOKENS_PER_100_KB,
            },
            ContentBlock::Document { .. } => MediaWeight { payload_bytes: 0, tokens: DOCUMENT_TOKENS_PER_100_KB },
            ContentBlock::ToolResult { content: ToolResultContent::Blocks(blocks), .. } => {
                let mut w = MediaWeight::default();
                for b in blocks {
                    w.add(b.media_weight());
                }
                w
            }
            _ => MediaWeight::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(v: Value) -> ContentBlock {
        let block: ContentBlock = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&block).unwrap(), v, "shape changed in a round trip");
        block
    }

    #[test]
    fn every_block_kind_round_trips_in_api_shape() {
        assert!(matches!(round_trip(json!({"type":"text","text":"hi"})), ContentBlock::Text { .. }));
        assert!(matches!(
            round_trip(json!({"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/a"}})),
            ContentBlock::ToolUse(_)
        ));
        assert!(matches!(
            round_trip(json!({"type":"tool_result","tool_use_id":"toolu_1","content":"ok"})),
            ContentBlock::ToolResult { is_error: false, .. }
        ));
        assert!(matches!(
            round_trip(
                json!({"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":true})
            ),
            ContentBlock::ToolResult { is_error: true, content: ToolResultContent::Blocks(_), .. }
        ));
        assert!(matches!(
            round_trip(json!({"type":"thinking","thinking":"hmm","signature":"sig=="})),
            ContentBlock::Thinking { .. }
        ));
        assert!(matches!(
            round_trip(json!({"type":"redacted_thinking","data":"opaque"})),
            ContentBlock::RedactedThinking { .. }
        ));
        assert!(matches!(
            round_trip(json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR"}})),
            ContentBlock::Image { .. }
        ));
        assert!(matches!(
            round_trip(
                json!({"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}})
            ),
            ContentBlock::Document { source: DocumentSource::Base64 { .. }, title: None }
        ));
    }

    #[test]
    fn unknown_blocks_are_kept_verbatim() {
        let v = json!({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"x"}});
        assert_eq!(round_trip(v.clone()), ContentBlock::Other(v));
    }
}
