//! A remote MCP server behind OAuth 2.1, with its authorization server, on 127.0.0.1:
//! protected-resource metadata (RFC 9728), authorization-server metadata (RFC 8414),
//! dynamic client registration (RFC 7591), an authorization endpoint that approves at
//! once (the user clicking "Allow") and redirects with a code, a token endpoint for the
//! code (PKCE S256 checked) and refresh grants, and a Streamable HTTP MCP endpoint that
//! answers 401 with a `WWW-Authenticate` challenge to a request without a valid token.
//! Its one tool, `whoami`, returns the token it was called with.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use base64::Engine as _;
use serde_json::{Value, json};
use sha2::Digest as _;

/// What the server saw and how it behaves.
#[derive(Debug, Default)]
pub struct OAuthLog {
    /// Client ids registered.
    pub registrations: Vec<String>,
    /// Token grants in order: `authorization_code` or `refresh_token`.
    pub grants: Vec<String>,
    /// Bearer tokens the MCP endpoint received (valid or not).
    pub bearers: Vec<String>,
    /// Tokens the server no longer accepts (revoked by the test).
    pub revoked: Vec<String>,
    /// `expires_in` of the token the code grant issues.
    pub first_expires_in: u64,
    /// Every request is served without a token (an unauthenticated server, to compare).
    pub open: bool,
    issued: u64,
    codes: HashMap<String, String>,
    refresh: Vec<String>,
    valid: Vec<String>,
}

#[derive(Clone)]
struct Shared {
    log: Arc<Mutex<OAuthLog>>,
    base: String,
}

fn lock(log: &Mutex<OAuthLog>) -> MutexGuard<'_, OAuthLog> {
    log.lock().unwrap_or_else(|p| p.into_inner())
}

/// The running servers; dropped with the test.
pub struct OAuthMcpServer {
    pub base: String,
    pub log: Arc<Mutex<OAuthLog>>,
    _runtime: tokio::runtime::Runtime,
}

impl OAuthMcpServer {
    /// Start on a free port. The first access token expires after `first_expires_in` s.
    pub fn start(first_expires_in: u64) -> std::io::Result<OAuthMcpServer> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))?;
        let base = format!("http://{}", listener.local_addr()?);
        let log = Arc::new(Mutex::new(OAuthLog { first_expires_in, ..OAuthLog::default() }));
        let shared = Shared { log: log.clone(), base: base.clone() };
        let app = axum::Router::new()
            .route("/.well-known/oauth-protected-resource/mcp", get(resource_metadata))
            .route("/.well-known/oauth-protected-resource", get(resource_metadata))
            .route("/.well-known/oauth-authorization-server", get(server_metadata))
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .route("/mcp", post(mcp).get(|| async { StatusCode::METHOD_NOT_ALLOWED }))
            .with_state(shared);
        runtime.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(OAuthMcpServer { base, log, _runtime: runtime })
    }

    /// The MCP endpoint's URL.
    pub fn mcp_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    pub fn log(&self) -> MutexGuard<'_, OAuthLog> {
        lock(&self.log)
    }

    /// A token the server accepts, issued without a sign-in (access, refresh), valid for
    /// an hour.
    pub fn grant(&self) -> (String, String) {
        let token = issue(&mut self.log(), 3600);
        let text = |k: &str| token[k].as_str().unwrap_or_default().to_string();
        (text("access_token"), text("refresh_token"))
    }

    /// Serve without tokens from now on.
    pub fn open(&self) {
        self.log().open = true;
    }

    /// Stop accepting `token` (a revoked or server-side expired token).
    pub fn revoke(&self, token: &str) {
        let mut log = self.log();
        log.valid.retain(|t| t != token);
        log.revoked.push(token.to_string());
    }
}

async fn resource_metadata(State(s): State<Shared>) -> Response {
    axum::Json(json!({"resource": format!("{}/mcp", s.base), "authorization_servers": [s.base],
        "bearer_methods_supported": ["header"], "scopes_supported": ["mcp"]}))
    .into_response()
}

async fn server_metadata(State(s): State<Shared>) -> Response {
    let b = &s.base;
    axum::Json(json!({"issuer": b, "authorization_endpoint": format!("{b}/authorize"),
        "token_endpoint": format!("{b}/token"), "registration_endpoint": format!("{b}/register"),
        "response_types_supported": ["code"], "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"], "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": ["mcp"]}))
    .into_response()
}

async fn register(State(s): State<Shared>, axum::Json(body): axum::Json<Value>) -> Response {
    let mut log = lock(&s.log);
    let id = format!("client-{}", log.registrations.len() + 1);
    log.registrations.push(id.clone());
    let reply = json!({"client_id": id, "redirect_uris": body["redirect_uris"], "client_name": body["client_name"],
        "token_endpoint_auth_method": "none", "grant_types": ["authorization_code", "refresh_token"]});
    (StatusCode::CREATED, axum::Json(reply)).into_response()
}

async fn authorize(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let (Some(redirect), Some(state), Some(challenge)) =
        (q.get("redirect_uri"), q.get("state"), q.get("code_challenge"))
    else {
        return (StatusCode::BAD_REQUEST, "redirect_uri, state and code_challenge are required").into_response();
    };
    if q.get("code_challenge_method").map(String::as_str) != Some("S256")
        || q.get("response_type").map(String::as_str) != Some("code")
    {
        return (StatusCode::BAD_REQUEST, "PKCE S256 and response_type=code only").into_response();
    }
    let mut log = lock(&s.log);
    let code = format!("code-{}", log.codes.len() + 1);
    log.codes.insert(code.clone(), challenge.clone());
    let sep = if redirect.contains('?') { '&' } else { '?' };
    Redirect::to(&format!("{redirect}{sep}code={code}&state={state}")).into_response()
}

fn issue(log: &mut OAuthLog, expires_in: u64) -> Value {
    log.issued += 1;
    let (access, refresh) = (format!("at-{}", log.issued), format!("rt-{}", log.issued));
    log.valid.push(access.clone());
    log.refresh.push(refresh.clone());
    json!({"access_token": access, "token_type": "Bearer", "expires_in": expires_in, "refresh_token": refresh, "scope": "mcp"})
}

async fn token(State(s): State<Shared>, Form(f): Form<HashMap<String, String>>) -> Response {
    let mut log = lock(&s.log);
    let bad =
        |why: &str| (StatusCode::BAD_REQUEST, axum::Json(json!({"error": "invalid_grant", "error_description": why})));
    match f.get("grant_type").map(String::as_str) {
        Some("authorization_code") => {
            let Some(challenge) = f.get("code").and_then(|c| log.codes.remove(c)) else {
                return bad("unknown code").into_response();
            };
            let verifier = f.get("code_verifier").cloned().unwrap_or_default();
            let hashed =
                base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier.as_bytes()));
            if hashed != challenge {
                return bad("PKCE verification failed").into_response();
            }
            log.grants.push("authorization_code".into());
            let expires = log.first_expires_in;
            axum::Json(issue(&mut log, expires)).into_response()
        }
        Some("refresh_token") => {
            let Some(rt) = f.get("refresh_token").filter(|r| log.refresh.contains(r)).cloned() else {
                return bad("unknown refresh token").into_response();
            };
            log.refresh.retain(|r| *r != rt);
            log.grants.push("refresh_token".into());
            axum::Json(issue(&mut log, 3600)).into_response()
        }
        _ => bad("unsupported grant").into_response(),
    }
}

async fn mcp(State(s): State<Shared>, headers: HeaderMap, axum::Json(body): axum::Json<Value>) -> Response {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let ok = {
        let mut log = lock(&s.log);
        if let Some(b) = &bearer {
            log.bearers.push(b.clone());
        }
        log.open || bearer.as_ref().is_some_and(|b| log.valid.contains(b))
    };
    if !ok {
        let challenge = format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\"",
            s.base
        );
        return (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)], "").into_response();
    }
    let id = body["id"].clone();
    let result = match body["method"].as_str().unwrap_or("") {
        "initialize" => json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "oauth-fake", "version": "1.0.0"}}),
        "tools/list" => json!({"tools": [{"name": "whoami", "description": "The token of this call.",
            "inputSchema": {"type": "object", "properties": {}}, "annotations": {"readOnlyHint": true}}]}),
        "tools/call" => json!({"content": [{"type": "text", "text": format!("token {}", bearer.unwrap_or_default())}]}),
        _ if id.is_null() => return StatusCode::ACCEPTED.into_response(),
        _ => json!({}),
    };
    axum::Json(json!({"jsonrpc": "2.0", "id": id, "result": result})).into_response()
}
