//! Deferred tools: the size of the request that first offers a 50-tool MCP server's
//! tools, with every definition sent and with ToolSearch deferring them. Needs the
//! Python MCP SDK in `.ci/venv` (`.ci/run` installs it).

use std::path::Path;

use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id};
use serde_json::json;

use crate::{Row, rein_direct};

fn request_bytes(bin: &Path, cwd: &Path, home: &Path, py: &Path, mode: &str) -> anyhow::Result<usize> {
    let server_py = std::env::current_dir()?.join("crates/rein-cli/tests/it/fixtures/many_tools_server.py");
    let config = json!({"mcpServers": {"many": {"command": py, "args": [server_py]}}}).to_string();
    // A call to one of the server's tools waits for it; the next request offers them all.
    let server = FakeServer::start(Scenario::new([
        reply([tool_use_with_id("w", "mcp__many__tool_00", json!({}))]),
        reply([text("ok")]),
    ]))?;
    let out = rein_direct(bin, cwd, home, &server)
        .env("ENABLE_TOOL_SEARCH", mode)
        .args(["-p", "go", "--allowedTools", "mcp__many", "--mcp-config", &config])
        .output()?;
    let reqs = server.requests();
    if !out.status.success() || reqs.len() < 2 {
        anyhow::bail!("the 50-tool session failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(reqs[1].body_len)
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    let py = std::env::current_dir()?.join(".ci/venv/bin/python");
    let ok = std::process::Command::new(&py).args(["-c", "import mcp"]).output().is_ok_and(|o| o.status.success());
    if !ok {
        return Ok(vec![("deferred tools".into(), "skipped: no Python MCP SDK in .ci/venv".into(), "—".into())]);
    }
    let all = request_bytes(bin, cwd, home, &py, "false")?;
    let deferred = request_bytes(bin, cwd, home, &py, "true")?;
    Ok(vec![(
        "request bytes with a 50-tool MCP server: every definition / deferred (ToolSearch)".into(),
        format!("{:.1} KB / {:.1} KB", all as f64 / 1e3, deferred as f64 / 1e3),
        "smaller".into(),
    )])
}
