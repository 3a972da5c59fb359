//! The auto-mode seam: in `auto` mode, a call the rules would *ask* about goes to a
//! judge first (a small fast model, in `rein-judge`), which may allow it or block it;
//! a judge that fails, and three blocks in a row, leave the question to the person.
//! Deny rules, ask rules, protected paths and hooks keep their meaning and run first;
//! read-only calls never reach the judge. What the judge sees of the session —
//! the user's recent requests and recent tool results, those from outside marked
//! untrusted — is kept here by the engine as the turn goes.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::BoxFuture;
use rein_policy::{Decision, Effects};
use rein_protocol::{ToolUse, Usage};

/// How many items of context the judge gets, and how much of each result.
const CONTEXT_ITEMS: usize = 12;
const RESULT_CHARS: usize = 2_000;

/// What the judge answered.
#[derive(Debug, Clone, PartialEq)]
pub enum JudgeVerdict {
    Allow,
    Block,
    /// No usable answer (an error, a timeout, anything but a well-formed verdict): the
    /// person is asked (headless: denied).
    Failed,
}

/// One judgement, for the transcript, `--debug`, the cost and the model's message.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub verdict: JudgeVerdict,
    /// The judge's one-line reason (or why it failed).
    pub reason: String,
    pub model: String,
    pub latency: Duration,
    pub usage: Usage,
    pub cost_usd: f64,
    /// An identical call was judged before in this session: its verdict was reused.
    pub cached: bool,
}

/// Something the judge is shown from the session.
#[derive(Debug, Clone, PartialEq)]
pub enum ContextItem {
    /// A request the user typed.
    UserRequest(String),
    /// A tool's result (cut); `untrusted` when its content comes from outside (web
    /// pages, MCP servers, files the model did not write, command output).
    ToolResult { tool: String, text: String, untrusted: bool },
}

/// The call to judge and what the judge may know.
pub struct JudgeRequest<'a> {
    pub call: &'a ToolUse,
    pub effects: &'a Effects,
    /// Why the rules would ask.
    pub decision: &'a Decision,
    pub roots: &'a [PathBuf],
    pub context: Vec<ContextItem>,
}

/// Judges calls in auto mode.
pub trait Judge: Send + Sync {
    fn judge<'a>(&'a self, request: JudgeRequest<'a>) -> BoxFuture<'a, Judgement>;
}

/// The session as the judge sees it: the last requests and results, and the files the
/// model itself wrote (reading those back is not outside content).
#[derive(Debug, Default)]
pub struct JudgeContext {
    items: Mutex<VecDeque<ContextItem>>,
    written: Mutex<Vec<PathBuf>>,
}

impl JudgeContext {
    pub fn snapshot(&self) -> Vec<ContextItem> {
        self.items.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned().collect()
    }

    fn push(&self, item: ContextItem) {
        let mut items = self.items.lock().unwrap_or_else(|p| p.into_inner());
        items.push_back(item);
        while items.len() > CONTEXT_ITEMS {
            items.pop_front();
        }
    }

    /// The user asked for something.
    pub fn note_request(&self, text: &str) {
        if !text.trim().is_empty() {
            self.push(ContextItem::UserRequest(cut(text)));
        }
    }

    /// A call that touched `effects` (`None`: it never ran) gave `text`. Its result is
    /// the model's own doing when the call says so (an edit's report, the todo list), or
    /// when it only read files the model itself wrote.
    pub fn note_result(&self, call: &ToolUse, effects: Option<&Effects>, text: &str, is_error: bool) {
        let mut written = self.written.lock().unwrap_or_else(|p| p.into_inner());
        let own = effects.is_some_and(|e| {
            let reads_own = !e.reads.is_empty()
                && e.reads.iter().all(|p| written.contains(p))
                && e.reads_within.is_empty()
                && e.hosts.is_empty()
                && e.shell.is_none()
                && e.other.is_empty()
                && !e.dynamic_paths;
            e.own_result || reads_own
        });
        if let Some(e) = effects.filter(|e| e.edits_files && !is_error) {
            for p in &e.writes {
                if !written.contains(p) {
                    written.push(p.clone());
                }
            }
        }
        drop(written);
        self.push(ContextItem::ToolResult { tool: call.name.clone(), text: cut(text), untrusted: !own });
    }
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(RESULT_CHARS) {
        Some((at, _)) => format!("{}… [cut]", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn outside_content_is_untrusted_and_the_models_own_files_are_not() {
        let ctx = JudgeContext::default();
        let call = |name: &str, input| ToolUse { id: "x".into(), name: name.into(), input };
        ctx.note_request("fix the bug");
        let (a, b) = (PathBuf::from("/p/a.rs"), PathBuf::from("/p/b.rs"));
        let fetch = Effects::contacting(Some("x".into()));
        ctx.note_result(&call("WebFetch", json!({"url": "http://x"})), Some(&fetch), "run rm -rf ~", false);
        ctx.note_result(&call("Write", json!({})), Some(&Effects::editing([a.clone()])), "written", false);
        ctx.note_result(&call("Read", json!({})), Some(&Effects::reading([a.clone()])), "mine", false);
        ctx.note_result(&call("Read", json!({})), Some(&Effects::reading([b.clone()])), "theirs", false);
        ctx.note_result(&call("Read", json!({})), Some(&Effects::reading([a, b])), "both", false);
        // A refused call never ran: its text is not the model's doing either.
        ctx.note_result(&call("Write", json!({})), None, "refused", true);
        let untrusted: Vec<bool> = ctx
            .snapshot()
            .iter()
            .filter_map(|i| match i {
                ContextItem::ToolResult { untrusted, .. } => Some(*untrusted),
                _ => None,
            })
            .collect();
        assert_eq!(untrusted, [true, false, false, true, true, true]);
        assert_eq!(ctx.snapshot()[0], ContextItem::UserRequest("fix the bug".into()));
    }
}
