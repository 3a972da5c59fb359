//! The interactive session in a real terminal (tmux): the first frame after start, a
//! keystroke's way to the screen after 1 000 messages of history, peak memory then, and
//! full-screen clears in the raw output (there should be none).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use};
use serde_json::json;

struct Pane(String);

impl Pane {
    fn tmux(&self, args: &[&str]) -> anyhow::Result<String> {
        let out = Command::new("tmux").args(["-L", &self.0]).args(args).output()?;
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn wait_for(&self, text: &str, limit: Duration) -> anyhow::Result<Duration> {
        let t0 = Instant::now();
        loop {
            if self.tmux(&["capture-pane", "-p", "-t", "t"])?.contains(text) {
                return Ok(t0.elapsed());
            }
            if t0.elapsed() > limit {
                bail!("the screen never showed {text:?}");
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.0, "kill-server"]).status();
    }
}

fn start(
    bin: &Path,
    cwd: &Path,
    home: &Path,
    server: &FakeServer,
    args: &str,
    n: usize,
) -> anyhow::Result<(Pane, Instant)> {
    let pane = Pane(format!("rein-bench-{}-{n}", std::process::id()));
    let command = format!(
        "cd '{}' && exec env -i PATH='{}' HOME='{}' TERM=xterm-256color ANTHROPIC_BASE_URL='{}' ANTHROPIC_API_KEY=b '{}' {args}",
        cwd.display(),
        std::env::var("PATH").unwrap_or_default(),
        home.display(),
        server.url(),
        bin.display()
    );
    let t0 = Instant::now();
    let ok = Command::new("tmux")
        .args(["-L", &pane.0, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", &command])
        .status()?
        .success();
    if !ok {
        bail!("tmux did not start");
    }
    Ok((pane, t0))
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<(String, String, String)>> {
    if Command::new("tmux").arg("-V").output().is_err() {
        return Ok(vec![("interactive rows".into(), "tmux missing".into(), String::new())]);
    }
    // The folder is trusted, as the person would have answered the trust question once
    // (in `~/.claude.json`, where Claude Code keeps it).
    let record = serde_json::json!({"projects": {cwd.display().to_string(): {"hasTrustDialogAccepted": true}}});
    std::fs::write(home.join(".claude.json"), record.to_string())?;
    let mut rows = Vec::new();
    let (layout, whole) = rein_tui::bench::live_area_frame(200, 50);
    rows.push((
        "interactive: a 200-row live area (streaming table and paragraph): layout with wrapping and the table / whole frame (medians of 50)".into(),
        format!("{} / {}", crate::ms(layout), crate::ms(whole)),
        "≤ 1 ms / —".into(),
    ));
    let mut firsts = Vec::new();
    for i in 0..10 {
        let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
        let (pane, t0) = start(bin, cwd, home, &server, "", i)?;
        pane.wait_for("manual mode on", Duration::from_secs(10))?;
        firsts.push(t0.elapsed());
    }
    firsts.sort();
    rows.push((
        "interactive: start → first frame (median of 10, via tmux)".into(),
        crate::ms(firsts[5]),
        "< 30 ms".into(),
    ));

    // 500 tool calls with output and their answers: 1 000 messages of history.
    let mut steps: Vec<rein_testkit::Step> = (0..500)
        .map(|i| {
            reply([text(&format!("Step {i}.\n")), tool_use("Bash", json!({"command": format!("seq {i} {}", i + 20)}))])
                .into()
        })
        .collect();
    steps.push(reply([text("All steps done.")]).into());
    let server = FakeServer::start(Scenario::new(steps))?;
    let (pane, _) = start(bin, cwd, home, &server, "--allowedTools 'Bash(seq:*)'", 99)?;
    let raw = cwd.join("tmux-raw.log");
    pane.tmux(&["pipe-pane", "-o", "-t", "t", &format!("cat >> '{}'", raw.display())])?;
    pane.wait_for("manual mode on", Duration::from_secs(10))?;
    pane.tmux(&["send-keys", "-t", "t", "-l", "go"])?;
    pane.tmux(&["send-keys", "-t", "t", "Enter"])?;
    pane.wait_for("All steps done.", Duration::from_secs(120))?;
    let mut keys = Vec::new();
    for (i, c) in "abcdefghij".chars().enumerate() {
        pane.tmux(&["send-keys", "-t", "t", "-l", &c.to_string()])?;
        let typed: String = "abcdefghij".chars().take(i + 1).collect();
        keys.push(pane.wait_for(&format!("❯ {typed}"), Duration::from_secs(5))?);
    }
    keys.sort();
    // tmux's own share: the same keys echoed by `cat` in a pane.
    let baseline = {
        let echo = Pane(format!("rein-bench-cat-{}", std::process::id()));
        Command::new("tmux")
            .args(["-L", &echo.0, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "cat"])
            .status()?;
        let mut times = Vec::new();
        for c in "abcdefghij".chars() {
            echo.tmux(&["send-keys", "-t", "t", "-l", &c.to_string()])?;
            times.push(echo.wait_for(&c.to_string(), Duration::from_secs(5))?);
        }
        times.sort();
        times[times.len() / 2]
    };
    let median = keys[keys.len() / 2];
    rows.push((
        "interactive: keystroke → screen after 1 000 messages, less tmux's own (median)".into(),
        format!("{} ({} − {})", crate::ms(median.saturating_sub(baseline)), crate::ms(median), crate::ms(baseline)),
        "< 5 ms".into(),
    ));
    let pid = pane.tmux(&["display-message", "-p", "-t", "t", "#{pane_pid}"])?;
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid.trim())).context("reading the rein process")?;
    let hwm = status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).unwrap_or("0");
    let kb: f64 = hwm.parse().unwrap_or(0.0);
    rows.push((
        "interactive: peak RSS after 1 000 messages".into(),
        format!("{:.1} MB", kb / 1024.0),
        "< 40 MB".into(),
    ));
    drop(pane);
    let bytes = std::fs::read(&raw).unwrap_or_default();
    let clears = bytes.windows(4).filter(|w| *w == b"\x1b[2J" || *w == b"\x1b[3J").count();
    rows.push(("interactive: full-screen clears in that session".into(), clears.to_string(), "0".into()));
    Ok(rows)
}
