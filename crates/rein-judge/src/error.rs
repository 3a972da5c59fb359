//! Why a small-model question got no usable answer.

/// The request gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    #[error("the request failed: {0}")]
    Request(#[source] rein_model::ModelError),
    #[error("the response ended early")]
    EndedEarly,
}

/// The answer is not the JSON object asked for (its first line, cut, is kept).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("not a JSON answer: {0}")]
    NotJson(String),
    #[error("not a JSON verdict: {0}")]
    NotAVerdict(String),
    #[error("a verdict without a reason: {0}")]
    NoReason(String),
    #[error("a verdict that is neither allow nor block: {0}")]
    NoDecision(String),
    #[error("an answer without a boolean `ok`")]
    NoOk,
}

/// Why the auto-mode judge gave no verdict.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("the judge: {0}")]
    Ask(#[source] AskError),
    #[error(transparent)]
    Answer(#[from] AnswerError),
}

/// Why a session got no title.
#[derive(Debug, thiserror::Error)]
pub enum TitleError {
    #[error(transparent)]
    Ask(#[from] AskError),
    #[error("the model gave no title")]
    Empty,
}
