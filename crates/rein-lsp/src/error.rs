//! What can go wrong with a language server, said so the model (or the person) can act.

/// A server entry that cannot be used, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: language server \"{name}\": {reason}")]
pub struct SpecError {
    pub name: String,
    pub origin: String,
    pub reason: String,
}

/// A language server that could not answer.
#[derive(Debug, thiserror::Error)]
pub enum LspError {
    #[error("no language server handles {0} files")]
    NoServer(String),
    #[error("the language server {server} could not be started ({command}): {source}")]
    Start { server: String, command: String, source: std::io::Error },
    #[error("the language server {server} did not finish starting within {seconds} s{stderr}")]
    StartTimeout { server: String, seconds: u64, stderr: String },
    #[error("the language server {server} stopped{stderr}")]
    Stopped { server: String, stderr: String },
    #[error(
        "the language server {server} is not started: it would read {file}, which the Read rules keep from the model (what it says of the code could quote it)"
    )]
    Protected { server: String, file: String },
    #[error("the language server {server} is not used this session: {why}")]
    Failed { server: String, why: String },
    #[error("the language server {server} has stopped {times} times and is not started again this session")]
    GaveUp { server: String, times: u32 },
    #[error("the language server {server} answered {method} with an error: {message}")]
    Answer { server: String, method: &'static str, message: String },
    #[error("the language server {server} did not answer {method} within {seconds} s")]
    Timeout { server: String, method: &'static str, seconds: u64 },
    #[error("could not read {path}: {source}")]
    Read { path: String, source: std::io::Error },
}
