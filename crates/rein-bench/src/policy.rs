//! The permission decision for a 20-sub-command compound command: the command's
//! effects (its analysis) and the decision on them.

use std::time::{Duration, Instant};

use rein_policy::{Call, Effects, Policy, PolicyInputs};
use rein_tools::{Registry, ShellCommand, register_builtins};
use serde_json::json;

pub fn rows() -> anyhow::Result<Vec<(String, String, String)>> {
    let dir = tempfile::tempdir()?;
    let cwd = std::fs::canonicalize(dir.path())?;
    std::fs::write(cwd.join("README.md"), "x")?;
    let mut registry = Registry::new();
    register_builtins(&mut registry)?;
    let policy = Policy::new(&PolicyInputs {
        allowed_tools: ["Bash(echo:*)", "Bash(ls:*)", "Bash(git status:*)", "Bash(cd:*)", "Bash(npm test:*)"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        disallowed_tools: ["Bash(rm:*)", "Bash(curl:*)", "Read(./.env)"].iter().map(|s| s.to_string()).collect(),
        cwd: cwd.clone(),
        tools: registry.rule_kinds(),
        ..PolicyInputs::default()
    })?;
    let parts = ["echo start", "ls -la", "git status --short", "cat README.md", "grep -n x README.md"];
    let command: String = (0..20).map(|i| parts[i % parts.len()]).collect::<Vec<_>>().join(" && ");
    let input = json!({"command": command});
    let decide = || {
        let effects = Effects::running(ShellCommand::new(&command, &cwd, None));
        policy.decide(&Call { tool: "Bash", input: &input, effects: &effects })
    };
    let first = decide();
    if first.behavior != rein_policy::Behavior::Allow {
        anyhow::bail!("the benchmark command should be allowed: {}", first.reason);
    }
    let mut times: Vec<Duration> = (0..2000)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(decide());
            t.elapsed()
        })
        .collect();
    times.sort();
    let median = times[times.len() / 2];
    Ok(vec![(
        "permission decision, 20-sub-command line (median)".into(),
        format!("{:.0} µs", median.as_secs_f64() * 1e6),
        "< 200 µs".into(),
    )])
}
