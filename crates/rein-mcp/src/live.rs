//! One server's connection, shared by its tools: when the server has died (its
//! transport closed — a crash, a kill), the next call starts it again first.

use std::time::Duration;

use rmcp::service::{Peer, RoleClient};

use crate::client::{Connection, SessionFacts, connect};
use crate::{ServerConfig, SessionPaths};

pub struct Live {
    pub(crate) config: ServerConfig,
    session: SessionPaths,
    connect_timeout: Duration,
    /// The connection (kept: dropping it stops the server) and its peer.
    state: tokio::sync::Mutex<(Peer<RoleClient>, Connection)>,
}

impl Live {
    pub fn new(config: ServerConfig, session: SessionPaths, connect_timeout: Duration, conn: Connection) -> Live {
        let peer = conn.service.peer().clone();
        Live { config, session, connect_timeout, state: tokio::sync::Mutex::new((peer, conn)) }
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The peer to call, after starting the server again if it died.
    pub async fn peer(&self) -> Result<Peer<RoleClient>, crate::ServerError> {
        let mut state = self.state.lock().await;
        if state.0.is_transport_closed() {
            *state = self.connect_again("stopped and could not be restarted").await?;
        }
        Ok(state.0.clone())
    }

    /// `/mcp reconnect`: start the server again now (the old connection is dropped,
    /// which stops it).
    pub async fn reconnect(&self) -> Result<(), crate::ServerError> {
        let mut state = self.state.lock().await;
        *state = self.connect_again("could not be reconnected").await?;
        Ok(())
    }

    /// A new connection to the server; `failing` says what went wrong when it fails.
    async fn connect_again(&self, failing: &'static str) -> Result<(Peer<RoleClient>, Connection), crate::ServerError> {
        let facts = SessionFacts {
            cwd: &self.session.cwd,
            session_id: &self.session.id,
            tunnel: self.session.tunnel.as_ref(),
            elicitor: self.session.elicitor.as_ref(),
        };
        let conn = connect(&self.config, &facts, self.connect_timeout).await.map_err(|e| {
            crate::ServerError::Again { server: self.config.name.clone(), failing, source: Box::new(e) }
        })?;
        Ok((conn.service.peer().clone(), conn))
    }
}
