//! How a run ended ([`End`]) and its record ([`Outcome`]): turns, usage, cost, the last
//! text and the calls the permission stage refused — what the result line reports.

use std::time::Duration;

use rein_protocol::{ToolUse, Usage};

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The model answered without asking for a tool.
    Completed,
    /// `--max-turns` was reached.
    MaxTurns,
    /// `--max-budget-usd` was reached.
    MaxBudget,
    /// The user interrupted; every unanswered call was answered "Interrupted by user".
    Interrupted,
    /// A PreToolUse hook deferred this call: the session stops with it unanswered, and
    /// `--resume` runs it.
    Deferred(rein_protocol::ToolUse),
    /// A hook said `continue: false`; the reason is for the user.
    Stopped(String),
    /// The run failed; the error says why, on one line.
    Failed(crate::EngineError),
}

/// The record of one run, for the result line.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub end: End,
    /// Model requests made.
    pub num_turns: u32,
    pub usage: Usage,
    pub cost_usd: f64,
    /// Time spent waiting on the model.
    pub api_duration: Duration,
    /// The text of the last assistant message.
    pub result_text: String,
    pub stop_reason: Option<String>,
    /// Calls the permission stage refused, in order.
    pub permission_denials: Vec<ToolUse>,
}

impl Outcome {
    /// A run that failed before any request (a prompt that could not be put together).
    pub fn not_sent(error: crate::EngineError) -> Self {
        Outcome::without_request(error.to_string(), End::Failed(error))
    }

    /// A request the session answered itself, without the model (a slash command such
    /// as `/context` sent as a prompt): `text` is its result.
    pub fn answered(text: String) -> Self {
        Outcome::without_request(text, End::Completed)
    }

    /// A run that made no model request, ending with `text`.
    fn without_request(result_text: String, end: End) -> Self {
        Outcome {
            result_text,
            end,
            num_turns: 0,
            usage: Usage::default(),
            cost_usd: 0.0,
            api_duration: Duration::ZERO,
            stop_reason: None,
            permission_denials: Vec::new(),
        }
    }

    pub fn is_error(&self) -> bool {
        !matches!(self.end, End::Completed | End::Stopped(_) | End::Deferred(_))
    }
}
