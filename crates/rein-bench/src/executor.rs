//! The streaming executor: parallel safe calls, starting during a stream pause, and its
//! own overhead.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rein_engine::{Engine, EngineConfig, EngineEvent, Gate};
use rein_model::{AnthropicClient, AnthropicConfig, Auth};
use rein_policy::Policy;
use rein_protocol::{ContentBlock, Message};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id};
use rein_tools::{Effects, Registry, Tool, ToolContext, ToolError, ToolOutput, register_builtins};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct Nothing {}

/// An instant, concurrency-safe tool.
struct Instant0;
impl Tool for Instant0 {
    type Input = Nothing;
    fn name(&self) -> &'static str {
        "Noop"
    }
    fn description(&self) -> String {
        "does nothing".into()
    }
    fn effects(&self, _: &Nothing, _: &ToolContext) -> Effects {
        Effects::session_only(true)
    }
    async fn call(&self, _: Nothing, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

async fn session(server: &FakeServer, cwd: &Path) -> anyhow::Result<Vec<(Instant, EngineEvent)>> {
    let mut registry = Registry::new();
    register_builtins(&mut registry)?;
    registry.register(Instant0)?;
    let client = AnthropicClient::new(&AnthropicConfig {
        base_url: server.url(),
        auth: Auth::ApiKey("k".into()),
        beta: None,
        key_helper: None,
        custom_headers: Vec::new(),
    })?;
    let config = EngineConfig {
        model: "m".into(),
        max_tokens: 100,
        max_turns: None,
        max_stop_continuations: 8,
        max_tool_concurrency: 10,
        max_retries: 0,
        retry_base: std::time::Duration::from_millis(1),
        idle_timeout: std::time::Duration::from_secs(60),
        fallback_model: None,
        max_budget_usd: None,
        context: rein_engine::ContextLimits::for_model("m", None, None),
        system: "s".into(),
        cache: Some(rein_model::CacheTtl::FiveMinutes),
        thinking: Default::default(),
        required_tool: None,
        aliases: Default::default(),
        nested_memory: None,
        subagent_servers: None,
        small_model: None,
        workflow_keyword: false,
    };
    let gate = Gate::new(Arc::new(Policy::allow_all(cwd.to_path_buf())));
    let ctx = ToolContext::new(cwd.to_path_buf(), cwd.to_path_buf());
    let mut engine = Engine::new(Arc::new(client), Arc::new(registry), gate, ctx, config);
    let mut events = Vec::new();
    engine.run(Message::user_text("go"), &mut |e| events.push((Instant::now(), e))).await;
    Ok(events)
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

pub(crate) fn rows(bin: &Path, work: &Path, home: &Path) -> anyhow::Result<Vec<(String, String, String)>> {
    let mut rows = Vec::new();
    // 10 read-only `sleep 0.3` calls through the binary.
    let calls: Vec<ContentBlock> =
        (0..10).map(|i| tool_use_with_id(&format!("s{i}"), "Bash", json!({"command": "sleep 0.3"}))).collect();
    let server = FakeServer::start(Scenario::new([reply(calls), reply([text("done")])]))?;
    let status = Command::new(bin)
        .current_dir(work)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "bench")
        .args(["-p", "go"])
        .output()?;
    if !status.status.success() {
        anyhow::bail!("the parallel sleep session failed: {}", String::from_utf8_lossy(&status.stderr));
    }
    let reqs = server.requests();
    let took = reqs[1].received_at.duration_since(reqs[0].response_done_at.unwrap_or(reqs[0].received_at));
    rows.push(("10 read-only `sleep 0.3` calls in one response: wall".into(), ms(took), "< 450 ms".into()));

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let dir = tempfile::tempdir()?;
    let cwd = std::fs::canonicalize(dir.path())?;
    // A stream that pauses 1 s after its first tool_use.
    let mut paused = reply([tool_use_with_id("t", "Noop", json!({})), text("more")]).pause_after_event(5, 1000);
    paused.json_chunk = Some(10_000);
    let server = FakeServer::start(Scenario::new([paused, reply([text("done")])]))?;
    let events = rt.block_on(session(&server, &cwd))?;
    let complete = events
        .iter()
        .find(|(_, e)| matches!(e, EngineEvent::Stream(rein_engine::StreamDelta::BlockDone { index: 0, .. })))
        .map(|e| e.0);
    let started = events.iter().find(|(_, e)| matches!(e, EngineEvent::ToolStarted(_))).map(|e| e.0);
    let message_done = events.iter().find(|(_, e)| matches!(e, EngineEvent::Assistant(_))).map(|e| e.0);
    if let (Some(c), Some(s), Some(d)) = (complete, started, message_done) {
        rows.push((
            "tool start after its content_block_stop (1 s pause)".into(),
            ms(s.saturating_duration_since(c)),
            "< 5 ms".into(),
        ));
        rows.push((
            "…and the message ends after the tool started by".into(),
            ms(d.duration_since(s)),
            "> tool time".into(),
        ));
    }
    // 100 instant tools in one response.
    let calls: Vec<ContentBlock> = (0..100).map(|i| tool_use_with_id(&format!("n{i}"), "Noop", json!({}))).collect();
    let server = FakeServer::start(Scenario::new([reply(calls), reply([text("done")])]))?;
    let events = rt.block_on(session(&server, &cwd))?;
    let done = events.iter().find(|(_, e)| matches!(e, EngineEvent::Assistant(_))).map(|e| e.0);
    let results = events.iter().find(|(_, e)| matches!(e, EngineEvent::ToolResults(_))).map(|e| e.0);
    if let (Some(d), Some(r)) = (done, results) {
        rows.push((
            "executor overhead, 100 instant tools in one response".into(),
            ms(r.saturating_duration_since(d)),
            "< 2 ms".into(),
        ));
    }
    Ok(rows)
}
