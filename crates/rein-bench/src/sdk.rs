//! The Agent SDK driving the harness: the Python SDK's `query()` of one scripted turn,
//! from the call to the first message and to the result, with rein as `cli_path` and
//! with the real `claude` the SDK bundles, against the same fake server. Needs the SDK
//! in `.ci/venv` (`.ci/run` installs it); the rows say so when it is missing.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use rein_testkit::{FakeServer, Scenario, Step, reply, text};

use crate::Row;

const RUNS: usize = 10;

const DRIVER: &str = r#"
import asyncio, json, os, sys, time
from claude_agent_sdk import query, ClaudeAgentOptions, ResultMessage
cli, base, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = {"ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": "sk-bench", "DISABLE_TELEMETRY": "1",
       "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
async def one():
    opts = ClaudeAgentOptions(cli_path=cli, cwd=os.getcwd(), env=env)
    t0 = time.perf_counter(); first = None; ok = False
    async for m in query(prompt="hi", options=opts):
        if first is None: first = time.perf_counter() - t0
        if isinstance(m, ResultMessage): ok = not m.is_error
    return [first, time.perf_counter() - t0, ok]
async def main():
    print(json.dumps([await one() for _ in range(n)]))
asyncio.run(main())
"#;

fn venv_python() -> Option<PathBuf> {
    // Not canonicalized: the venv's python is a symlink whose own path makes it the venv's.
    let py = std::env::current_dir().ok()?.join(".ci/venv/bin/python");
    let ok = Command::new(&py).args(["-c", "import claude_agent_sdk"]).output().is_ok_and(|o| o.status.success());
    ok.then_some(py)
}

/// The `claude` binary the Python SDK bundles.
fn bundled_claude(py: &Path) -> Option<PathBuf> {
    let out = Command::new(py)
        .args(["-c", "import claude_agent_sdk, os; print(os.path.join(os.path.dirname(claude_agent_sdk.__file__), '_bundled', 'claude'))"])
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    path.exists().then_some(path)
}

/// Median seconds to the first message and to the result over the runs.
fn measure(py: &Path, cli: &Path, cwd: &Path, home: &Path) -> anyhow::Result<(f64, f64)> {
    let steps: Vec<Step> = (0..RUNS).map(|_| reply([text("hello")]).into()).collect();
    let server = FakeServer::start(Scenario::new(steps))?;
    let script = cwd.join("sdk_bench_driver.py");
    std::fs::write(&script, DRIVER)?;
    let out = Command::new(py)
        .arg(&script)
        .arg(cli)
        .arg(server.url())
        .arg(RUNS.to_string())
        .current_dir(cwd)
        .env("HOME", home)
        .output()
        .context("running the SDK driver")?;
    if !out.status.success() {
        bail!("the SDK driver failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let runs: Vec<(f64, f64, bool)> = serde_json::from_slice(&out.stdout).context("the driver's output")?;
    if runs.iter().any(|r| !r.2) {
        bail!("a query ended in an error with {}", cli.display());
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok((median(runs.iter().map(|r| r.0).collect()), median(runs.iter().map(|r| r.1).collect())))
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    let Some(py) = venv_python() else {
        return Ok(vec![("Agent SDK query()".into(), "skipped: no SDK in .ci/venv".into(), "≥ 20× claude".into())]);
    };
    let (first, done) = measure(&py, bin, cwd, home)?;
    let mut rows = vec![(
        "Agent SDK (Python) query(), rein: first message / result".to_string(),
        format!("{:.1} ms / {:.1} ms", first * 1e3, done * 1e3),
        "—".to_string(),
    )];
    match bundled_claude(&py).map(|claude| measure(&py, &claude, cwd, home)) {
        Some(Ok((c_first, c_done))) => {
            rows.push((
                "Agent SDK (Python) query(), bundled claude: first message / result".into(),
                format!("{:.1} ms / {:.1} ms", c_first * 1e3, c_done * 1e3),
                "—".into(),
            ));
            rows.push((
                "Agent SDK query(): rein faster than claude (first message / result)".into(),
                format!("{:.0}× / {:.0}×", c_first / first, c_done / done),
                "≥ 20× to the first message".into(),
            ));
        }
        Some(Err(e)) => rows.push(("Agent SDK query(), bundled claude".into(), format!("failed: {e}"), "—".into())),
        None => rows.push(("Agent SDK query(), bundled claude".into(), "not found".into(), "—".into())),
    }
    Ok(rows)
}
