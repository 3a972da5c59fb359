//! OAuth 2.1 for HTTP servers, as the MCP specification and Claude Code have it, on
//! rmcp's auth support: discovery from the server's 401 (protected-resource metadata,
//! RFC 9728; authorization-server metadata, RFC 8414, OpenID discovery as fallback),
//! dynamic client registration (RFC 7591) or the entry's `oauth.clientId`, the
//! authorization code with PKCE (S256) through a loopback redirect on 127.0.0.1, and
//! tokens kept per server ([`crate::oauth_store`]), refreshed before they expire and
//! after a 401. The browser opens through `$BROWSER` or `xdg-open`; the URL is always
//! shown too.

use std::time::Duration;

use rmcp::transport::auth::{AuthorizationManager, AuthorizationMetadata, AuthorizationRequest, OAuthState};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::{ServerConfig, Transport};
use crate::oauth_store::TokenStore;

/// How long a sign-in may take in the browser.
const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(300);

/// Why a login or an authorized connection failed.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    #[error("MCP server \"{0}\" is not an HTTP server; only HTTP and SSE servers sign in with OAuth")]
    NotHttp(String),
    #[error("no home folder to keep the tokens in (set HOME or CLAUDE_CONFIG_DIR)")]
    NoHome,
    #[error("cannot listen for the sign-in's redirect on 127.0.0.1:{port}: {error}")]
    Listen { port: u16, error: std::io::Error },
    #[error("the sign-in did not finish within {} minutes", SIGN_IN_TIMEOUT.as_secs() / 60)]
    TimedOut,
    #[error("the authorization server refused: {0}")]
    Refused(String),
    #[error("{0}")]
    Auth(#[from] rmcp::transport::auth::AuthError),
    #[error("{0}")]
    Store(#[from] crate::oauth_store::CredentialsError),
    #[error("cannot make the HTTP client: {0}")]
    Client(#[source] reqwest::Error),
}

/// The URL of a server that may use OAuth.
pub fn server_url(server: &ServerConfig) -> Option<&str> {
    match &server.transport {
        Transport::Http { url, .. } | Transport::Sse { url, .. } => Some(url),
        _ => None,
    }
}

async fn manager(server: &ServerConfig, url: &str, store: TokenStore) -> Result<AuthorizationManager, OAuthError> {
    let mut manager = AuthorizationManager::new(url).await?;
    if let Some(meta_url) = server.oauth.as_ref().and_then(|o| o.auth_server_metadata_url.as_deref()) {
        let client = rein_tls::client_builder().build().map_err(OAuthError::Client)?;
        let metadata: AuthorizationMetadata =
            async { client.get(meta_url).send().await?.error_for_status()?.json().await }
                .await
                .map_err(|e: reqwest::Error| OAuthError::Refused(format!("authServerMetadataUrl {meta_url}: {e}")))?;
        manager.set_metadata(metadata);
    }
    manager.set_credential_store(store);
    Ok(manager)
}

/// The authorization for a connection to `server`, when tokens are stored for it.
pub async fn stored_authorization(server: &ServerConfig) -> Result<Option<AuthorizationManager>, OAuthError> {
    let Some(url) = server_url(server) else { return Ok(None) };
    let Some(store) = TokenStore::for_server(server, url) else { return Ok(None) };
    match store.read() {
        Ok(Some(c)) if c.token_response.is_some() => {}
        Ok(_) => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let mut manager = manager(server, url, store).await?;
    Ok(manager.initialize_from_store().await?.then_some(manager))
}

/// A sign-in under way: the URL to open, and the wait for the browser's redirect.
pub struct PendingLogin {
    pub url: String,
    state: OAuthState,
    listener: tokio::net::TcpListener,
    redirect: String,
}

/// Start signing in to `server`: discover, register (or use the configured client),
/// and listen for the redirect. Open [`PendingLogin::url`], then [`PendingLogin::finish`].
pub async fn begin_login(server: &ServerConfig) -> Result<PendingLogin, OAuthError> {
    let url = server_url(server).ok_or_else(|| OAuthError::NotHttp(server.name.clone()))?;
    let store = TokenStore::for_server(server, url).ok_or(OAuthError::NoHome)?;
    let config = server.oauth.clone().unwrap_or_default();
    let port = config.callback_port.unwrap_or(0);
    let listener =
        tokio::net::TcpListener::bind(("127.0.0.1", port)).await.map_err(|error| OAuthError::Listen { port, error })?;
    let port = listener.local_addr().map_err(|error| OAuthError::Listen { port, error })?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let mut state = OAuthState::Unauthorized(manager(server, url, store).await?);
    let mut request = AuthorizationRequest::new(&redirect).with_client_name("rein");
    if let Some(id) = &config.client_id {
        request = request.with_preregistered_client(id);
    }
    if let Some(scopes) = &config.scopes {
        request = request.with_scopes(scopes.split_whitespace());
    }
    if let Some(challenge) = challenge(url).await {
        request = request.with_challenge(challenge);
    }
    state.start_authorization(request).await?;
    let url = state.get_authorization_url().await?;
    Ok(PendingLogin { url, state, listener, redirect })
}

/// The server's `WWW-Authenticate` challenge to a request without a token, if it gives one.
async fn challenge(url: &str) -> Option<String> {
    let client = rein_tls::client_builder().timeout(Duration::from_secs(10)).build().ok()?;
    let body = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rein","version":"0"}}}"#;
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body)
        .send()
        .await
        .ok()?;
    let header = response.headers().get(reqwest::header::WWW_AUTHENTICATE)?;
    header.to_str().ok().map(str::to_string)
}

impl PendingLogin {
    /// Wait for the browser's redirect, exchange the code for tokens and keep them.
    pub async fn finish(mut self) -> Result<(), OAuthError> {
        let expected = url::Url::parse(&self.url)
            .ok()
            .and_then(|u| u.query_pairs().find(|(k, _)| k == "state").map(|(_, v)| v.into_owned()))
            .unwrap_or_default();
        let callback = tokio::time::timeout(SIGN_IN_TIMEOUT, redirected(&self.listener, &self.redirect, &expected))
            .await
            .map_err(|_| OAuthError::TimedOut)??;
        // With the `iss` the server may add (RFC 9207), checked against the metadata's.
        self.state.handle_callback_url(&callback).await?;
        Ok(())
    }
}

/// The URL of the first redirect to `/callback` that carries this sign-in's `state`;
/// other requests (a browser's favicon, a forged redirect from another local program)
/// are answered and waited past.
async fn redirected(listener: &tokio::net::TcpListener, redirect: &str, state: &str) -> Result<String, OAuthError> {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else { continue };
        let mut buf = vec![0u8; 8192];
        let n = stream.read(&mut buf).await.unwrap_or(0);
        let head = String::from_utf8_lossy(&buf[..n]);
        let target = head.lines().next().and_then(|l| l.split_whitespace().nth(1)).unwrap_or("");
        let Ok(url) = url::Url::parse(redirect).and_then(|base| base.join(target)) else { continue };
        if url.path() != "/callback" {
            let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").await;
            continue;
        }
        let param = |k: &str| url.query_pairs().find(|(n, _)| n == k).map(|(_, v)| v.into_owned());
        if param("state").as_deref() != Some(state) {
            let _ =
                stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").await;
            continue;
        }
        let (page, result) = match (param("code"), param("state"), param("error")) {
            (_, _, Some(error)) => {
                let why = param("error_description").map_or(error.clone(), |d| format!("{error}: {d}"));
                ("Sign-in failed. You can close this tab.", Err(OAuthError::Refused(why)))
            }
            (Some(_), Some(_), None) => {
                ("Signed in to the MCP server. You can close this tab and return to rein.", Ok(url.to_string()))
            }
            _ => ("The redirect had no code.", Err(OAuthError::Refused("the redirect had no code or state".into()))),
        };
        let body = format!("<html><body><p>{page}</p></body></html>");
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
        return result;
    }
}

/// Open `url` in the browser: `$BROWSER`, else `xdg-open` (`open` on macOS). rein's
/// credentials stay out of its environment. False when none could start, or when
/// `url` is not an http(s) URL.
pub fn open_browser(url: &str) -> bool {
    // The URL comes from the server's metadata: only a web page is opened, never a
    // file or another program's handler.
    if !url::Url::parse(url).is_ok_and(|u| matches!(u.scheme(), "https" | "http")) {
        return false;
    }
    let browser = rein_process::env::text(rein_process::env::Var::Browser).filter(|b| !b.trim().is_empty());
    let candidates: Vec<String> = match browser {
        Some(b) => vec![b],
        None if cfg!(target_os = "macos") => vec!["open".into()],
        None => vec!["xdg-open".into()],
    };
    candidates.iter().any(|program| {
        let mut cmd = std::process::Command::new("sh");
        cmd.args(["-c", "exec $0 \"$1\"", program, url])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        rein_process::env::for_child(&mut cmd);
        cmd.spawn().is_ok()
    })
}

/// Sign out of `server`: forget its tokens. True when there were some.
pub fn logout(server: &ServerConfig) -> Result<bool, OAuthError> {
    let url = server_url(server).ok_or_else(|| OAuthError::NotHttp(server.name.clone()))?;
    let store = TokenStore::for_server(server, url).ok_or(OAuthError::NoHome)?;
    store.remove().map_err(OAuthError::Store)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_a_web_page_is_opened() {
        for url in ["file:///etc/passwd", "smb://host/share", "vscode://x", "not a url"] {
            assert!(!super::open_browser(url), "{url}");
        }
    }
}
