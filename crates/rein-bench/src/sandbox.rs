//! What the OS sandbox adds to a command: the Bash round trip of `true` in each tier,
//! less the same round trip unsandboxed.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rein_sandbox::{Sandbox, SandboxConfig};
use rein_tools::{Registry, ToolContext, register_builtins_sandboxed};
use serde_json::json;

use crate::{Row, ms, percentile};

fn round_trips(sandbox: Option<Arc<Sandbox>>, root: &Path) -> anyhow::Result<Duration> {
    let mut registry = Registry::new();
    register_builtins_sandboxed(&mut registry, sandbox)?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let ctx = ToolContext::new(root.to_path_buf(), root.join(".session"));
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

pub fn rows(bin: &Path) -> anyhow::Result<Vec<Row>> {
    let project = tempfile::tempdir()?;
    let root = std::fs::canonicalize(project.path())?;
    std::fs::create_dir_all(root.join(".git/hooks"))?;
    let plain = round_trips(None, &root)?;
    let mut rows = vec![("Bash `true`, sandbox off".to_string(), ms(plain), "no added cost".to_string())];
    for (tier, target) in [('A', "≤ 15 ms"), ('B', "≤ 3 ms")] {
        let config = SandboxConfig { enabled: true, allow_unsandboxed_commands: true, ..SandboxConfig::default() };
        let sandbox = Sandbox::new(config, std::slice::from_ref(&root), bin.to_path_buf(), Some(tier))?;
        if sandbox.probe.tier.letter() != tier {
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
