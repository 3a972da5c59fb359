//! The `Approver` the engine asks: each question goes to the UI with the options the
//! dialog offers, and the engine's task waits for the person's answer.

use futures::future::BoxFuture;
use rein_policy::{Call, Decision, SharedPolicy};
use rein_protocol::ToolUse;
use rein_session::events::{Answer, Approver, PermissionQuestion};
use tokio::sync::{mpsc, oneshot};

/// A question waiting for the person.
pub struct Question {
    pub call: ToolUse,
    pub decision: Decision,
    /// The rules "don't ask again" would remember (empty for file edits).
    pub remember: Vec<String>,
    /// The call writes files: option 2 allows all edits for the session instead.
    pub edits: bool,
    /// AskUserQuestion: the answers given so far, one per question.
    pub progress: Vec<String>,
    /// A sandboxed command's connection, not a tool call: "No" refuses the host only.
    pub network: bool,
    /// AskUserQuestion: the options ticked on the question being answered.
    pub checked: Vec<usize>,
    /// AskUserQuestion: answers taken back with ←, the latest last; → gives them again.
    pub undone: Vec<String>,
    /// AskUserQuestion: what is ticked on each question, so that going back and forth
    /// finds the ticks again.
    pub ticked: Vec<Vec<usize>>,
    pub reply: oneshot::Sender<Answer>,
}

/// Sends questions to the UI.
pub struct TuiApprover {
    pub questions: mpsc::UnboundedSender<Question>,
    pub policy: SharedPolicy,
}

impl Approver for TuiApprover {
    fn approve<'a>(&'a self, question: PermissionQuestion<'a>) -> BoxFuture<'a, Answer> {
        let network = matches!(question, PermissionQuestion::Network { .. });
        let (call, decision, effects) = question.as_call();
        let (call, decision, effects) = (&call, &decision, &effects);
        let policy = self.policy.get();
        let remember = policy.suggested_rules(&Call { tool: &call.name, input: &call.input, effects });
        let edits = effects.shell.is_none() && !effects.writes.is_empty();
        let (reply, answer) = oneshot::channel();
        let question = Question {
            call: call.clone(),
            decision: decision.clone(),
            remember,
            edits,
            progress: Vec::new(),
            checked: Vec::new(),
            undone: Vec::new(),
            ticked: Vec::new(),
            network,
            reply,
        };
        let sent = self.questions.send(question).is_ok();
        Box::pin(async move {
            if !sent {
                return Answer::no();
            }
            answer.await.unwrap_or_else(|_| Answer::no())
        })
    }
}
