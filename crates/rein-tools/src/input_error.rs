//! Why a call was refused before it ran: no such tool, an input the schema or the
//! input type does not take, or the tool's own checks. The model gets the message as
//! the call's `is_error` result and may try again.

/// A call refused before it ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// No tool by that name; `why` when a server that would offer it is not there.
    #[error("No such tool available: {name}{}", why.as_deref().map(|w| format!(". {w}")).unwrap_or_default())]
    NoSuchTool { name: String, why: Option<String> },
    /// The input does not fit the tool's schema or type: each problem found.
    #[error("InputValidationError: {tool} failed due to the following issue(s):\n- {}", problems.join("\n- "))]
    Invalid { tool: String, problems: Vec<String> },
    /// The tool's schema (a server's definition) does not compile.
    #[error("the input schema of {tool} does not compile: {why}")]
    BadSchema { tool: String, why: String },
    /// The tool's own checks refused the input: what is wrong and what to do instead.
    #[error("{0}")]
    Refused(String),
}

impl From<String> for InputError {
    fn from(why: String) -> Self {
        InputError::Refused(why)
    }
}

impl From<&str> for InputError {
    fn from(why: &str) -> Self {
        InputError::Refused(why.to_string())
    }
}

impl From<crate::WallError> for InputError {
    fn from(why: crate::WallError) -> Self {
        InputError::Refused(why.to_string())
    }
}
