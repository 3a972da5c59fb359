//! Signing in to a server from inside a session (the TUI's `/mcp authenticate NAME`):
//! the OAuth sign-in ([`crate::oauth`]) and, once signed in, the server brought up (or
//! connected again with its new token); its tools join from the next request on.

use std::sync::Arc;

use crate::bring_up::{Shared, bring_up};
use crate::{ServerConfig, Servers, lock, oauth};

/// A sign-in under way: open [`SignIn::url`], then [`SignIn::finish`].
pub struct SignIn {
    pub url: String,
    pending: oauth::PendingLogin,
    server: ServerConfig,
    shared: Arc<Shared>,
}

impl Servers {
    /// Start signing in to server `name`: one that needs it, or a connected HTTP server.
    pub async fn begin_sign_in(&self, name: &str) -> Result<SignIn, crate::ServerError> {
        let shared = self.shared.clone().ok_or(crate::ServerError::NoneRunning)?;
        let waiting = lock(&shared.waiting).iter().find(|s| s.name == name).cloned();
        let connected = || lock(&shared.connections).iter().find(|l| l.name() == name).map(|l| l.config.clone());
        let server = waiting.or_else(connected).ok_or_else(|| crate::ServerError::Unknown(name.to_string()))?;
        let pending = oauth::begin_login(&server).await?;
        Ok(SignIn { url: pending.url.clone(), pending, server, shared })
    }
}

impl SignIn {
    /// Open the URL in the browser (`$BROWSER`, else xdg-open); false when none opened.
    pub fn open_browser(&self) -> bool {
        oauth::open_browser(&self.url)
    }

    /// Wait for the browser's redirect, keep the tokens, and connect the server. The
    /// line that says how it went.
    pub async fn finish(self) -> Result<String, crate::ServerError> {
        let name = self.server.name.clone();
        self.pending
            .finish()
            .await
            .map_err(|source| crate::ServerError::SignIn { server: name.clone(), source: Box::new(source) })?;
        lock(&self.shared.waiting).retain(|s| s.name != name);
        let live = lock(&self.shared.connections).iter().find(|l| l.name() == name).cloned();
        match live {
            Some(live) => live.reconnect().await?,
            None => bring_up(self.server.clone(), &self.shared).await,
        }
        let status = lock(&self.shared.statuses).iter().find(|s| s.name == name).cloned();
        match status {
            Some(s) if s.status == "connected" => Ok(format!("Signed in to {name}; it is connected")),
            Some(s) => Err(crate::ServerError::StillDown {
                server: name,
                status: s.status.to_string(),
                why: s.error.unwrap_or_default(),
            }),
            None => Ok(format!("Signed in to {name}")),
        }
    }
}
