//! Why a server could not be reached, signed in to or asked, with the cause kept, and
//! whether credentials would fix it ([`ServerError::needs_auth`]).

use std::time::Duration;

/// Why a server could not be reached or asked.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("cannot start {command}: {source}")]
    Start { command: String, source: std::io::Error },
    #[error("{0}")]
    Handshake(Box<rmcp::service::ClientInitializeError>),
    #[error("{what}: {source}")]
    Request { what: &'static str, source: rmcp::ServiceError },
    #[error("header {name:?}: {source}")]
    Header { name: String, source: Box<dyn std::error::Error + Send + Sync> },
    #[error("cannot start an HTTP client: {0}")]
    HttpClient(#[source] reqwest::Error),
    #[error(transparent)]
    Credentials(#[from] crate::oauth::OAuthError),
    #[error("authorization required: {0}")]
    Token(#[source] Box<dyn std::error::Error + Send + Sync>),
    #[error("an in-process (\"sdk\") server needs the Agent SDK that hosts it")]
    NoHost,
    #[error(transparent)]
    HeadersHelper(#[from] HelperError),
    #[error(transparent)]
    Sse(#[from] crate::sse::SseError),
    #[error("Connection to MCP server \"{server}\" timed out after {}ms", after.as_millis())]
    TimedOut { server: String, after: Duration },
    /// A connection made again (after the server stopped, `/mcp reconnect`) failed.
    #[error("MCP server \"{server}\" {failing}: {source}")]
    Again { server: String, failing: &'static str, source: Box<ServerError> },
    #[error(
        "no connected MCP server named {0:?} (a server that failed to start is retried when the session starts again)"
    )]
    NotConnected(String),
    #[error("no MCP server named {0:?} in this session")]
    Unknown(String),
    /// No server of the session has that name (the SDK's wording).
    #[error("Server not found: {0}")]
    NotFound(String),
    /// Held back at the start (the managed policy, a project server not approved): it
    /// cannot be turned on from a session.
    #[error("MCP server \"{server}\" cannot be turned on here: {why}")]
    Held { server: String, why: String },
    #[error("no MCP servers are running in this session")]
    NoneRunning,
    #[error("signing in to {server} failed: {source}")]
    SignIn { server: String, source: Box<crate::oauth::OAuthError> },
    #[error("Signed in to {server}, but it is {status}: {why}")]
    StillDown { server: String, status: String, why: String },
    /// `/mcp__server__prompt`: no such prompt, a missing argument, an answer rein cannot use.
    #[error("{0}")]
    Prompt(String),
}

impl From<rmcp::service::ClientInitializeError> for ServerError {
    fn from(e: rmcp::service::ClientInitializeError) -> Self {
        ServerError::Handshake(Box::new(e))
    }
}

impl ServerError {
    /// Refused for want of credentials (HTTP 401/403, an auth challenge): `rein mcp
    /// login` would help. The transports report these as text, so the text is read.
    pub fn needs_auth(&self) -> bool {
        match self {
            ServerError::Token(_) => true,
            ServerError::Again { source, .. } => source.needs_auth(),
            other => crate::needs_auth(&other.to_string()),
        }
    }
}

/// Why a server's `headersHelper` gave no headers.
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    #[error("headersHelper {0:?} took more than 10 s")]
    TimedOut(String),
    #[error("headersHelper {helper:?}: {source}")]
    Run { helper: String, source: std::io::Error },
    #[error("headersHelper {helper:?} failed: {stderr}")]
    Failed { helper: String, stderr: String },
    #[error("headersHelper {helper:?} did not print a JSON object{}", source.as_ref().map(|e| format!(": {e}")).unwrap_or_default())]
    NotJson { helper: String, source: Option<serde_json::Error> },
}
