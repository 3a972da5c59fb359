//! What a frontend hands the session before it is built — the Agent SDK's `initialize`
//! (hook callbacks joined to the settings' hooks, subagents, the system prompt, and that
//! no person is there to approve the project's MCP servers) or the person's answer about
//! the project's MCP servers. The owner applies them to the resolved setup (consuming
//! it), so that no frontend edits a setup.

use std::sync::Arc;

use rein_hooks::HookEvent;

use crate::Setup;
use crate::error::invalid;

/// One group of the program's hook callbacks: the event, the matcher, the callbacks' ids.
#[derive(Debug, Clone, PartialEq)]
pub struct CallbackGroup {
    pub event: HookEvent,
    /// `None`: every value.
    pub matcher: Option<String>,
    pub ids: Vec<String>,
    /// Seconds.
    pub timeout: Option<f64>,
    /// A callback that fails (or does not answer) blocks, as the program asked.
    pub block_on_failure: bool,
}

/// What `initialize` registers, as data.
#[derive(Default)]
pub struct Overrides {
    pub callbacks: Vec<CallbackGroup>,
    /// Who runs the callbacks (the SDK's peer).
    pub runner: Option<Arc<dyn rein_hooks::CallbackRunner>>,
    /// Subagents, as `--agents` takes them.
    pub agents: Option<serde_json::Value>,
    /// The system prompt in place of rein's, and text added after it.
    pub system_prompt: Option<String>,
    pub append_system_prompt: Option<String>,
    /// No one is there to approve the project's `.mcp.json` servers: they start as a
    /// headless run's do (`disabledMcpjsonServers` and the managed lists still hold).
    pub headless_mcp: bool,
    /// Project servers the person approved, or kept off, just now (the terminal's
    /// question before the session starts).
    pub approved_mcp: Vec<String>,
    pub declined_mcp: Vec<String>,
}

impl Setup {
    /// This setup with `overrides` applied: the one to build.
    pub fn with_overrides(mut self, overrides: Overrides) -> crate::Result<Setup> {
        let mut config = self.hooks.as_ref().map(|h| h.config.clone()).unwrap_or_default();
        for g in &overrides.callbacks {
            if let Err(why) = config.add_callbacks(g.event, g.matcher.as_deref(), &g.ids, g.timeout, g.block_on_failure)
            {
                invalid!("hooks.{}: {why}", g.event.name());
            }
        }
        // With a program to run callbacks, the hooks are made again with it.
        if overrides.runner.is_some() && !config.is_empty() {
            let mut hooks = rein_hooks::Hooks::new(config, self.hook_session());
            hooks.callbacks = overrides.runner;
            self.hooks = Some(Arc::new(hooks));
        }
        if let Some(agents) = &overrides.agents {
            self.add_agents(agents);
        }
        let (replace, append) = (overrides.system_prompt, overrides.append_system_prompt);
        if replace.is_some() || append.is_some() {
            let (old_replace, old_append) = self.prompt_parts.clone();
            self.set_system_prompt(replace.or(old_replace), append.or(old_append));
        }
        if overrides.headless_mcp {
            self.mcp_policy.interactive = false;
        }
        self.mcp_policy.approved.extend(overrides.approved_mcp);
        self.disabled_mcpjson.extend(overrides.declined_mcp);
        Ok(self)
    }
}
