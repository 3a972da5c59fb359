//! The tools array a request offers: tools that joined the registry late (MCP servers
//! that connected), filtered by bare deny rules (and the built-in guidance fitted to
//! what is offered, once), with MCP definitions deferred behind
//! ToolSearch when they would take too much of the window, and loaded ones appended.

use rein_protocol::ToolSpec;

use crate::Engine;

impl Engine {
    /// Defer MCP tool definitions as `mode` says; `state` is shared with the
    /// registry's ToolSearch tool.
    pub fn with_tool_search(mut self, state: crate::SharedSearch, mode: crate::ToolSearchMode) -> Self {
        self.search = Some((state, mode));
        self.tools_version = u64::MAX;
        self.join_late_tools();
        self
    }

    /// Tools that joined the registry since the last request (an MCP server that
    /// connected late) are offered from this request on; definitions the model loaded
    /// with ToolSearch join the end of the array.
    pub(crate) fn join_late_tools(&mut self) {
        let version = self.registry.version();
        let loaded = self.search.as_ref().map_or(0, |(s, _)| s.lock().map_or(0, |s| s.loaded.len()));
        if version == self.tools_version && loaded == self.search_loaded {
            return;
        }
        self.search_loaded = loaded;
        let first = self.tools_version == u64::MAX;
        self.tools_version = version;
        let policy = self.gate.policy.get();
        let all: Vec<ToolSpec> = self.registry.specs().into_iter().filter(|t| !policy.removes_tool(&t.name)).collect();
        if first {
            // Once, before the first request: the built-in guidance names only the tools
            // offered, so the prompt stays the same bytes for the rest of the session.
            let offered = |name: &str| all.iter().any(|t| t.name == name);
            self.config.system = self.config.system.with_stable(|s| rein_prompt::fit_to_tools(s, offered));
        }
        let instructions = self.registry.late_instructions();
        if !instructions.is_empty() {
            let base = self.base_system.get_or_insert_with(|| self.config.system.clone());
            self.config.system = base.with_session_appended(&format!("\n\n{}", instructions.join("\n\n")));
        }
        self.tools = match &self.search {
            Some((state, mode)) => {
                let all: Vec<ToolSpec> =
                    all.into_iter().filter(|t| t.name != crate::tool_search::TOOL_SEARCH).collect();
                let registry = &self.registry;
                let (mut sent, deferred) = crate::tool_search::split(all, *mode, self.config.context.window, |n| {
                    registry.deferred_by_default(n)
                });
                let mut state = state.lock().unwrap_or_else(|p| p.into_inner());
                if !deferred.is_empty() {
                    sent.push(ToolSpec {
                        name: crate::tool_search::TOOL_SEARCH.into(),
                        description: crate::tool_search::description(&deferred),
                        input_schema: rein_tools::compact_for_model(&rein_tools::schema_for::<
                            crate::tool_search::ToolSearchInput,
                        >()),
                    });
                }
                // Loaded definitions last, in load order: each load only appends.
                for name in &state.loaded {
                    if let Some(t) = deferred.iter().find(|t| &t.name == name) {
                        sent.push(t.clone());
                    }
                }
                state.deferred = deferred;
                sent.into()
            }
            None => all.into(),
        };
        self.tools_json_bytes = serde_json::to_string(&*self.tools).map(|s| s.len()).unwrap_or(0);
    }
}
