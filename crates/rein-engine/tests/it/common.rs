//! Shared by the engine's tests: misbehaving tools, a client for the fake server, and
//! a config for fast tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use rein_engine::EngineConfig;
use rein_model::{AnthropicClient, AnthropicConfig, Auth};
use rein_tools::{Effects, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub(crate) struct Nothing {}

/// A tool that panics: the chain must still answer its call.
pub(crate) struct Explode;
impl Tool for Explode {
    type Input = Nothing;
    fn name(&self) -> &'static str {
        "Explode"
    }
    fn description(&self) -> String {
        "panics".into()
    }
    fn effects(&self, _: &Nothing, _: &ToolContext) -> Effects {
        Effects::session_only(true)
    }
    async fn call(&self, _: Nothing, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        panic!("boom inside the tool")
    }
}

/// A tool that fails with an error.
pub(crate) struct Fail;
impl Tool for Fail {
    type Input = Nothing;
    fn name(&self) -> &'static str {
        "Fail"
    }
    fn description(&self) -> String {
        "fails".into()
    }
    fn effects(&self, _: &Nothing, _: &ToolContext) -> Effects {
        Effects::session_only(false)
    }
    async fn call(&self, _: Nothing, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::new("disk on fire"))
    }
}

#[derive(Deserialize, JsonSchema)]
pub(crate) struct FileName {
    pub name: String,
}

/// A tool that forgot to declare its effects: it writes a file in the working directory.
pub(crate) struct Undeclared;
impl Tool for Undeclared {
    type Input = FileName;
    fn name(&self) -> &'static str {
        "Undeclared"
    }
    fn description(&self) -> String {
        "writes a file, and says nothing of it".into()
    }
    async fn call(&self, input: FileName, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        std::fs::write(ctx.cwd.join(&input.name), "written").map_err(|e| ToolError::new(e.to_string()))?;
        Ok(ToolOutput::text("written"))
    }
}

pub(crate) fn client(url: &str) -> AnthropicClient {
    AnthropicClient::new(&AnthropicConfig {
        base_url: url.to_string(),
        auth: Auth::ApiKey("test".into()),
        beta: None,
        key_helper: None,
        custom_headers: Vec::new(),
    })
    .unwrap()
}

/// Defaults, with fast retries (none by default) for tests.
pub(crate) fn config(max_turns: Option<u32>, concurrency: usize) -> EngineConfig {
    EngineConfig {
        model: "claude-test".into(),
        max_tokens: 1000,
        max_turns,
        max_tool_concurrency: concurrency,
        max_retries: 0,
        retry_base: Duration::from_millis(1),
        idle_timeout: Duration::from_secs(60),
        system: "sys".into(),
        ..EngineConfig::default()
    }
}
