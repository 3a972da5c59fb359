//! rein under Harbor (issue 33), through `integrations/harbor/run_offline.sh`: jobs of 1,
//! 4, 16 and 32 concurrent trials of the smoke task (two model turns each), each trial in
//! bubblewrap with its own fake model. Per trial: the agent's setup time and the bytes
//! uploaded into it, rein's peak memory (sampled from `/proc` while the job runs), and
//! how much each turn slows down as trials run side by side. Needs Harbor in
//! `.ci/harbor-venv`, bwrap and root (the rows say so otherwise).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::{Row, percentile};

/// Turns of the smoke task's scenario.
const TURNS: f64 = 2.0;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn seconds(v: &Value) -> Option<Duration> {
    let at = |k: &str| v[k].as_str().and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok());
    (at("finished_at")? - at("started_at")?).to_std().ok()
}

/// The largest `VmHWM` (kB) of any process named `rein` while `running` holds.
fn sample_peak(running: Arc<AtomicBool>, peak: Arc<AtomicU64>) {
    while running.load(Ordering::Relaxed) {
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else { continue };
            if status.lines().next() != Some("Name:\trein") {
                continue;
            }
            let hwm = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok());
            if let Some(kb) = hwm {
                peak.fetch_max(kb, Ordering::Relaxed);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

struct Job {
    setup: Duration,
    execution: Duration,
    peak_kb: u64,
}

fn job(bin: &Path, testkit: &Path, n: usize) -> anyhow::Result<Job> {
    let jobs = tempfile::tempdir()?;
    let (running, peak) = (Arc::new(AtomicBool::new(true)), Arc::new(AtomicU64::new(0)));
    let sampler = {
        let (running, peak) = (running.clone(), peak.clone());
        std::thread::spawn(move || sample_peak(running, peak))
    };
    let out = std::process::Command::new(repo().join("integrations/harbor/run_offline.sh"))
        .arg(n.to_string())
        .env("REIN_BINARY", bin)
        .env("REIN_TESTKIT_BIN", testkit)
        .env("REIN_HARBOR_JOBS_DIR", jobs.path())
        .output()?;
    running.store(false, Ordering::Relaxed);
    let _ = sampler.join();
    if !out.status.success() {
        bail!("run_offline.sh {n} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().lines().last().context("no job directory")?);
    let (mut setups, mut executions) = (Vec::new(), Vec::new());
    for entry in std::fs::read_dir(&dir)?.flatten() {
        let Ok(text) = std::fs::read_to_string(entry.path().join("result.json")) else { continue };
        let trial: Value = serde_json::from_str(&text)?;
        if trial["verifier_result"]["rewards"]["reward"] != 1.0 {
            bail!("a trial did not pass: {trial}");
        }
        setups.extend(seconds(&trial["agent_setup"]));
        executions.extend(seconds(&trial["agent_execution"]));
    }
    if executions.len() != n {
        bail!("{} of {n} trials reported", executions.len());
    }
    setups.sort();
    executions.sort();
    Ok(Job {
        setup: percentile(&setups, 0.5),
        execution: percentile(&executions, 0.5),
        peak_kb: peak.load(Ordering::Relaxed),
    })
}

pub(crate) fn rows(bin: &Path, _cwd: &Path, _home: &Path) -> anyhow::Result<Vec<Row>> {
    let missing = |why: &str| Ok(vec![("Harbor rows".into(), why.into(), String::new())]);
    if !repo().join(".ci/harbor-venv/bin/python").exists() {
        return missing("Harbor is not installed in .ci/harbor-venv (scripts/prepare installs it)");
    }
    // SAFETY: getuid cannot fail.
    if unsafe { libc::getuid() } != 0 {
        return missing("run_offline.sh needs root (nsenter)");
    }
    let testkit = std::env::current_exe()?.with_file_name("rein-testkit");
    if !testkit.exists() {
        return missing("no rein-testkit next to rein-bench (cargo build --release -p rein-testkit)");
    }
    let bytes = std::fs::metadata(bin)?.len();
    let mut rows: Vec<Row> = Vec::new();
    let one = job(bin, &testkit, 1)?;
    rows.push(("Harbor trial: agent setup (upload + install)".into(), crate::ms(one.setup), "—".into()));
    rows.push((
        "Harbor trial: bytes uploaded".into(),
        format!("{:.1} MB (the rein binary)", bytes as f64 / 1e6),
        "Claude Code: a 245–402 MB download".into(),
    ));
    rows.push((
        "Harbor trial: rein's peak RSS".into(),
        format!("{:.1} MB", one.peak_kb as f64 / 1024.0),
        "Claude Code: ~250 MB".into(),
    ));
    let mut held = 1;
    for n in [4usize, 16, 32] {
        let j = job(bin, &testkit, n)?;
        let added = j.execution.saturating_sub(one.execution).as_secs_f64() / TURNS;
        if added <= 1.0 {
            held = n;
        }
        rows.push((
            format!("Harbor: {n} concurrent trials, added latency per turn (median)"),
            format!(
                "{:.3} s (agent run {:.3} s vs {:.3} s alone)",
                added,
                j.execution.as_secs_f64(),
                one.execution.as_secs_f64()
            ),
            "≤ 1 s".into(),
        ));
        rows.push((
            format!("Harbor: {n} concurrent trials, rein's peak RSS (any trial)"),
            format!("{:.1} MB", j.peak_kb as f64 / 1024.0),
            "—".into(),
        ));
    }
    rows.push((
        "Harbor: concurrent trials held at ≤ 1 s added per turn (largest tried)".into(),
        format!("≥ {held}"),
        "≥ 10× Claude Code's".into(),
    ));
    Ok(rows)
}
