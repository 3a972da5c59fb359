//! Scripted scenarios and the builders tests write them with.

use std::sync::atomic::{AtomicU64, Ordering};

use rein_protocol::{ContentBlock, ToolUse, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The responses the server gives, one per request, in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Scenario {
    pub steps: Vec<Step>,
    /// The answer to every summary request (a request without tools, as compaction
    /// sends), given without consuming a step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Reply>,
    /// The answers to auto-mode judge requests (their system prompt names the
    /// permission judge), in order, apart from the main steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judge: Vec<Step>,
    /// The answer to session-title requests (default "Fake session title").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Reply>,
    /// Requests whose system prompt contains the mark are answered from its own steps,
    /// in order, apart from the main steps: a subagent running beside the session
    /// (its definition's prompt carries the mark) gets its answers whatever the order
    /// its requests and the session's arrive in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routed: Vec<(String, Vec<Step>)>,
}

impl Scenario {
    pub fn new(steps: impl IntoIterator<Item = impl Into<Step>>) -> Self {
        Scenario { steps: steps.into_iter().map(Into::into).collect(), ..Scenario::default() }
    }

    /// Answer the auto-mode judge's requests with `steps`, in order.
    pub fn with_judge(mut self, steps: impl IntoIterator<Item = impl Into<Step>>) -> Self {
        self.judge = steps.into_iter().map(Into::into).collect();
        self
    }

    /// Answer requests whose system prompt contains `mark` with `steps`, in order.
    pub fn with_routed(mut self, mark: &str, steps: impl IntoIterator<Item = impl Into<Step>>) -> Self {
        self.routed.push((mark.to_string(), steps.into_iter().map(Into::into).collect()));
        self
    }

    /// Answer session-title requests with `text`.
    pub fn with_title(mut self, text: &str) -> Self {
        self.title = Some(reply([ContentBlock::text(text)]));
        self
    }

    /// Answer summary requests with `text`.
    pub fn with_summary(mut self, text: &str) -> Self {
        self.summary = Some(reply([ContentBlock::text(text)]));
        self
    }

    /// Read a scenario file (JSON).
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}

/// One answer of the server.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// A streamed response.
    Respond(Reply),
    /// An HTTP error; `body` is sent as JSON, or as-is when it is a string.
    HttpError {
        status: u16,
        body: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        retry_after: Option<u64>,
    },
    /// A 200 `text/event-stream` response with exactly this body.
    RawSse(String),
}

impl Step {
    /// An HTTP error with the Anthropic error JSON.
    pub fn api_error(status: u16, kind: &str, message: &str) -> Step {
        Step::HttpError {
            status,
            body: serde_json::json!({"type":"error","error":{"type":kind,"message":message},"request_id":"req_fake"}),
            retry_after: None,
        }
    }

    /// An HTTP error whose body is plain text.
    pub fn plain_error(status: u16, body: &str) -> Step {
        Step::HttpError { status, body: Value::String(body.to_string()), retry_after: None }
    }

    pub fn with_retry_after(self, seconds: u64) -> Step {
        match self {
            Step::HttpError { status, body, .. } => Step::HttpError { status, body, retry_after: Some(seconds) },
            other => other,
        }
    }
}

impl From<Reply> for Step {
    fn from(r: Reply) -> Step {
        Step::Respond(r)
    }
}

/// A streamed response: its blocks and how to stream them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reply {
    pub blocks: Vec<ContentBlock>,
    /// Defaults to `tool_use` when a block is a tool_use, else `end_turn`; set it to lie.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub usage: Usage,
    /// Pause before each event, in milliseconds.
    #[serde(default)]
    pub event_delay_ms: u64,
    /// Pause this long (ms) after the event with this index (counting from 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_after_event: Option<(usize, u64)>,
    /// Cut the connection after this many events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_after_events: Option<usize>,
    /// End the stream without `message_stop`.
    #[serde(default)]
    pub omit_message_stop: bool,
    /// Chat Completions only: send no usage at all (as some local servers do).
    #[serde(default)]
    pub omit_usage: bool,
    /// Keep the body open this long (ms) after the last event before ending it: a
    /// server whose chunked terminator arrives late.
    #[serde(default)]
    pub end_body_after_ms: u64,
    /// Size of each `partial_json` fragment of tool inputs (default 12).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_chunk: Option<usize>,
    #[serde(default = "default_model")]
    pub model: String,
}

fn default_model() -> String {
    "claude-fake-1".to_string()
}

/// A reply with these blocks.
pub fn reply(blocks: impl IntoIterator<Item = ContentBlock>) -> Reply {
    Reply {
        blocks: blocks.into_iter().collect(),
        stop_reason: None,
        usage: Usage { input_tokens: 10, output_tokens: 5, ..Usage::default() },
        event_delay_ms: 0,
        pause_after_event: None,
        drop_after_events: None,
        omit_message_stop: false,
        end_body_after_ms: 0,
        omit_usage: false,
        json_chunk: None,
        model: default_model(),
    }
}

impl Reply {
    pub fn stop_reason(mut self, reason: &str) -> Self {
        self.stop_reason = Some(reason.to_string());
        self
    }

    pub fn usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }

    pub fn event_delay_ms(mut self, ms: u64) -> Self {
        self.event_delay_ms = ms;
        self
    }

    /// Pause `ms` after event `index` (0 is message_start, 1 a ping, then the blocks).
    pub fn pause_after_event(mut self, index: usize, ms: u64) -> Self {
        self.pause_after_event = Some((index, ms));
        self
    }

    pub fn drop_after_events(mut self, n: usize) -> Self {
        self.drop_after_events = Some(n);
        self
    }

    /// Chat Completions only: no usage chunk.
    pub fn without_usage(mut self) -> Self {
        self.omit_usage = true;
        self
    }

    /// End the body only `ms` after `message_stop` was sent.
    pub fn end_body_after_ms(mut self, ms: u64) -> Self {
        self.end_body_after_ms = ms;
        self
    }

    pub fn without_message_stop(mut self) -> Self {
        self.omit_message_stop = true;
        self
    }

    /// The stop_reason the stream will claim.
    pub fn claimed_stop_reason(&self) -> String {
        self.stop_reason.clone().unwrap_or_else(|| {
            let tool = self.blocks.iter().any(|b| matches!(b, ContentBlock::ToolUse(_)));
            if tool { "tool_use" } else { "end_turn" }.to_string()
        })
    }
}

pub fn text(t: &str) -> ContentBlock {
    ContentBlock::text(t)
}

/// A tool_use block with a fresh unique id.
pub fn tool_use(name: &str, input: Value) -> ContentBlock {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    tool_use_with_id(&format!("toolu_fake_{n:05}"), name, input)
}

pub fn tool_use_with_id(id: &str, name: &str, input: Value) -> ContentBlock {
    ContentBlock::ToolUse(ToolUse { id: id.to_string(), name: name.to_string(), input })
}

pub fn thinking(thinking: &str, signature: &str) -> ContentBlock {
    ContentBlock::Thinking { thinking: thinking.to_string(), signature: signature.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scenario_files_round_trip() {
        let s = Scenario::new([
            Step::from(
                reply([text("hi"), tool_use_with_id("t1", "Glob", json!({"pattern":"*"}))]).stop_reason("end_turn"),
            ),
            Step::api_error(529, "overloaded_error", "Overloaded").with_retry_after(2),
            Step::RawSse("event: ping\ndata: {}\n\n".into()),
        ]);
        let text = serde_json::to_string(&s).unwrap();
        let back = Scenario::from_json(&text).unwrap();
        assert_eq!(back.steps.len(), 3);
        assert!(matches!(&back.steps[1], Step::HttpError { status: 529, retry_after: Some(2), .. }));
    }
}
