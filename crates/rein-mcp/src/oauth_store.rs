//! MCP OAuth tokens, kept where Claude Code keeps them: `~/.claude/.credentials.json`
//! (in `$CLAUDE_CONFIG_DIR` when set), under `mcpOAuth`, one entry per server keyed
//! `NAME|HASH` (the hash of the server's URL), with Claude Code's field names. The file
//! is mode 0600, written whole through a private temporary file and a rename, and its
//! other keys are kept. Tokens are never logged; only the connection to their own
//! server carries them.

use std::path::PathBuf;
use std::sync::Mutex;

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// The file that holds rein's (and Claude Code's) credentials.
pub fn credentials_file() -> Option<PathBuf> {
    let dir = match rein_process::env::os(rein_process::env::Var::ClaudeConfigDir).filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(rein_process::env::os(rein_process::env::Var::Home)?).join(".claude"),
    };
    Some(dir.join(".credentials.json"))
}

/// The entry's key: the server's name and a hash of where its tokens go (its URL, and
/// the configured client and authorization server), so that an entry that names the
/// same server with another URL or authorization server never receives its tokens.
pub fn entry_key(name: &str, url: &str, oauth: Option<&crate::config::OAuthConfig>) -> String {
    let mut material = url.to_string();
    if let Some(o) = oauth.filter(|o| o.client_id.is_some() || o.auth_server_metadata_url.is_some()) {
        material.push_str(&format!(
            "\n{}\n{}",
            o.client_id.as_deref().unwrap_or(""),
            o.auth_server_metadata_url.as_deref().unwrap_or("")
        ));
    }
    let hash = Sha256::digest(material.as_bytes());
    let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{name}|{hex}")
}

/// The file's modification time and size, to see that another process changed it.
type Stamp = Option<(std::time::SystemTime, u64)>;

fn stamp(path: &std::path::Path) -> Stamp {
    std::fs::metadata(path).ok().and_then(|m| Some((m.modified().ok()?, m.len())))
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Why the credentials file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}:{}:{}: {source}", path.display(), source.line(), source.column())]
    Parse { path: PathBuf, source: serde_json::Error },
    #[error("{}: {what} is not a JSON object", path.display())]
    NotAnObject { path: PathBuf, what: &'static str },
    #[error("{} has no folder", path.display())]
    NoFolder { path: PathBuf },
    #[error("cannot write the credentials: {0}")]
    Encode(#[source] serde_json::Error),
}

fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> CredentialsError + '_ {
    move |source| CredentialsError::Io { path: path.to_path_buf(), source }
}

fn read_all(path: &std::path::Path) -> Result<Map<String, Value>, CredentialsError> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Ok(Map::new()),
        Ok(text) => match serde_json::from_str(&text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(CredentialsError::NotAnObject { path: path.to_path_buf(), what: "the file" }),
            Err(source) => Err(CredentialsError::Parse { path: path.to_path_buf(), source }),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Map::new()),
        Err(e) => Err(io(path)(e)),
    }
}

/// Write the file whole. An existing file is rewritten in place (same inode), so that
/// the sandbox's mask over it (a bind mount, which a rename over the file would detach)
/// holds; a new one is created private.
fn write_all(path: &std::path::Path, all: &Map<String, Value>) -> Result<(), CredentialsError> {
    use std::io::Write as _;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    let dir = path.parent().ok_or_else(|| CredentialsError::NoFolder { path: path.to_path_buf() })?;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(io(dir))?;
    let text = serde_json::to_string_pretty(all).map_err(CredentialsError::Encode)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(io(path))?;
    // A file made earlier by someone else with wider rights is narrowed.
    file.set_permissions(std::fs::Permissions::from_mode(0o600)).map_err(io(path))?;
    file.write_all(text.as_bytes()).and_then(|()| file.sync_all()).map_err(io(path))
}

/// One server's tokens in the credentials file.
pub struct TokenStore {
    path: PathBuf,
    key: String,
    name: String,
    url: String,
    /// What the file held for this server when last read or written, and the file's
    /// state then (tokens are read from memory while the file is unchanged; another
    /// process's refresh or logout is seen at the next request).
    cached: Mutex<Option<(Stamp, Option<StoredCredentials>)>>,
}

impl TokenStore {
    pub fn new(path: PathBuf, name: &str, url: &str, oauth: Option<&crate::config::OAuthConfig>) -> TokenStore {
        TokenStore {
            path,
            key: entry_key(name, url, oauth),
            name: name.to_string(),
            url: url.to_string(),
            cached: Mutex::new(None),
        }
    }

    /// The store of `server` (at `url`) in the user's credentials file.
    pub fn for_server(server: &crate::ServerConfig, url: &str) -> Option<TokenStore> {
        Some(TokenStore::new(credentials_file()?, &server.name, url, server.oauth.as_ref()))
    }

    fn entry(&self) -> Result<Option<Value>, CredentialsError> {
        let all = read_all(&self.path)?;
        Ok(all.get("mcpOAuth").and_then(|m| m.get(&self.key)).cloned())
    }

    /// The stored credentials, read from the file.
    pub fn read(&self) -> Result<Option<StoredCredentials>, CredentialsError> {
        let Some(entry) = self.entry()? else { return Ok(None) };
        Ok(from_entry(&entry))
    }

    /// Change this server's entry (`None` removes it), keeping everything else.
    fn update(&self, entry: Option<Value>) -> Result<(), CredentialsError> {
        let mut all = read_all(&self.path)?;
        let servers = all.entry("mcpOAuth").or_insert_with(|| json!({}));
        let Some(servers) = servers.as_object_mut() else {
            return Err(CredentialsError::NotAnObject { path: self.path.clone(), what: "mcpOAuth" });
        };
        match entry {
            Some(e) => {
                servers.insert(self.key.clone(), e);
            }
            None => {
                servers.remove(&self.key);
            }
        }
        write_all(&self.path, &all)
    }

    /// Forget the server's tokens (`rein mcp logout`). True when there were some.
    pub fn remove(&self) -> Result<bool, CredentialsError> {
        let had = self.entry()?.is_some();
        if had {
            self.update(None)?;
        }
        *self.cached.lock().unwrap_or_else(|p| p.into_inner()) = Some((stamp(&self.path), None));
        Ok(had)
    }

    fn to_entry(&self, c: &StoredCredentials) -> Value {
        let token = c.token_response.as_ref().and_then(|t| serde_json::to_value(t).ok()).unwrap_or(Value::Null);
        let received = c.token_received_at.unwrap_or_else(now_secs);
        let expires_at = token["expires_in"].as_u64().map(|s| (received + s) * 1000);
        json!({
            "serverName": self.name,
            "serverUrl": self.url,
            "clientId": c.client_id,
            "accessToken": token["access_token"],
            "refreshToken": token["refresh_token"],
            "expiresAt": expires_at,
            "scope": token["scope"],
            "issuer": c.issuer,
        })
    }
}

/// Credentials from an entry in Claude Code's shape; the time left is counted from now.
fn from_entry(e: &Value) -> Option<StoredCredentials> {
    let client_id = e["clientId"].as_str()?.to_string();
    let access = e["accessToken"].as_str();
    let now = now_secs();
    let token = access.and_then(|access| {
        let mut t = json!({"access_token": access, "token_type": "Bearer"});
        if let Some(r) = e["refreshToken"].as_str() {
            t["refresh_token"] = json!(r);
        }
        if let Some(at) = e["expiresAt"].as_u64() {
            t["expires_in"] = json!((at / 1000).saturating_sub(now));
        }
        if let Some(scope) = e["scope"].as_str() {
            t["scope"] = json!(scope);
        }
        serde_json::from_value(t).ok()
    });
    let scopes = e["scope"].as_str().map(|s| s.split_whitespace().map(str::to_string).collect()).unwrap_or_default();
    let issuer = e["issuer"].as_str().map(str::to_string);
    Some(StoredCredentials::new(client_id, token, scopes, Some(now)).with_issuer(issuer))
}

#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let now = stamp(&self.path);
        let mut cached = self.cached.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, c)) = cached.as_ref()
            && *at == now
        {
            return Ok(c.clone());
        }
        let read = self.read().map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        *cached = Some((now, read.clone()));
        Ok(read)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.update(Some(self.to_entry(&credentials))).map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
        *self.cached.lock().unwrap_or_else(|p| p.into_inner()) = Some((stamp(&self.path), Some(credentials)));
        Ok(())
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.remove().map(|_| ()).map_err(|e| AuthError::CredentialStoreError(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn tokens_round_trip_in_claude_codes_shape_and_other_keys_stay() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude/.credentials.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r#"{"claudeAiOauth": {"accessToken": "keep-me"}}"#).unwrap();
        let store = TokenStore::new(path.clone(), "linear", "https://mcp.linear.app/mcp", None);
        assert!(store.load().await.unwrap().is_none());
        let token = serde_json::from_value(json!({"access_token": "at-1", "token_type": "Bearer",
            "expires_in": 3600, "refresh_token": "rt-1", "scope": "read write"}))
        .unwrap();
        store.save(StoredCredentials::new("client-9".into(), Some(token), vec![], Some(now_secs()))).await.unwrap();
        let all: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(all["claudeAiOauth"]["accessToken"], "keep-me");
        let entry = &all["mcpOAuth"][entry_key("linear", "https://mcp.linear.app/mcp", None)];
        assert_eq!((entry["accessToken"].as_str(), entry["refreshToken"].as_str()), (Some("at-1"), Some("rt-1")));
        assert_eq!(entry["serverName"], "linear");
        let left = entry["expiresAt"].as_u64().unwrap() / 1000 - now_secs();
        assert!((3590..=3600).contains(&left), "{left}");
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let again =
            TokenStore::new(path.clone(), "linear", "https://mcp.linear.app/mcp", None).read().unwrap().unwrap();
        assert_eq!(again.client_id, "client-9");
        let t = serde_json::to_value(again.token_response.unwrap()).unwrap();
        assert_eq!((t["access_token"].as_str(), t["refresh_token"].as_str()), (Some("at-1"), Some("rt-1")));
        let moved = TokenStore::new(path.clone(), "linear", "https://elsewhere.example/mcp", None);
        assert!(moved.read().unwrap().is_none(), "another URL does not get the token");
        let other_server = crate::config::OAuthConfig {
            auth_server_metadata_url: Some("https://attacker.example/meta".into()),
            ..Default::default()
        };
        let lured = TokenStore::new(path.clone(), "linear", "https://mcp.linear.app/mcp", Some(&other_server));
        assert!(lured.read().unwrap().is_none(), "another authorization server does not get the token");
        assert!(store.remove().unwrap());
        assert!(store.read().unwrap().is_none());
        let all: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(all["claudeAiOauth"]["accessToken"], "keep-me");
    }
}
