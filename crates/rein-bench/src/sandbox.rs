//! What the OS sandbox adds to a command: the Bash round trip of `true` in each tier,
//! less the same round trip unsandboxed; and the plan alone (the walk that finds every
//! repository and protected file) for a large workspace.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rein_sandbox::{Plan, Sandbox, SandboxConfig};
use rein_tools::{Registry, ToolContext, register_builtins_sandboxed};
use serde_json::json;

use crate::{Row, ms, percentile};

fn round_trips(sandbox: Option<Arc<Sandbox>>, root: &Path) -> anyhow::Result<Duration> {
    round_trips_granted(sandbox, root, rein_policy::Grant::User)
}

/// The median Bash round trip of `true` run with what `grant` gives.
fn round_trips_granted(
    sandbox: Option<Arc<Sandbox>>,
    root: &Path,
    grant: rein_policy::Grant,
) -> anyhow::Result<Duration> {
    let mut registry = Registry::new();
    register_builtins_sandboxed(&mut registry, sandbox)?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut ctx = ToolContext::new(root.to_path_buf(), root.join(".session"));
    ctx.grant = grant;
    // As in a session: what a confined command changes is recorded for rewind.
    let store = tempfile::tempdir()?;
    ctx.checkpoints = Some(Arc::new(rein_checkpoint::Checkpoints::open(store.path())));
    let mut times = Vec::new();
    for i in 0..51 {
        let prepared = registry.prepare("Bash", &json!({"command": "true"})).map_err(anyhow::Error::msg)?;
        let started = Instant::now();
        let out = rt.block_on(prepared.call(ctx.clone())).map_err(|e| anyhow::anyhow!(e.0))?;
        if out.is_error {
            anyhow::bail!("Bash `true` failed: {:?}", out.content);
        }
        if i > 0 {
            times.push(started.elapsed());
        }
    }
    times.sort();
    Ok(percentile(&times, 0.5))
}

/// A workspace of 50 000 files with 20 repositories (each with a few hundred objects)
/// at depths up to 6, under `node_modules/` too.
fn big_workspace(root: &Path) -> anyhow::Result<()> {
    let mut files = 0;
    for r in 0..20 {
        let repo = if r % 4 == 0 {
            root.join(format!("node_modules/pkg{r}"))
        } else {
            root.join((0..r % 6).map(|d| format!("d{d}")).collect::<Vec<_>>().join("/")).join(format!("repo{r}"))
        };
        let git = repo.join(".git");
        for d in ["hooks", "info", "refs/heads", "refs/tags"] {
            std::fs::create_dir_all(git.join(d))?;
        }
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n")?;
        std::fs::write(git.join("config"), "[core]\n\trepositoryformatversion = 0\n")?;
        for o in 0..256 {
            let dir = git.join(format!("objects/{o:02x}"));
            std::fs::create_dir_all(&dir)?;
            std::fs::write(dir.join("0123456789abcdef0123456789abcdef012345"), "x")?;
        }
        for d in 0..50 {
            let dir = repo.join(format!("src/m{d}"));
            std::fs::create_dir_all(&dir)?;
            for f in 0..50 {
                std::fs::write(dir.join(format!("f{f}.rs")), "")?;
                files += 1;
            }
        }
    }
    anyhow::ensure!(files == 50_000, "{files} files");
    Ok(())
}

/// The plan for the big workspace: median of 21, after one warm-up.
pub(crate) fn plan_row() -> anyhow::Result<Row> {
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    big_workspace(&root)?;
    let deny = [format!("{}/**/.env", root.display())];
    let mut times = Vec::new();
    for i in 0..22 {
        let started = Instant::now();
        let plan = Plan::new(std::slice::from_ref(&root), &[], &[], &deny, &[]);
        if i > 0 {
            times.push(started.elapsed());
        }
        anyhow::ensure!(plan.existing.len() >= 20 * 4, "the repositories were not all found: {}", plan.existing.len());
    }
    times.sort();
    Ok(("sandbox plan, 50k files / 20 repos".into(), ms(percentile(&times, 0.5)), "≤ 30 ms".into()))
}

/// rein's own jails, with the person's sandbox off: a command judged read-only (over the
/// same command bare), and a command tried first on the 50 000-file workspace — the
/// copy-on-write jail's start (over the read-only jail's) and the reading back of what
/// it changed when it changed nothing.
fn own_jail_rows(bin: &Path, plain: Duration) -> anyhow::Result<Vec<Row>> {
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    let config = SandboxConfig::default();
    let sandbox = Arc::new(Sandbox::new(config.clone(), std::slice::from_ref(&root), bin.to_path_buf(), None)?);
    if sandbox.probe().tier.letter() != 'A' {
        return Ok(vec![("read-only jail per command, tier A".into(), "unavailable here".into(), "≤ 10 ms".into())]);
    }
    let read_only = round_trips_granted(Some(sandbox), &root, rein_policy::Grant::ReadOnly)?;
    let mut rows = vec![(
        "read-only jail per command, tier A (over bare `true`)".to_string(),
        ms(read_only.saturating_sub(plain)),
        "≤ 10 ms".to_string(),
    )];
    big_workspace(&root)?;
    let sandbox = Sandbox::new(config, std::slice::from_ref(&root), bin.to_path_buf(), None)?;
    let argv: Vec<std::ffi::OsString> = vec!["true".into()];
    let (mut starts, mut collects) = (Vec::new(), Vec::new());
    for i in 0..12 {
        let started = Instant::now();
        let mut wrapped = sandbox.wrap_trial(&argv, &root, &[], &[]).map_err(anyhow::Error::msg)?;
        let status = wrapped.command.status()?;
        let ran = started.elapsed();
        anyhow::ensure!(status.success(), "the trial of `true` failed: {status}");
        let collecting = Instant::now();
        let trial = sandbox.finish_trial(wrapped.after).ok_or_else(|| anyhow::anyhow!("no trial"))?;
        anyhow::ensure!(trial.changed_nothing(), "`true` changed something: {:?}", trial.changes);
        if i > 0 {
            starts.push(ran);
            collects.push(collecting.elapsed());
        }
    }
    starts.sort();
    collects.sort();
    rows.push((
        "tried-first jail start, 50k files (over bare `true`)".into(),
        ms(percentile(&starts, 0.5).saturating_sub(plain)),
        "≤ 20 ms".into(),
    ));
    rows.push((
        "tried-first changes read back, changed nothing".into(),
        ms(percentile(&collects, 0.5)),
        "≤ 30 ms".into(),
    ));
    Ok(rows)
}

/// The binary that runs the sandbox's stages, as a session picks it: `rein-jail`
/// beside rein when it was built, rein itself otherwise.
fn stages(bin: &Path) -> std::path::PathBuf {
    let jail = bin.with_file_name("rein-jail");
    if jail.is_file() { jail } else { bin.to_path_buf() }
}

pub(crate) fn rows(bin: &Path) -> anyhow::Result<Vec<Row>> {
    let bin = stages(bin);
    let bin = bin.as_path();
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    std::fs::create_dir_all(root.join(".git/hooks"))?;
    let plain = round_trips(None, &root)?;
    let mut rows = vec![("Bash `true`, sandbox off".to_string(), ms(plain), "no added cost".to_string()), plan_row()?];
    rows.extend(own_jail_rows(bin, plain)?);
    for (tier, target) in [('A', "≤ 15 ms"), ('B', "≤ 3 ms")] {
        let config = SandboxConfig { enabled: true, allow_unsandboxed_commands: true, ..SandboxConfig::default() };
        let sandbox = Sandbox::new(config, std::slice::from_ref(&root), bin.to_path_buf(), Some(tier))?;
        if sandbox.probe().tier.letter() != tier {
            rows.push((format!("sandbox start per command, tier {tier}"), "unavailable here".into(), target.into()));
            continue;
        }
        let t = round_trips(Some(Arc::new(sandbox)), &root)?;
        rows.push((
            format!("sandbox start per command, tier {tier} (over unsandboxed `true`)"),
            ms(t.saturating_sub(plain)),
            target.into(),
        ));
    }
    Ok(rows)
}
