//! Code intelligence: what a language server adds to an edit over the server's own
//! answer (the stub server of the tests answers at once, so the difference is rein's
//! waiting and bookkeeping), and start → first request with a server configured
//! (servers start on first use, so none should delay it).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use};
use serde_json::json;

use crate::{Row, ms, percentile, rein_direct, spawn_and_measure};

const EDITS: usize = 40;

fn stub() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rein-cli/tests/it/fixtures/lsp/stub_server.py")
}

/// Settings with the stub as the language server of `.stub` files.
fn settings() -> String {
    json!({"lspServers": {"stub": {"command": "python3", "args": [stub()], "extensionToLanguage": {".stub": "stub"}}}})
        .to_string()
}

/// The median gap between a Write's request and the next, over `EDITS` writes of a
/// `.stub` file (each a new text; `bad` ones have a diagnostic), with or without the server.
fn edit_gap(bin: &Path, cwd: &Path, home: &Path, with_server: bool, bad: bool) -> anyhow::Result<Duration> {
    let file = cwd.join("f.stub");
    // A new file: the first Write makes it (no Read first), the later ones change it.
    let _ = std::fs::remove_file(&file);
    let mut steps: Vec<rein_testkit::Step> = (0..EDITS)
        .map(|i| {
            let content = if bad { format!("BAD {i}\n") } else { format!("fine {i}\n") };
            reply([tool_use("Write", json!({"file_path": file, "content": content}))]).into()
        })
        .collect();
    steps.push(reply([text("done")]).into());
    let server = FakeServer::start(Scenario::new(steps))?;
    let mut cmd = rein_direct(bin, cwd, home, &server);
    cmd.args(["-p", "go", "--max-turns", "1000", "--permission-mode", "acceptEdits"]);
    if with_server {
        cmd.args(["--settings", &settings()]);
    }
    if !spawn_and_measure(&mut cmd)?.ok {
        bail!("the editing session failed");
    }
    let reqs = server.requests();
    let said = reqs.last().map(|r| r.body["messages"].to_string()).unwrap_or_default();
    if with_server && bad && !said.contains("new-diagnostics") {
        bail!("the language server's diagnostics did not reach the model: {}", &said[..said.len().min(2000)]);
    }
    // The first write starts the server: left out.
    let mut gaps: Vec<Duration> =
        reqs.windows(2).skip(2).filter_map(|w| Some(w[1].received_at.duration_since(w[0].response_done_at?))).collect();
    gaps.sort();
    Ok(percentile(&gaps, 0.5))
}

/// Median start → first request over 10 runs.
fn first_request(bin: &Path, cwd: &Path, home: &Path, with_server: bool) -> anyhow::Result<Duration> {
    let mut firsts = Vec::new();
    for _ in 0..10 {
        let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
        let mut cmd = rein_direct(bin, cwd, home, &server);
        cmd.args(["-p", "hi"]);
        if with_server {
            cmd.args(["--settings", &settings()]);
        }
        let t0 = Instant::now();
        if !spawn_and_measure(&mut cmd)?.ok {
            bail!("rein -p failed");
        }
        let req = server.requests().into_iter().next().context("no request")?;
        firsts.push(req.received_at.duration_since(t0));
    }
    firsts.sort();
    Ok(percentile(&firsts, 0.5))
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    let plain = edit_gap(bin, cwd, home, false, false)?;
    let clean = edit_gap(bin, cwd, home, true, false)?;
    let flagged = edit_gap(bin, cwd, home, true, true)?;
    let none = first_request(bin, cwd, home, false)?;
    let with = first_request(bin, cwd, home, true)?;
    let over = |d: Duration| ms(d.saturating_sub(plain));
    Ok(vec![
        (
            "Write with a language server (a stub that answers at once), added per Write: clean / with a diagnostic"
                .into(),
            format!("{} / {} (a Write alone {})", over(clean), over(flagged), ms(plain)),
            "≤ 5 ms".into(),
        ),
        (
            "Start → first request with a language server configured (none started)".into(),
            format!("{} (none configured: {})", ms(with), ms(none)),
            "no later than without".into(),
        ),
    ])
}
