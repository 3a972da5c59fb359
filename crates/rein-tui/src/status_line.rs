//! The `statusLine` setting: a command that gets the session's facts as JSON on stdin
//! and prints the rows shown above the footer — up to three, each cut to the window's
//! width, its colours drawn as colours; the footer (the mode, the hints) stays below.
//! It runs at start, after each turn and on a mode change, debounced 300 ms, never while
//! a run is still going, with rein's credentials kept out of its environment.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const DEBOUNCE: Duration = Duration::from_millis(300);
const TIMEOUT: Duration = Duration::from_secs(5);
/// Rows shown at most.
const MAX_ROWS: usize = 3;

/// A configured status line and its last output.
pub(crate) struct StatusLine {
    command: String,
    output: Arc<Mutex<Option<String>>>,
    running: Arc<Mutex<bool>>,
    /// A refresh is wanted since this moment.
    wanted: Option<Instant>,
}

impl StatusLine {
    pub(crate) fn new(command: String) -> Self {
        StatusLine { command, output: Default::default(), running: Default::default(), wanted: Some(Instant::now()) }
    }

    /// The command it runs.
    pub(crate) fn command(&self) -> &str {
        &self.command
    }

    /// The last output's rows at `width`.
    pub(crate) fn rows(&self, width: usize) -> Vec<ratatui::text::Line<'static>> {
        let output = self.output.lock().unwrap_or_else(|p| p.into_inner());
        let text = output.as_deref().unwrap_or_default();
        text.lines().take(MAX_ROWS).map(|l| crate::wrap::clip(&ratatui::text::Line::from(l), width)).collect()
    }

    /// Something the status line shows changed.
    pub(crate) fn invalidate(&mut self) {
        self.wanted.get_or_insert_with(Instant::now);
    }

    /// Run the command if a refresh is due (debounced) and none is running.
    pub(crate) fn tick(&mut self, facts: Value) {
        let Some(since) = self.wanted else { return };
        if since.elapsed() < DEBOUNCE || *self.running.lock().unwrap_or_else(|p| p.into_inner()) {
            return;
        }
        self.wanted = None;
        *self.running.lock().unwrap_or_else(|p| p.into_inner()) = true;
        let (command, output, running) = (self.command.clone(), self.output.clone(), self.running.clone());
        tokio::spawn(async move {
            let text = run(&command, &facts).await;
            if let Some(t) = text {
                *output.lock().unwrap_or_else(|p| p.into_inner()) = Some(t);
            }
            *running.lock().unwrap_or_else(|p| p.into_inner()) = false;
        });
    }
}

async fn run(command: &str, facts: &Value) -> Option<String> {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c").arg(command).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    cmd.stderr(std::process::Stdio::null()).kill_on_drop(true);
    rein_process::env::for_child(cmd.as_std_mut());
    let mut child = cmd.spawn().ok()?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(facts.to_string().as_bytes()).await;
    }
    let mut out = String::new();
    let mut stdout = child.stdout.take()?;
    let read = tokio::time::timeout(TIMEOUT, stdout.read_to_string(&mut out)).await;
    let _ = child.kill().await;
    read.ok()?.ok()?;
    Some(out.trim_end_matches(['\n', '\r']).to_string())
}

/// The facts a status line script reads (a subset of Claude Code's fields).
pub(crate) fn facts(model: &str, cwd: &std::path::Path, project: &std::path::Path, cost_usd: f64, mode: &str) -> Value {
    json!({
        "model": {"id": model, "display_name": model},
        "cwd": cwd,
        "workspace": {"current_dir": cwd, "project_dir": project},
        "cost": {"total_cost_usd": cost_usd},
        "permission_mode": mode,
        "version": env!("CARGO_PKG_VERSION"),
    })
}
