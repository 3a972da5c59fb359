//! Turning a server off and on during a session (the SDK's `mcp_toggle`, `/mcp disable`
//! and `/mcp enable`). Off: its connection is dropped, which stops it, and its tools and
//! instructions are withdrawn from the next request on (a call of one is told why). On:
//! it is brought up as at the start. For this session only: the settings'
//! `disabledMcpServers` decide the next start.

use crate::{ServerError, Servers, bring_up, lock, names};

impl Servers {
    /// Turn the server `name` on or off; nothing changes when it already is. Turned on,
    /// it is connecting when this returns (its tools join as it answers; [`Servers::settled`]
    /// waits for it).
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<(), ServerError> {
        let not_found = || ServerError::NotFound(name.to_string());
        let shared = self.shared.clone().ok_or_else(not_found)?;
        let status = lock(&self.statuses).iter().find(|s| s.name == name).cloned().ok_or_else(not_found)?;
        let config = lock(&shared.configs).iter().find(|c| c.name == name).cloned();
        let is_off = lock(&shared.off).iter().any(|n| n == name);
        let Some(config) = config else {
            // Held back at the start: already off, and not for a session to turn on.
            return match enabled {
                false => Ok(()),
                true => Err(ServerError::Held { server: name.to_string(), why: status.error.unwrap_or_default() }),
            };
        };
        let prefix = names::prefix(name);
        match (enabled, is_off) {
            (false, true) | (true, false) => Ok(()),
            (false, false) => {
                // Marked off first: a connection that completes from here on is not
                // offered (see `bring_up`).
                lock(&shared.off).push(name.to_string());
                // Dropping the connection, and its watch for new tools, stops the server.
                let live = {
                    let mut connections = lock(&self.connections);
                    let at = connections.iter().position(|l| l.name() == name);
                    at.map(|i| connections.remove(i))
                };
                drop(live);
                lock(&shared.watches).retain(|(n, watch)| {
                    if n == name {
                        watch.abort();
                    }
                    n != name
                });
                lock(&shared.waiting).retain(|s| s.name != name);
                shared.late.withdraw(name, format!("the MCP server \"{name}\" is turned off for this session"));
                if let Some(s) = lock(&self.statuses).iter_mut().find(|s| s.name == name) {
                    s.status = "disabled";
                    s.error = None;
                }
                Ok(())
            }
            (true, true) => {
                lock(&shared.off).retain(|n| n != name);
                shared.late.expect_again(name, &prefix);
                if let Some(s) = lock(&self.statuses).iter_mut().find(|s| s.name == name) {
                    s.status = "pending";
                    s.error = None;
                }
                tokio::spawn(async move { bring_up::bring_up(config, &shared).await });
                Ok(())
            }
        }
    }

    /// Wait until the server `name` is connected or has failed (at once when it is not
    /// connecting).
    pub async fn settled(&self, name: &str) {
        if let Some(shared) = &self.shared {
            shared.late.wait_for(&names::prefix(name)).await;
        }
    }
}
