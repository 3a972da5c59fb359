//! MCP: start → first request with five stdio servers configured (against none), what
//! an MCP call costs through rein over the server's own round trip, and rein's memory
//! per connected server. Uses `@modelcontextprotocol/server-everything` from
//! `.ci/node` (`.ci/run` installs it).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use};
use serde_json::json;

use crate::{Row, ms, percentile, rein_direct, spawn_and_measure};

const SERVERS: usize = 5;
const CALLS: usize = 40;

fn everything() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node/node_modules/.bin/mcp-server-everything");
    p.exists().then_some(p)
}

fn config(bin: &Path, n: usize) -> String {
    let servers: serde_json::Map<String, serde_json::Value> =
        (0..n).map(|i| (format!("s{i}"), json!({"command": bin, "args": ["stdio"]}))).collect();
    json!({"mcpServers": servers}).to_string()
}

/// Median start → first request over 10 runs with `n` servers.
fn first_request(bin: &Path, server_bin: &Path, n: usize, cwd: &Path, home: &Path) -> anyhow::Result<Duration> {
    let mut firsts = Vec::new();
    for _ in 0..10 {
        let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
        let mut cmd = rein_direct(bin, cwd, home, &server);
        cmd.args(["-p", "hi"]);
        if n > 0 {
            cmd.args(["--mcp-config", &config(server_bin, n)]);
        }
        let t0 = Instant::now();
        if !spawn_and_measure(&mut cmd)?.ok {
            bail!("rein -p with {n} MCP servers failed");
        }
        let req = server.requests().into_iter().next().context("no request")?;
        firsts.push(req.received_at.duration_since(t0));
    }
    firsts.sort();
    Ok(percentile(&firsts, 0.5))
}

/// Per-turn gaps of a session calling `tool` once a turn (the server is `s0`); and rein's own peak RSS in
/// kB (`VmHWM`, read while the last answer is on its way: the rusage of a finished
/// process also counts the children it reaped, and servers are larger than rein).
pub(crate) fn turns(
    bin: &Path,
    tool: &str,
    input: serde_json::Value,
    extra: &[String],
    cwd: &Path,
    home: &Path,
) -> anyhow::Result<(Duration, i64)> {
    let mut steps: Vec<rein_testkit::Step> =
        (0..CALLS).map(|_| reply([tool_use(tool, input.clone())]).into()).collect();
    steps.push(reply([text("done")]).pause_after_event(0, 500).into());
    let server = FakeServer::start(Scenario::new(steps))?;
    let mut cmd = rein_direct(bin, cwd, home, &server);
    cmd.args(["-p", "go", "--max-turns", "1000", "--allowedTools", "mcp__s0", "--allowedTools", "TodoWrite"])
        .args(extra)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn()?;
    let deadline = Instant::now() + Duration::from_secs(120);
    while server.requests().len() < CALLS + 1 {
        if Instant::now() > deadline || child.try_wait()?.is_some() {
            let _ = child.kill();
            bail!("the {tool} session failed ({} requests)", server.requests().len());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()))?;
    let hwm_kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<i64>().ok())
        .context("no VmHWM")?;
    if !child.wait()?.success() {
        bail!("the {tool} session failed");
    }
    let reqs = server.requests();
    // The first call may wait for its server to start: leave it out.
    let mut gaps: Vec<Duration> =
        reqs.windows(2).skip(1).filter_map(|w| Some(w[1].received_at.duration_since(w[0].response_done_at?))).collect();
    gaps.sort();
    Ok((percentile(&gaps, 0.5), hwm_kb))
}

/// The server's own round trip for `echo`, through a bare rmcp client.
fn direct_call(server_bin: &Path) -> anyhow::Result<Duration> {
    use rein_mcp::config::{ServerConfig, Source, Transport};
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let cfg = ServerConfig {
            name: "direct".into(),
            transport: Transport::Stdio {
                command: server_bin.display().to_string(),
                args: vec!["stdio".into()],
                env: Default::default(),
            },
            timeout_ms: None,
            headers_helper: None,
            oauth: None,
            source: Source::Dynamic,
            origin: "bench".into(),
        };
        let cwd = std::env::temp_dir();
        let facts = rein_mcp::SessionFacts { cwd: &cwd, session_id: "bench", tunnel: None, elicitor: None };
        let conn =
            rein_mcp::client::connect(&cfg, &facts, Duration::from_secs(30)).await.map_err(anyhow::Error::msg)?;
        let mut times = Vec::new();
        for _ in 0..CALLS {
            let args = json!({"message": "hi"}).as_object().cloned().unwrap_or_default();
            let t = Instant::now();
            conn.service
                .call_tool(rmcp::model::CallToolRequestParams::new("echo").with_arguments(args))
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            times.push(t.elapsed());
        }
        times.sort();
        Ok(percentile(&times, 0.5))
    })
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    let Some(server_bin) = everything() else {
        return Ok(vec![(
            "MCP rows".into(),
            "server-everything not installed (.ci/run installs it)".into(),
            String::new(),
        )]);
    };
    let none = first_request(bin, &server_bin, 0, cwd, home)?;
    let five = first_request(bin, &server_bin, SERVERS, cwd, home)?;
    let mut rows = vec![(
        format!("start → first request, no MCP servers / {SERVERS} stdio servers (median of 10)"),
        format!("{} / {}", ms(none), ms(five)),
        "< 20 ms, unchanged".into(),
    )];
    let cfg = config(&server_bin, 1);
    let (mcp_gap, rss_one) =
        turns(bin, "mcp__s0__echo", json!({"message": "hi"}), &["--mcp-config".into(), cfg], cwd, home)?;
    let (plain_gap, rss_none) = turns(bin, "TodoWrite", json!({"todos": []}), &[], cwd, home)?;
    let direct = direct_call(&server_bin)?;
    let overhead = mcp_gap.saturating_sub(plain_gap).saturating_sub(direct);
    rows.push((
        "MCP call: turn with an echo call − turn with a built-in call − the server's own round trip".into(),
        format!("{} ({} − {} − {})", ms(overhead), ms(mcp_gap), ms(plain_gap), ms(direct)),
        "< 1 ms".into(),
    ));
    let (_, rss_five) = turns(
        bin,
        "mcp__s0__echo",
        json!({"message": "hi"}),
        &["--mcp-config".into(), config(&server_bin, SERVERS)],
        cwd,
        home,
    )?;
    let per_server = (rss_five.saturating_sub(rss_none)) as f64 / SERVERS as f64 / 1024.0;
    rows.push((
        format!(
            "rein's memory per connected MCP server ({SERVERS} servers vs none; one server: {:+.1} MB)",
            (rss_one as f64 - rss_none as f64) / 1024.0
        ),
        format!("{per_server:.2} MB"),
        "< 1 MB".into(),
    ));
    Ok(rows)
}
