//! The `Approver` seam: what the permission stage asks ([`PermissionQuestion`]), who
//! answers (the terminal's dialog, an Agent SDK program's `can_use_tool`, a
//! permission-prompt tool) and the [`Answer`].

use futures::future::BoxFuture;
use rein_policy::{Decision, Effects};
use rein_protocol::ToolUse;
use serde_json::Value;

/// A person's answer to a question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    pub allow: bool,
    /// Rules (as written in settings) to allow for the rest of the session; the
    /// frontend keeps them where the person asked (`.claude/settings.local.json`).
    pub remember: Vec<String>,
    /// For the model: what to do instead, or a note with an approval.
    pub message: Option<String>,
    /// The call's input as the person edited it.
    pub updated_input: Option<Value>,
    /// A refusal's `message` is all the model reads of it, as given (an SDK program's
    /// callback), not a note added to rein's own words (a person's).
    pub verbatim: bool,
}

impl Answer {
    pub fn yes() -> Self {
        Answer { allow: true, ..Answer::default() }
    }

    pub fn no() -> Self {
        Answer::default()
    }

    /// No, with `message` for the model.
    pub fn refuse(message: impl Into<String>) -> Self {
        Answer { message: Some(message.into()), ..Answer::default() }
    }
}

/// What is asked.
#[derive(Debug, Clone, Copy)]
pub enum PermissionQuestion<'a> {
    /// May this tool call run? With why it is asked, and what it touches.
    Call { call: &'a ToolUse, decision: &'a Decision, effects: &'a Effects },
    /// May a sandboxed command connect to `host:port`, which no sandbox rule decides?
    /// Remembered as `WebFetch(domain:HOST)`, which the sandbox reads as allowed.
    Network { host: &'a str, port: u16, decision: &'a Decision },
}

/// Answers the questions the policy asks (the TUI dialog, the Agent SDK's
/// `can_use_tool`, a permission-prompt tool).
pub trait Approver: Send + Sync {
    fn approve<'a>(&'a self, question: PermissionQuestion<'a>) -> BoxFuture<'a, Answer>;

    /// Whether every call the rules ask about is put to this asker, as Claude Code puts
    /// them to a program's permission callback, rather than a shell command being tried
    /// first where it can change nothing and asked about only for what it would change.
    fn wants_every_question(&self) -> bool {
        false
    }
}
