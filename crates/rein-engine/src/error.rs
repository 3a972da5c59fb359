//! The ways a turn can fail, typed. Each renders as the one line the user sees.

/// Why a run ended in failure.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The model request failed (after its retries and recoveries): kept typed, so a
    /// frontend can tell a 401 from a 529.
    #[error("{0}")]
    Model(rein_model::ModelError),
    /// The conversation could not be recorded or serialised for a request.
    #[error("the conversation cannot be sent: {0}")]
    History(String),
    /// A UserPromptSubmit hook blocked the prompt.
    #[error("the prompt was blocked by the UserPromptSubmit hook `{hook}`: {reason}")]
    PromptBlocked { hook: String, reason: String },
    /// A UserPromptSubmit hook said `continue: false`.
    #[error("a UserPromptSubmit hook stopped the session: {0}")]
    PromptStopped(String),
    /// A call deferred by a hook was deferred again when the session was resumed.
    #[error("the {tool} call {id} was deferred again by a hook")]
    DeferredAgain { tool: String, id: String },
    /// Summarising the conversation failed (a PreCompact hook blocked it, the summary
    /// request failed, or it came back empty).
    #[error("{0}")]
    Compaction(String),
    /// A side question (`/btw`) got no answer: the response ended early or was empty.
    #[error("the side question got no answer: {0}")]
    SideQuestion(String),
    /// The model ended its turn without the tool it must call (`--json-schema`), even
    /// after reminders.
    #[error("the model did not call {tool} after {reminders} reminders")]
    RequiredToolNotCalled { tool: String, reminders: u32 },
}

impl From<rein_model::ModelError> for EngineError {
    /// A model-layer error met while keeping the conversation (serialising a message).
    fn from(e: rein_model::ModelError) -> Self {
        EngineError::History(e.to_string())
    }
}

/// Why a rewind did not happen.
#[derive(Debug, thiserror::Error)]
pub enum RewindFailed {
    #[error("the files were not restored: {0}")]
    Files(rein_tools::RewindError),
    #[error("the conversation was not rewound: {0}")]
    Conversation(EngineError),
}

impl RewindFailed {
    /// The files changed outside rein since their checkpoint, when that stopped the
    /// rewind (the person may say to overwrite them).
    pub fn changed_outside(&self) -> Option<&[std::path::PathBuf]> {
        match self {
            RewindFailed::Files(rein_tools::RewindError::ChangedOutside(paths)) => Some(paths),
            _ => None,
        }
    }
}
