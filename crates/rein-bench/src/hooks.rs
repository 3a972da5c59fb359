//! The overhead of one no-op command hook on a tool call.

use std::time::{Duration, Instant};

use rein_hooks::{HookConfig, Hooks, Session};
use rein_settings::{Locations, Settings};
use serde_json::json;

pub(crate) fn rows() -> anyhow::Result<Vec<(String, String, String)>> {
    let dir = tempfile::tempdir()?;
    let cwd = std::fs::canonicalize(dir.path())?;
    let settings = Settings::load(&Locations {
        cwd: cwd.clone(),
        local_root: cwd.clone(),
        cli: Some(
            r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#
                .into(),
        ),
        ..Locations::default()
    })?;
    let hooks = Hooks::new(
        HookConfig::from_settings(&settings)?,
        Session {
            session_id: "bench".into(),
            transcript_path: cwd.join("t.jsonl"),
            cwd: cwd.clone(),
            project_dir: cwd.clone(),
            permission_mode: "default".into(),
            session_dir: cwd.join("session"),
        },
    );
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let fields = || json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"});
    let mut times: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            let out = rt.block_on(hooks.fire(rein_hooks::HookEvent::PreToolUse, Some("Bash"), fields(), |_| true));
            std::hint::black_box(out);
            t.elapsed()
        })
        .collect();
    times.sort();
    Ok(vec![(
        "one no-op command hook (`true`) on a tool call (median)".into(),
        format!("{:.2} ms", times[times.len() / 2].as_secs_f64() * 1e3),
        "< 3 ms".into(),
    )])
}
