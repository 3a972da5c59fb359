//! One connection to one server, on rmcp: a stdio child in its own process group
//! (registered with rein-process so it never outlives rein, stderr silenced, rein's own
//! credentials removed from its environment unless the entry names them), or a
//! Streamable HTTP endpoint with the entry's headers. Legacy `initialize` with protocol
//! 2025-11-25, as Claude Code speaks it; `roots` answered with the session's
//! directory; elicitations handed to the session's elicitor.

#![allow(deprecated)] // Roots are deprecated by SEP-2577, but servers still ask for them.

use crate::error::{HelperError, ServerError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, Implementation, ListRootsResult, ProtocolVersion, Root, Tool, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt};

use crate::config::{ServerConfig, Transport};

/// rein's side of a connection.
#[derive(Clone)]
pub struct Handler {
    root: PathBuf,
    /// Woken when the server says its tool list changed.
    tools_changed: Arc<tokio::sync::Notify>,
    /// The server's name, for its elicitations.
    server: String,
    /// Who answers the server's requests for input (none: they are declined).
    elicitor: crate::elicit::SharedElicitor,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::builder().enable_roots().enable_roots_list_changed().build();
        // Form and URL elicitation, as Claude Code offers them.
        capabilities.elicitation = Some(
            ElicitationCapability::new()
                .with_form(FormElicitationCapability::new())
                .with_url(UrlElicitationCapability::new()),
        );
        ClientConfig::new(capabilities, Implementation::new("rein", env!("CARGO_PKG_VERSION")))
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn list_roots(&self, _: RequestContext<RoleClient>) -> Result<ListRootsResult, rmcp::ErrorData> {
        Ok(ListRootsResult::new(vec![Root::new(format!("file://{}", self.root.display()))]))
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let request = crate::elicit::request(&self.server, params);
        let answer = match &self.elicitor {
            Some(e) => e.elicit(request).await,
            None => crate::elicit::ElicitAnswer::decline(),
        };
        Ok(crate::elicit::result(answer))
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.tools_changed.notify_one();
    }
}

/// A connected server.
pub struct Connection {
    pub service: RunningService<RoleClient, Handler>,
    pub tools: Vec<Tool>,
    pub instructions: Option<String>,
    /// Woken when the server's tool list changed (`notifications/tools/list_changed`).
    pub tools_changed: Arc<tokio::sync::Notify>,
    /// The stdio server's process group, killed when the connection goes (and when rein
    /// exits).
    pub _group: Option<rein_process::GroupGuard>,
}

/// What the session tells every stdio server about itself.
pub struct SessionFacts<'a> {
    pub cwd: &'a Path,
    pub session_id: &'a str,
    /// The Agent SDK host's tunnel, for its in-process servers.
    pub tunnel: Option<&'a crate::tunnel::TunnelHandle>,
    /// Who answers servers' requests for input.
    pub elicitor: Option<&'a Arc<dyn crate::Elicitor>>,
}

/// Connect to `server` and list its tools, within `timeout`.
pub async fn connect(
    server: &ServerConfig,
    facts: &SessionFacts<'_>,
    timeout: Duration,
) -> Result<Connection, ServerError> {
    let tools_changed = Arc::new(tokio::sync::Notify::new());
    let handler = Handler {
        root: facts.cwd.to_path_buf(),
        tools_changed: tools_changed.clone(),
        server: server.name.clone(),
        elicitor: facts.elicitor.cloned(),
    };
    let run = async {
        let (service, group) = match &server.transport {
            Transport::Stdio { command, args, env } => {
                let mut cmd = tokio::process::Command::new(command);
                cmd.args(args).current_dir(facts.cwd).process_group(0).kill_on_drop(true);
                rein_process::dies_with_rein(cmd.as_std_mut());
                // rein's own credentials never reach a server, unless its entry names them.
                rein_process::env::for_child(cmd.as_std_mut());
                cmd.env("CLAUDECODE", "1")
                    .env("CLAUDE_PROJECT_DIR", facts.cwd)
                    .env("CLAUDE_CODE_SESSION_ID", facts.session_id)
                    .envs(env);
                let (transport, _) = TokioChildProcess::builder(cmd)
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .map_err(|source| ServerError::Start { command: command.clone(), source })?;
                let group = rein_process::GroupGuard::new(transport.id());
                let service = handler.clone().serve(transport).await?;
                (service, Some(group))
            }
            Transport::Http { url, headers } => {
                let headers = with_helper(headers, server.headers_helper.as_deref()).await?;
                let mut map = HashMap::new();
                for (k, v) in &headers {
                    let bad = |e: Box<dyn std::error::Error + Send + Sync>| ServerError::Header {
                        name: k.clone(),
                        source: e,
                    };
                    let name = k.parse::<reqwest::header::HeaderName>().map_err(|e| bad(Box::new(e)))?;
                    let value = v.parse::<reqwest::header::HeaderValue>().map_err(|e| bad(Box::new(e)))?;
                    map.insert(name, value);
                }
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(map);
                let client = rein_tls::client_builder().build().map_err(ServerError::HttpClient)?;
                // Signed in (`rein mcp login`): the token goes with every request, refreshed
                // before it expires and after a 401.
                let authorized = crate::oauth::stored_authorization(server).await?;
                let service = match authorized {
                    Some(manager) => {
                        let client = rmcp::transport::auth::AuthClient::new(client, manager);
                        handler.clone().serve(StreamableHttpClientTransport::with_client(client, config)).await
                    }
                    None => handler.clone().serve(StreamableHttpClientTransport::with_client(client, config)).await,
                };
                (service?, None)
            }
            Transport::Sdk => {
                let tunnel = facts.tunnel.ok_or(ServerError::NoHost)?.clone();
                let halves = crate::tunnel::halves(tunnel, server.name.clone());
                (handler.clone().serve(halves).await?, None)
            }
            Transport::Sse { url, headers } => {
                let mut headers = with_helper(headers, server.headers_helper.as_deref()).await?;
                // Signed in: the token (refreshed first when it is about to expire) goes
                // with the stream's requests.
                if let Some(manager) = crate::oauth::stored_authorization(server).await? {
                    let token = manager.get_access_token().await.map_err(|e| ServerError::Token(Box::new(e)))?;
                    headers.insert("Authorization".into(), format!("Bearer {token}"));
                }
                let halves = crate::sse::connect(url, &headers, timeout).await?;
                (handler.clone().serve(halves).await?, None)
            }
        };
        let tools =
            service.list_all_tools().await.map_err(|source| ServerError::Request { what: "tools/list", source })?;
        let instructions = service.peer_info().and_then(|i| i.instructions.clone());
        Ok(Connection { service, tools, instructions, tools_changed, _group: group })
    };
    match tokio::time::timeout(timeout, run).await {
        Ok(r) => r,
        Err(_) => Err(ServerError::TimedOut { server: server.name.clone(), after: timeout }),
    }
}

/// `headers` with those `helper` prints (a JSON object of strings) on top; the helper
/// has 10 seconds.
async fn with_helper(
    headers: &std::collections::BTreeMap<String, String>,
    helper: Option<&str>,
) -> Result<std::collections::BTreeMap<String, String>, HelperError> {
    let mut out = headers.clone();
    let Some(helper) = helper else { return Ok(out) };
    let mut cmd = tokio::process::Command::new("sh");
    cmd.args(["-c", helper]).stdin(std::process::Stdio::null()).kill_on_drop(true);
    rein_process::env::for_child(cmd.as_std_mut());
    let output = tokio::time::timeout(Duration::from_secs(10), cmd.output())
        .await
        .map_err(|_| HelperError::TimedOut(helper.to_string()))?
        .map_err(|source| HelperError::Run { helper: helper.to_string(), source })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        return Err(HelperError::Failed { helper: helper.to_string(), stderr });
    }
    let value: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| HelperError::NotJson { helper: helper.to_string(), source: Some(e) })?;
    let obj = value.as_object().ok_or_else(|| HelperError::NotJson { helper: helper.to_string(), source: None })?;
    for (k, v) in obj {
        if let Some(v) = v.as_str() {
            out.insert(k.clone(), v.to_string());
        }
    }
    Ok(out)
}
