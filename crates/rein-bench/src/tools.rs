//! Tool benchmarks: Grep and Glob against ripgrep on a generated 100 000-file tree,
//! Read deep into a large file, and the Bash round trip.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rein_tools::{Registry, ToolContext, register_builtins};
use serde_json::{Value, json};

const FILES: usize = 100_000;

/// Median wall time of `n` runs of `f`.
fn median<F: FnMut() -> anyhow::Result<()>>(n: usize, mut f: F) -> anyhow::Result<Duration> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// This process's peak resident set, in KB.
fn peak_rss_kb() -> i64 {
    // SAFETY: getrusage fills a plain struct for this process.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_maxrss
}

fn make_tree(root: &Path) -> anyhow::Result<()> {
    for i in 0..FILES {
        let dir = root.join(format!("d{:02}/e{:02}", i % 50, (i / 50) % 40));
        if i < 2000 {
            std::fs::create_dir_all(&dir)?;
        }
        let mut body = String::with_capacity(400);
        for l in 0..12 {
            body.push_str(&format!("fn item_{i}_{l}() -> u32 {{ {l} }}\n"));
        }
        if i % 997 == 0 {
            body.push_str("// needle_marker found here\n");
        }
        std::fs::write(dir.join(format!("f{i}_{}.rs", i % 10)), body)?;
    }
    Ok(())
}

struct Tools {
    registry: Registry,
    ctx: ToolContext,
    rt: tokio::runtime::Runtime,
}

impl Tools {
    fn call(&self, tool: &str, input: Value) -> anyhow::Result<String> {
        let prepared = self.registry.prepare(tool, &input).map_err(anyhow::Error::msg)?;
        prepared.validate(&self.ctx).map_err(anyhow::Error::msg)?;
        let out = self.rt.block_on(prepared.call(self.ctx.clone())).map_err(|e| anyhow::anyhow!(e.0))?;
        match out.content {
            rein_protocol::ToolResultContent::Text(t) if !out.is_error => Ok(t),
            other => bail!("{tool} failed: {other:?}"),
        }
    }
}

fn rg(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let out = Command::new("rg").args(args).current_dir(root).output().context("running rg")?;
    if out.stdout.is_empty() {
        bail!("rg {args:?} found nothing");
    }
    Ok(())
}

/// Bash printing 1 GB, measured first while this process is still small, so that the
/// growth of its peak RSS shows whether capture memory stays bounded.
fn bash_gigabyte(t: &Tools, rows: &mut Vec<(String, String, String)>) -> anyhow::Result<()> {
    let before = peak_rss_kb();
    let started = Instant::now();
    let out = t.call("Bash", json!({"command": "head -c 1000000000 /dev/zero | tr '\\0' a; echo"}))?;
    let took = started.elapsed();
    if !out.contains("saved to") || out.len() > 40_000 {
        bail!("1 GB of output was not saved to a file with a preview");
    }
    let growth = peak_rss_kb().saturating_sub(before);
    rows.push((
        "Bash printing 1 GB: peak RSS growth / wall".into(),
        format!(
            "{:.1} MB (peak {:.1} MB) / {:.1} s",
            growth as f64 / 1024.0,
            peak_rss_kb() as f64 / 1024.0,
            took.as_secs_f64()
        ),
        "bounded".into(),
    ));
    // Saving a 10 MB output: the same command printing it, less printing it nowhere.
    let median = |command: &str| -> anyhow::Result<std::time::Duration> {
        let mut times = Vec::new();
        for _ in 0..7 {
            let started = Instant::now();
            t.call("Bash", json!({ "command": command }))?;
            times.push(started.elapsed());
        }
        times.sort();
        Ok(times[times.len() / 2])
    };
    let saved = median("head -c 10000000 /dev/zero | tr '\\0' a; echo")?;
    let nowhere = median("head -c 10000000 /dev/zero | tr '\\0' a > /dev/null; echo")?;
    rows.push((
        "Bash printing 10 MB: saved whole to a file with its preview, over printing it nowhere (medians of 7)".into(),
        format!("{} ({} − {})", crate::ms(saved.saturating_sub(nowhere)), crate::ms(saved), crate::ms(nowhere)),
        "≤ 20 ms".into(),
    ));
    Ok(())
}

/// The 1 GB row; call it first, while this process is small.
pub(crate) fn gigabyte_row() -> anyhow::Result<Vec<(String, String, String)>> {
    let mut rows = Vec::new();
    {
        let scratch = tempfile::tempdir()?;
        let mut registry = Registry::new();
        register_builtins(&mut registry)?;
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let cwd = std::fs::canonicalize(scratch.path())?;
        let t = Tools { registry, ctx: ToolContext::new(cwd.clone(), cwd.join(".session")), rt };
        bash_gigabyte(&t, &mut rows)?;
    }
    Ok(rows)
}

pub(crate) fn rows() -> anyhow::Result<Vec<(String, String, String)>> {
    let mut rows = Vec::new();
    let tree = tempfile::tempdir()?;
    let root = std::fs::canonicalize(tree.path())?;
    let started = Instant::now();
    make_tree(&root)?;
    eprintln!("generated {FILES} files in {:.1}s", started.elapsed().as_secs_f64());
    let mut registry = Registry::new();
    register_builtins(&mut registry)?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let t = Tools { registry, ctx: ToolContext::new(root.clone(), root.join(".session")), rt };
    let have_rg = Command::new("rg").arg("--version").output().is_ok();

    let mut compare = |name: &str, rein: Duration, rg: Option<Duration>| {
        let (rg_s, ratio) = match rg {
            Some(r) => {
                (format!("{:.1} ms", r.as_secs_f64() * 1e3), format!("{:.2}×", rein.as_secs_f64() / r.as_secs_f64()))
            }
            None => ("(rg missing)".into(), "-".into()),
        };
        rows.push((
            format!("{name}: rein / rg"),
            format!("{:.1} ms / {rg_s}", rein.as_secs_f64() * 1e3),
            format!("{ratio} (≤ 1.25×)"),
        ));
    };
    // Warm the page cache once.
    t.call("Grep", json!({"pattern": "needle_marker"}))?;
    let n = 5;
    let rein = median(n, || t.call("Grep", json!({"pattern": "needle_marker", "output_mode": "content"})).map(|_| ()))?;
    let rgt = if have_rg { Some(median(n, || rg(&root, &["-n", "needle_marker"]))?) } else { None };
    compare("Grep content", rein, rgt);
    let rein = median(n, || t.call("Grep", json!({"pattern": "needle_marker"})).map(|_| ()))?;
    let rgt = if have_rg { Some(median(n, || rg(&root, &["-l", "needle_marker"]))?) } else { None };
    compare("Grep files_with_matches", rein, rgt);
    let rein = median(n, || t.call("Glob", json!({"pattern": "**/*_7.rs"})).map(|_| ()))?;
    let rgt = if have_rg { Some(median(n, || rg(&root, &["--files", "-g", "*_7.rs"]))?) } else { None };
    compare("Glob **/*_7.rs (10 000 matches)", rein, rgt);

    let big = root.join("big.txt");
    std::fs::write(&big, (1..=100_000).map(|i| format!("line {i} of a large file\n")).collect::<String>())?;
    let read = median(20, || {
        let out = t.call("Read", json!({"file_path": big, "offset": 90_000, "limit": 2000}))?;
        if !out.starts_with(" 90000\t") {
            bail!("unexpected Read output");
        }
        Ok(())
    })?;
    rows.push((
        "Read at offset 90 000 of a 100 000-line file".into(),
        format!("{:.2} ms", read.as_secs_f64() * 1e3),
        "< 20 ms".into(),
    ));
    t.call("Bash", json!({"command": "true"}))?;
    let bash = median(50, || t.call("Bash", json!({"command": "true"})).map(|_| ()))?;
    rows.push((
        "Bash round trip of `true` (session shell)".into(),
        format!("{:.2} ms", bash.as_secs_f64() * 1e3),
        "< 5 ms".into(),
    ));
    Ok(rows)
}
