//! Deferred tools and `ToolSearch`: rarely used built-in tools (notebooks, worktrees,
//! the web, background commands), and MCP tools when their definitions would take more
//! than a share of the context window (10 % by default, past the first few), are named
//! in `ToolSearch`'s description instead of being sent in full; the
//! model loads the definitions it needs by keyword or by name (`select:Name,Other`).
//! Loaded definitions join the end of the tools array for the rest of the session, so
//! each load changes the cached prefix once and only once.

use std::sync::{Arc, Mutex};

use rein_protocol::ToolSpec;
use rein_tools::{Effects, Other, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

/// MCP tools always sent in full (in configuration order).
pub(crate) const FIRST_FEW: usize = 5;

/// When MCP tool definitions are deferred (`ENABLE_TOOL_SEARCH`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ToolSearchMode {
    /// Never: every definition is sent.
    Off,
    /// Once the MCP tool definitions pass this share of the context window, those
    /// beyond the first few.
    Auto { share: f64 },
    /// Every MCP tool.
    Always,
}

impl ToolSearchMode {
    /// `auto` (10 %), `auto:N` (N %), `true`, `false`.
    pub fn parse(text: Option<&str>) -> ToolSearchMode {
        match text.map(str::trim) {
            Some("false" | "0" | "off") => ToolSearchMode::Off,
            Some("true" | "1" | "on" | "always") => ToolSearchMode::Always,
            Some(t) if t.starts_with("auto:") => {
                let pct = t["auto:".len()..].trim_end_matches('%').parse::<f64>().unwrap_or(10.0);
                ToolSearchMode::Auto { share: pct / 100.0 }
            }
            _ => ToolSearchMode::Auto { share: 0.10 },
        }
    }
}

/// What the engine and the tool share: the deferred definitions, and which were loaded.
#[derive(Debug, Default)]
pub struct SearchState {
    pub deferred: Vec<ToolSpec>,
    /// Loaded names, in load order.
    pub loaded: Vec<String>,
}

pub type SharedSearch = Arc<Mutex<SearchState>>;

/// Split `tools` into what is sent in full and what is deferred, by `mode`, for a
/// window of `window` tokens. Unless tool search is off, the built-in tools that
/// `rarely_used` names wait for ToolSearch, as Claude Code's do; past the share, so do
/// the MCP tools beyond the first few, and `Always` defers every MCP tool.
pub(crate) fn split(
    tools: Vec<ToolSpec>,
    mode: ToolSearchMode,
    window: u64,
    rarely_used: impl Fn(&str) -> bool,
) -> (Vec<ToolSpec>, Vec<ToolSpec>) {
    if mode == ToolSearchMode::Off {
        return (tools, Vec::new());
    }
    let is_mcp = |t: &ToolSpec| t.name.starts_with("mcp__");
    let (mut mcp, builtin): (Vec<ToolSpec>, Vec<ToolSpec>) = tools.into_iter().partition(is_mcp);
    let (mut deferred, mut sent): (Vec<ToolSpec>, Vec<ToolSpec>) =
        builtin.into_iter().partition(|t| rarely_used(&t.name));
    let mut mcp_deferred = match mode {
        ToolSearchMode::Always => std::mem::take(&mut mcp),
        ToolSearchMode::Auto { share } => {
            let bytes: usize = mcp.iter().map(|t| serde_json::to_string(t).map_or(0, |s| s.len())).sum();
            if (bytes as f64 / 4.0) > share * window as f64 {
                mcp.split_off(mcp.len().min(FIRST_FEW))
            } else {
                Vec::new()
            }
        }
        ToolSearchMode::Off => Vec::new(),
    };
    sent.append(&mut mcp);
    deferred.append(&mut mcp_deferred);
    (sent, deferred)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ToolSearchInput {
    /// Keywords, or `select:Name,Other`.
    pub query: String,
    /// Default 5.
    #[serde(default)]
    pub max_results: Option<u32>,
}

/// Loads deferred tool definitions.
pub struct ToolSearch {
    pub state: SharedSearch,
}

pub(crate) const TOOL_SEARCH: &str = "ToolSearch";

/// The description the model sees, naming every deferred tool.
pub(crate) fn description(deferred: &[ToolSpec]) -> String {
    let names: Vec<&str> = deferred.iter().map(|t| t.name.as_str()).collect();
    format!(
        "Loads the definitions of tools not sent yet: {}. Query by keywords, or `select:Name,Other` for exact \
         names; loaded tools stay for the session.",
        names.join(", ")
    )
}

impl Tool for ToolSearch {
    type Input = ToolSearchInput;

    fn name(&self) -> &'static str {
        TOOL_SEARCH
    }

    fn description(&self) -> String {
        description(&[])
    }

    fn effects(&self, _: &ToolSearchInput, _: &ToolContext) -> Effects {
        Effects { other: vec![Other::SessionState], read_only: true, ..Effects::reading(Vec::new()) }
    }

    /// A subagent is offered the late tools themselves.
    fn offered_to_subagents(&self) -> bool {
        false
    }

    async fn call(&self, input: ToolSearchInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let max = input.max_results.unwrap_or(5).clamp(1, 20) as usize;
        let found: Vec<ToolSpec> = match input.query.trim().strip_prefix("select:") {
            Some(names) => {
                let wanted: Vec<&str> = names.split(',').map(str::trim).collect();
                state.deferred.iter().filter(|t| wanted.contains(&t.name.as_str())).cloned().collect()
            }
            None => {
                let words: Vec<String> =
                    input.query.split_whitespace().map(|w| w.to_lowercase()).filter(|w| !w.is_empty()).collect();
                let mut scored: Vec<(usize, &ToolSpec)> = state
                    .deferred
                    .iter()
                    .map(|t| {
                        let hay = format!("{} {}", t.name, t.description).to_lowercase();
                        (words.iter().filter(|w| hay.contains(w.as_str())).count(), t)
                    })
                    .filter(|(score, _)| *score > 0)
                    .collect();
                scored.sort_by_key(|s| std::cmp::Reverse(s.0));
                scored.into_iter().take(max).map(|(_, t)| t.clone()).collect()
            }
        };
        if found.is_empty() {
            return Ok(ToolOutput::failure(format!("No deferred tool matches {:?}.", input.query)));
        }
        let mut text = String::from("Loaded; you can call these tools now:\n");
        for t in &found {
            if !state.loaded.contains(&t.name) {
                state.loaded.push(t.name.clone());
            }
            let def = serde_json::json!({"name": t.name, "description": t.description, "input_schema": t.input_schema});
            text.push_str(&format!("<function>{def}</function>\n"));
        }
        Ok(ToolOutput::text(text))
    }
}
