//! `rein-bench PATH/TO/rein`: measures the real binary and prints a table.
//! - `rein --version`: wall time and peak RSS;
//! - process start → first request at the fake server for `rein -p`;
//! - tools: Grep and Glob against ripgrep, Read deep in a large file, Bash round trip
//!   (skip with REIN_BENCH_SKIP_TOOLS=1);
//! - 50- and 500-turn scripted sessions (one Glob per turn, instant fake server): harness
//!   time per turn (end of one response → next request) and peak RSS.

// A binary: what it prints is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod background;
mod big_setup;
mod definitions;
mod executor;
mod harbor;
mod hooks;
mod judge;
mod lsp;
mod mcp;
mod media;
mod oauth;
mod plugins;
mod policy;
mod providers;
mod requests;
mod sandbox;
mod sdk;
mod sessions;
mod slow_mcp;
mod tool_search;
mod tools;
mod tui;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// One line of the table: what, rein's figure, the target.
pub type Row = (String, String, String);
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use};
use serde_json::json;

/// Wall time and peak RSS of one child process.
struct Run {
    wall: Duration,
    max_rss_kb: i64,
    ok: bool,
}

/// Spawn `program args` and wait for it with wait4: (wall, peak RSS in KB, success).
pub(crate) fn spawn_and_measure(cmd: &mut Command) -> anyhow::Result<Run> {
    let start = Instant::now();
    let child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).stdin(Stdio::null()).spawn()?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    if r != pid {
        bail!("wait4 failed: {}", std::io::Error::last_os_error());
    }
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    Ok(Run { wall, max_rss_kb: usage.ru_maxrss, ok })
}

/// `rein-bench --measure PROGRAM ARGS…`: run one program and print its figures. Linux
/// charges a child's peak RSS with its parent's at the time of the spawn (vfork + exec
/// keep the larger high-water mark), so measurements go through this small, fresh
/// process rather than the benchmark's own, which grows as its fake servers record.
fn measure_mode(args: &[String]) -> anyhow::Result<()> {
    let (program, rest) = args.split_first().context("--measure needs a program")?;
    let r = spawn_and_measure(Command::new(program).args(rest))?;
    println!("{} {} {}", r.wall.as_nanos(), r.max_rss_kb, r.ok);
    Ok(())
}

/// Run a command prepared by [`rein`] through the measuring process.
pub(crate) fn run(cmd: &mut Command) -> anyhow::Result<Run> {
    let out = cmd.stdin(Stdio::null()).stderr(Stdio::inherit()).output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.split_whitespace();
    let mut next = || parts.next().context("the measuring process printed nothing");
    let wall = Duration::from_nanos(next()?.parse()?);
    let max_rss_kb = next()?.parse()?;
    let ok = next()? == "true";
    Ok(Run { wall, max_rss_kb, ok })
}

/// `rein` itself (not through the measuring process) in `cwd` with a clean environment,
/// pointed at `server`: for measures taken from this process (start times, `/proc`).
pub(crate) fn rein_direct(bin: &Path, cwd: &Path, home: &Path, server: &FakeServer) -> Command {
    let mut c = Command::new(bin);
    c.current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "bench");
    c
}

/// `rein` in `cwd` with a clean environment, launched through the measuring process.
pub(crate) fn rein(bin: &Path, cwd: &Path, home: &Path, server: Option<&FakeServer>) -> anyhow::Result<Command> {
    let mut c = Command::new(std::env::current_exe()?);
    c.arg("--measure").arg(bin);
    c.current_dir(cwd).env_clear().env("PATH", std::env::var_os("PATH").unwrap_or_default()).env("HOME", home);
    if let Some(s) = server {
        c.env("ANTHROPIC_BASE_URL", s.url()).env("ANTHROPIC_API_KEY", "bench");
    }
    Ok(c)
}

pub(crate) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub(crate) fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// A benchmark section run on its own: its flag, and its rows for a binary, a work
/// folder and a home folder. `--sdk` and `--tool-search` run from the repository root.
type Section = fn(&Path, &Path, &Path) -> anyhow::Result<Vec<(String, String, String)>>;
const SECTIONS: &[(&str, Section)] = &[
    ("--media", media::rows),
    ("--big-setup", big_setup::rows),
    ("--requests", requests::rows),
    ("--tui", tui::rows),
    ("--sdk", sdk::rows),
    ("--tool-search", tool_search::rows),
    ("--judge", judge::rows),
    ("--mcp", mcp::rows),
    ("--lsp", lsp::rows),
    ("--oauth", oauth::rows),
    ("--harbor", harbor::rows),
    ("--background", background::rows),
];

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--measure") {
        return measure_mode(&args[2..]);
    }
    // Only one section's rows: `rein-bench --media PATH/TO/rein` (see SECTIONS).
    if let Some((flag, rows)) = SECTIONS.iter().find(|(flag, _)| args.get(1).map(String::as_str) == Some(*flag)) {
        let bin =
            std::fs::canonicalize(args.get(2).with_context(|| format!("usage: rein-bench {flag} PATH/TO/rein"))?)?;
        let (work, home) = (tempfile::tempdir()?, tempfile::tempdir()?);
        for (name, value, target) in rows(&bin, work.path(), home.path())? {
            println!("{name}: {value} ({target})");
        }
        return Ok(());
    }
    // Only the large-output rows (1 GB, and saving 10 MB): `rein-bench --output`.
    if args.get(1).map(String::as_str) == Some("--output") {
        for (name, value, target) in tools::gigabyte_row()? {
            println!("{name}: {value} ({target})");
        }
        return Ok(());
    }
    // The big setup's folders, kept for profiling: `--big-setup-fixture DIR` makes
    // DIR/project and DIR/home.
    if args.get(1).map(String::as_str) == Some("--big-setup-fixture") {
        let dir = PathBuf::from(args.get(2).context("usage: rein-bench --big-setup-fixture DIR")?);
        let (project, home) = (dir.join("project"), dir.join("home"));
        std::fs::create_dir_all(&project)?;
        std::fs::create_dir_all(&home)?;
        big_setup::install(&std::fs::canonicalize(&project)?, &std::fs::canonicalize(&home)?)?;
        println!("{}\n{}", project.display(), home.display());
        return Ok(());
    }
    // Only the large-configuration row: `--definitions PATH/TO/rein`.
    if args.get(1).map(String::as_str) == Some("--definitions") {
        let bin = std::fs::canonicalize(args.get(2).context("usage: rein-bench --definitions PATH/TO/rein")?)?;
        for (name, value, target) in definitions::rows(&bin)? {
            println!("{name}: {value} ({target})");
        }
        return Ok(());
    }
    // Only the plugin rows: `--plugins PATH/TO/rein`.
    if args.get(1).map(String::as_str) == Some("--plugins") {
        let bin = std::fs::canonicalize(args.get(2).context("usage: rein-bench --plugins PATH/TO/rein")?)?;
        for (name, value, target) in plugins::rows(&bin)? {
            println!("{name}: {value} ({target})");
        }
        return Ok(());
    }
    // Only the permission-decision row (quick, for working on the policy).
    if args.get(1).map(String::as_str) == Some("--policy") {
        for (name, value, target) in policy::rows()? {
            println!("{name}: {value} ({target})");
        }
        return Ok(());
    }
    // Only each provider's 50-turn Glob session: `--providers PATH/TO/rein`.
    if args.get(1).map(String::as_str) == Some("--providers") {
        let bin =
            std::fs::canonicalize(PathBuf::from(args.get(2).context("usage: rein-bench --providers PATH/TO/rein")?))?;
        let (work, home) = (tempfile::tempdir()?, tempfile::tempdir()?);
        for i in 0..20 {
            std::fs::write(work.path().join(format!("file{i:02}.txt")), "x\n")?;
        }
        for (name, value, target) in providers::rows(&bin, work.path(), home.path())? {
            println!("{name}: {value} ({target})");
        }
        return Ok(());
    }
    // Only the sandbox plan's row (no binary needed): `--sandbox-plan`.
    if args.get(1).map(String::as_str) == Some("--sandbox-plan") {
        let (name, value, target) = sandbox::plan_row()?;
        println!("{name}: {value} ({target})");
        return Ok(());
    }
    // Only the sandbox rows (quick, for working on the sandbox): `--sandbox PATH/TO/rein`.
    if args.get(1).map(String::as_str) == Some("--sandbox") {
        let bin =
            std::fs::canonicalize(PathBuf::from(args.get(2).context("usage: rein-bench --sandbox PATH/TO/rein")?))?;
        for (name, value, target) in sandbox::rows(&bin)? {
            println!("{name}: {value} ({target})");
        }
        return Ok(());
    }
    let bin = std::fs::canonicalize(PathBuf::from(std::env::args().nth(1).context("usage: rein-bench PATH/TO/rein")?))
        .context("cannot find the rein binary")?;
    let work = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    for i in 0..20 {
        std::fs::write(work.path().join(format!("file{i:02}.txt")), "x\n")?;
    }
    let mut rows: Vec<(String, String, String)> = Vec::new();
    let skip_tools = std::env::var_os("REIN_BENCH_SKIP_TOOLS").is_some();
    let gigabyte = if skip_tools { Vec::new() } else { tools::gigabyte_row()? };
    // Measured while this process is small: Tier B forks it for every command (its
    // confinement runs between fork and exec), and the later rows keep every request
    // of long sessions in memory, which makes each fork slower.
    let sandbox_rows = sandbox::rows(&bin)?;

    // 1. --version
    let mut walls = Vec::new();
    let mut rss = 0;
    for _ in 0..50 {
        let r = run(rein(&bin, work.path(), home.path(), None)?.arg("--version"))?;
        walls.push(r.wall);
        rss = rss.max(r.max_rss_kb);
    }
    walls.sort();
    rows.push(("rein --version, wall (median of 50)".into(), ms(percentile(&walls, 0.5)), "< 5 ms".into()));
    rows.push(("rein --version, peak RSS".into(), format!("{:.1} MB", rss as f64 / 1024.0), "< 10 MB".into()));

    // 2. start → first request
    let mut firsts = Vec::new();
    for _ in 0..20 {
        let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
        // Spawned directly: the start time is taken in this process.
        let mut cmd = rein_direct(&bin, work.path(), home.path(), &server);
        cmd.args(["-p", "hi"]);
        let t0 = Instant::now();
        let r = spawn_and_measure(&mut cmd)?;
        if !r.ok {
            bail!("rein -p failed");
        }
        let req = server.requests().into_iter().next().context("no request")?;
        firsts.push(req.received_at.duration_since(t0));
    }
    firsts.sort();
    rows.push(("start → first request (median of 20)".into(), ms(percentile(&firsts, 0.5)), "< 20 ms".into()));
    rows.extend(definitions::rows(&bin)?);
    rows.extend(plugins::rows(&bin)?);
    rows.extend(big_setup::rows(&bin, work.path(), home.path())?);

    // 3. long sessions
    let tool = std::env::var("REIN_BENCH_TOOL").unwrap_or_else(|_| "Glob".into());
    for (turns, target_rss) in [(50usize, "< 20 MB"), (500, "< 40 MB")] {
        let mut steps: Vec<rein_testkit::Step> =
            (0..turns).map(|_| reply([tool_use(&tool, json!({"pattern": "*.txt"}))]).into()).collect();
        steps.push(reply([text("done")]).into());
        let server = FakeServer::start(Scenario::new(steps))?;
        let r = run(rein(&bin, work.path(), home.path(), Some(&server))?.args(["-p", "go", "--max-turns", "100000"]))?;
        if !r.ok {
            bail!("{turns}-turn session failed");
        }
        let reqs = server.requests();
        if reqs.len() != turns + 1 {
            bail!("expected {} requests, saw {}", turns + 1, reqs.len());
        }
        let mut gaps: Vec<Duration> =
            reqs.windows(2).filter_map(|w| Some(w[1].received_at.duration_since(w[0].response_done_at?))).collect();
        gaps.sort();
        rows.push((
            format!("{turns}-turn session: harness time per turn (median / p95)"),
            format!("{} / {}", ms(percentile(&gaps, 0.5)), ms(percentile(&gaps, 0.95))),
            "< 1 ms".into(),
        ));
        rows.push((format!("{turns}-turn session: total wall"), ms(r.wall), String::new()));
        rows.push((
            format!("{turns}-turn session: peak RSS"),
            format!("{:.1} MB", r.max_rss_kb as f64 / 1024.0),
            target_rss.into(),
        ));
    }

    rows.extend(requests::rows(&bin, work.path(), home.path())?);
    rows.extend(media::rows(&bin, work.path(), home.path())?);
    rows.extend(providers::rows(&bin, work.path(), home.path())?);
    rows.extend(sandbox_rows);
    rows.extend(mcp::rows(&bin, work.path(), home.path())?);
    rows.extend(lsp::rows(&bin, work.path(), home.path())?);
    rows.extend(oauth::rows(&bin, work.path(), home.path())?);
    rows.extend(harbor::rows(&bin, work.path(), home.path())?);
    rows.extend(sdk::rows(&bin, work.path(), home.path())?);
    rows.extend(judge::rows(&bin, work.path(), home.path())?);
    rows.extend(tool_search::rows(&bin, work.path(), home.path())?);
    rows.extend(policy::rows()?);
    rows.extend(hooks::rows()?);
    rows.extend(executor::rows(&bin, work.path(), home.path())?);
    rows.extend(sessions::rows(&bin, home.path())?);
    rows.extend(tui::rows(&bin, work.path(), home.path())?);
    rows.extend(background::rows(&bin, work.path(), home.path())?);
    if !skip_tools {
        rows.extend(gigabyte);
        rows.extend(tools::rows()?);
    }
    let w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(10);
    println!("| {:w$} | {:>24} | {:>16} |", "measure", "rein", "target");
    println!("|{}|{}|{}|", "-".repeat(w + 2), "-".repeat(26), "-".repeat(18));
    for (name, value, target) in rows {
        println!("| {name:w$} | {value:>24} | {target:>16} |");
    }
    Ok(())
}
