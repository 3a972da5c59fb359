//! Shared by the engine's tests: misbehaving tools, a client for the fake server, and
//! a config for fast tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use rein_engine::EngineConfig;
use rein_model::{AnthropicClient, AnthropicConfig, Auth};
use rein_tools::{Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
pub struct Nothing {}

/// A tool that panics: the chain must still answer its call.
pub struct Explode;
impl Tool for Explode {
    type Input = Nothing;
    fn name(&self) -> &'static str {
        "Explode"
    }
    fn description(&self) -> String {
        "panics".into()
    }
    fn is_read_only(&self, _: &Nothing) -> bool {
        true
    }
    async fn call(&self, _: Nothing, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        panic!("boom inside the tool")
    }
}

/// A tool that fails with an error.
pub struct Fail;
impl Tool for Fail {
    type Input = Nothing;
    fn name(&self) -> &'static str {
        "Fail"
    }
    fn description(&self) -> String {
        "fails".into()
    }
    fn is_read_only(&self, _: &Nothing) -> bool {
        false
    }
    async fn call(&self, _: Nothing, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Err(ToolError::new("disk on fire"))
    }
}

pub fn client(url: &str) -> AnthropicClient {
    AnthropicClient::new(&AnthropicConfig {
        base_url: url.to_string(),
        auth: Auth::ApiKey("test".into()),
        beta: None,
        key_helper: None,
    })
    .unwrap()
}

/// Defaults, with fast retries (none by default) for tests.
pub fn config(max_turns: Option<u32>, concurrency: usize) -> EngineConfig {
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
