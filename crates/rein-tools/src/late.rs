//! Tools that arrive after the session started — an MCP server that connects while the
//! conversation is already going. They join the registry here; the engine offers them
//! from its next request on (it watches [`LateTools::version`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::ExternalTool;
use crate::external::RegisteredExternal;
use crate::registry::RegistryError;

/// The late tools of one registry (shared by its clones).
#[derive(Default)]
pub struct LateTools {
    /// The tools, each with who offered it (an MCP server's name; empty for none).
    tools: Mutex<Vec<(String, Arc<RegisteredExternal>)>>,
    version: AtomicU64,
    /// Name prefixes (`mcp__<server>__`) of tools still on their way.
    pending: Mutex<Vec<String>>,
    settled: tokio::sync::Notify,
    /// System-prompt text that arrived with the tools (MCP server instructions), with who
    /// offered it.
    instructions: Mutex<Vec<(String, String)>>,
    /// Name prefixes (or whole names) whose tools will not come, and why (a server that
    /// needs signing in, one turned off), with who offered them when known.
    unavailable: Mutex<Vec<Unavailable>>,
}

/// Tools that will not come: a name prefix or a whole name, why, and who offered them.
struct Unavailable {
    name: String,
    why: String,
    owner: Option<String>,
}

impl LateTools {
    /// Add `tool`; its name must be new among the late tools (the registry's own names
    /// win at lookup).
    pub fn add(&self, tool: Arc<dyn ExternalTool>) -> Result<(), RegistryError> {
        self.add_from("", tool)
    }

    /// Add `tool`, offered by `owner` (an MCP server's name: [`LateTools::withdraw`]
    /// takes back what one offered).
    pub fn add_from(&self, owner: &str, tool: Arc<dyn ExternalTool>) -> Result<(), RegistryError> {
        let mut tools = self.tools.lock().unwrap_or_else(|p| p.into_inner());
        let name = tool.spec().name.clone();
        if tools.iter().any(|(_, t)| t.tool.spec().name == name) {
            return Err(RegistryError::Duplicate(name));
        }
        tools.push((owner.to_string(), Arc::new(RegisteredExternal::new(tool))));
        self.version.fetch_add(1, Ordering::Release);
        Ok(())
    }

    /// Changes each time a tool joins.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Add text for the system prompt that came with `owner`'s tools (offered from the
    /// next request on).
    pub fn add_instructions(&self, owner: &str, text: String) {
        self.instructions.lock().unwrap_or_else(|p| p.into_inner()).push((owner.to_string(), text));
        self.version.fetch_add(1, Ordering::Release);
    }

    /// The system-prompt text that arrived so far, in arrival order.
    pub fn instructions(&self) -> Vec<String> {
        self.instructions.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|(_, t)| t.clone()).collect()
    }

    /// Take back the tools `owner` offered and the text that came with them (their
    /// server was turned off); a call of one is told `why`. Offered no more from the
    /// next request on.
    pub fn withdraw(&self, owner: &str, why: String) {
        let mut gone = Vec::new();
        self.tools.lock().unwrap_or_else(|p| p.into_inner()).retain(|(o, t)| {
            if o == owner {
                gone.push(t.tool.spec().name.clone());
            }
            o != owner
        });
        self.instructions.lock().unwrap_or_else(|p| p.into_inner()).retain(|(o, _)| o != owner);
        let mut unavailable = self.unavailable.lock().unwrap_or_else(|p| p.into_inner());
        for name in gone {
            unavailable.push(Unavailable { name, why: why.clone(), owner: Some(owner.to_string()) });
        }
        self.version.fetch_add(1, Ordering::Release);
    }

    /// `owner`'s tools (named `prefix…`) are on their way again (their server was turned
    /// back on): what was said of their absence no longer holds.
    pub fn expect_again(&self, owner: &str, prefix: &str) {
        self.unavailable
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|u| u.owner.as_deref() != Some(owner) && u.name != prefix);
        self.expect(prefix);
    }

    /// Tools named `prefix…` are on their way (a server is connecting).
    pub fn expect(&self, prefix: &str) {
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).push(prefix.to_string());
    }

    /// The tools named `prefix…` have arrived, or will not.
    pub fn settle(&self, prefix: &str) {
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).retain(|p| p != prefix);
        self.settled.notify_waiters();
    }

    /// The tools named `prefix…` will not come, for the reason `why`, which a call of
    /// one of them is told.
    pub fn settle_unavailable(&self, prefix: &str, why: String) {
        self.unavailable.lock().unwrap_or_else(|p| p.into_inner()).push(Unavailable {
            name: prefix.to_string(),
            why,
            owner: None,
        });
        self.settle(prefix);
    }

    /// Why a tool named `name` is not there, when known.
    pub fn why_unavailable(&self, name: &str) -> Option<String> {
        let unavailable = self.unavailable.lock().unwrap_or_else(|p| p.into_inner());
        unavailable.iter().rev().find(|u| name.starts_with(u.name.as_str())).map(|u| u.why.clone())
    }

    fn is_pending(&self, name: &str) -> bool {
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).iter().any(|p| name.starts_with(p.as_str()))
    }

    /// Wait until a tool named `name` is no longer on its way (at once when it is not).
    pub async fn wait_for(&self, name: &str) {
        loop {
            let settled = self.settled.notified();
            tokio::pin!(settled);
            settled.as_mut().enable();
            if !self.is_pending(name) {
                return;
            }
            settled.await;
        }
    }

    /// Wait until no tool is on its way (every server connected or failed).
    pub async fn wait_all(&self) {
        loop {
            let settled = self.settled.notified();
            tokio::pin!(settled);
            settled.as_mut().enable();
            if self.pending.lock().unwrap_or_else(|p| p.into_inner()).is_empty() {
                return;
            }
            settled.await;
        }
    }

    pub(crate) fn snapshot(&self) -> Vec<Arc<RegisteredExternal>> {
        self.tools.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|(_, t)| t.clone()).collect()
    }
}
