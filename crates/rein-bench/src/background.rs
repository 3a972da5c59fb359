//! Background sessions (`rein --bg`): 20 at once on the fake server — each one's peak
//! memory (its session and its host), `rein agents` listing them, and attaching to one of
//! 1 000 messages until its last answer is on screen (via tmux).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rein_testkit::{FakeServer, Scenario, Step, reply, text, tool_use};
use serde_json::{Value, json};

use crate::Row;

/// The argument that makes rein a host, as `pkill -f` finds it.
const HOST: &str = "__rein-job-host";

/// How many background sessions run at once.
const SESSIONS: usize = 20;

struct Rein<'a> {
    bin: &'a Path,
    cwd: &'a Path,
    home: &'a Path,
    url: String,
}

impl Rein<'_> {
    fn command(&self) -> Command {
        let mut c = Command::new(self.bin);
        c.current_dir(self.cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home)
            .env("TERM", "xterm-256color")
            .env("ANTHROPIC_BASE_URL", &self.url)
            .env("ANTHROPIC_API_KEY", "b")
            .env("REIN_MAX_BACKGROUND_SESSIONS", SESSIONS.to_string());
        c
    }

    fn start(&self, args: &[&str]) -> anyhow::Result<String> {
        let out = self.command().arg("--bg").args(args).output()?;
        let said = String::from_utf8_lossy(&out.stdout);
        let id = said.lines().next().and_then(|l| l.split(" · ").nth(1)).map(str::to_string);
        id.with_context(|| format!("rein --bg said: {said}{}", String::from_utf8_lossy(&out.stderr)))
    }

    fn agents(&self) -> anyhow::Result<Vec<Value>> {
        let out = self.command().args(["agents", "--json"]).output()?;
        Ok(serde_json::from_slice::<Value>(&out.stdout)?.as_array().cloned().unwrap_or_default())
    }

    /// Wait until every listed session is done.
    fn all_done(&self, n: usize, limit: Duration) -> anyhow::Result<()> {
        let t0 = Instant::now();
        loop {
            let all = self.agents()?;
            if all.len() >= n && all.iter().all(|j| j["status"] == "done") {
                return Ok(());
            }
            if t0.elapsed() > limit {
                bail!("background sessions never all finished: {all:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn remove_all(&self) {
        // Nothing outlives the bench, whatever went wrong: every host of this HOME goes.
        let _ = Command::new("pkill").arg("-f").arg(format!("{} {}", HOST, self.home.display())).status();
        for j in self.agents().unwrap_or_default() {
            if let Some(id) = j["id"].as_str() {
                let _ = self.command().args(["rm", id]).output();
            }
        }
    }
}

/// Removes every background session when the rows are done or fail.
struct Cleanup<'a, 'b>(&'a Rein<'b>);

impl Drop for Cleanup<'_, '_> {
    fn drop(&mut self) {
        self.0.remove_all();
    }
}

/// A process's peak resident memory, kB.
fn vm_hwm(pid: u64) -> Option<u64> {
    kb(&format!("/proc/{pid}/status"), "VmHWM:")
}

/// A process's share of the memory it uses, kB: its own pages, and the pages it shares
/// (rein's code, mapped once for every session) divided among those sharing them.
fn pss(pid: u64) -> Option<u64> {
    kb(&format!("/proc/{pid}/smaps_rollup"), "Pss:")
}

fn kb(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().find_map(|l| l.strip_prefix(key))?.split_whitespace().next()?.parse().ok()
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    if Command::new("tmux").arg("-V").output().is_err() {
        return Ok(vec![("background session rows".into(), "tmux missing".into(), String::new())]);
    }
    let record = json!({"projects": {cwd.display().to_string(): {"hasTrustDialogAccepted": true}}});
    std::fs::write(home.join(".claude.json"), record.to_string())?;
    let mut rows = Vec::new();
    let server = FakeServer::start(Scenario::new((0..SESSIONS).map(|_| Step::from(reply([text("Done.")])))))?;
    let rein = Rein { bin, cwd, home, url: server.url() };
    rein.remove_all();
    let _cleanup = Cleanup(&rein);
    let t0 = Instant::now();
    for i in 0..SESSIONS {
        rein.start(&[&format!("say done {i}")])?;
    }
    let launch = t0.elapsed() / SESSIONS as u32;
    rein.all_done(SESSIONS, Duration::from_secs(60))?;
    let mut each: Vec<u64> = Vec::new();
    let mut shares: Vec<u64> = Vec::new();
    for entry in std::fs::read_dir(home.join(".rein/jobs"))?.flatten() {
        let state: Value = serde_json::from_str(&std::fs::read_to_string(entry.path().join("state.json"))?)?;
        let (Some(host), Some(session)) = (state["hostPid"].as_u64(), state["sessionPid"].as_u64()) else { continue };
        each.push(vm_hwm(host).unwrap_or(0) + vm_hwm(session).unwrap_or(0));
        shares.push(pss(host).unwrap_or(0) + pss(session).unwrap_or(0));
    }
    each.sort_unstable();
    shares.sort_unstable();
    let mb = |kb: u64| format!("{:.1} MB", kb as f64 / 1024.0);
    rows.push(("background: `rein --bg` → its id printed (average of 20)".into(), crate::ms(launch), String::new()));
    rows.push((
        format!("background: {SESSIONS} sessions at once, peak RSS each, session + host (largest / median)"),
        format!("{} / {}", mb(each.last().copied().unwrap_or(0)), mb(each.get(each.len() / 2).copied().unwrap_or(0))),
        "≤ 25 MB".into(),
    ));
    rows.push((
        format!("background: {SESSIONS} sessions at once, the machine's memory each (PSS, session + host; median)"),
        mb(shares.get(shares.len() / 2).copied().unwrap_or(0)),
        String::new(),
    ));
    let mut lists = Vec::new();
    for _ in 0..11 {
        let t = Instant::now();
        let out = rein.command().arg("agents").output()?;
        lists.push(t.elapsed());
        if !out.status.success() {
            bail!("rein agents failed");
        }
    }
    lists.sort();
    rows.push((
        format!("background: `rein agents` with {SESSIONS} sessions (median of 11)"),
        crate::ms(lists[5]),
        "≤ 20 ms".into(),
    ));
    rein.remove_all();

    // 500 tool calls with their answers: 1 000 messages, then attach.
    let mut steps: Vec<Step> = (0..500)
        .map(|i| {
            reply([text(&format!("Step {i}.")), tool_use("Bash", json!({"command": format!("seq {i} {}", i + 5)}))])
                .into()
        })
        .collect();
    steps.push(reply([text("All steps are done.")]).into());
    let server = FakeServer::start(Scenario::new(steps))?;
    let rein = Rein { bin, cwd, home, url: server.url() };
    let _cleanup = Cleanup(&rein);
    let id = rein.start(&["go", "--allowedTools", "Bash(seq:*)"])?;
    rein.all_done(1, Duration::from_secs(180))?;
    let mut paints = Vec::new();
    for n in 0..5 {
        paints.push(attach_paint(bin, cwd, home, &id, n)?);
    }
    paints.sort();
    let painted = paints[2];
    rein.remove_all();
    rows.push((
        "background: attach → last answer on screen, 1 000-message session (via tmux, its start included; median of 5)"
            .into(),
        crate::ms(painted),
        "≤ 50 ms".into(),
    ));
    Ok(rows)
}

/// Attach to `id` in a new tmux pane: the time until its last answer is on screen.
fn attach_paint(bin: &Path, cwd: &Path, home: &Path, id: &str, n: usize) -> anyhow::Result<Duration> {
    let socket = format!("rein-bench-bg-{}-{n}", std::process::id());
    let command = format!(
        "cd '{}' && exec env -i PATH='{}' HOME='{}' TERM=xterm-256color '{}' attach {id}",
        cwd.display(),
        std::env::var("PATH").unwrap_or_default(),
        home.display(),
        bin.display()
    );
    let t0 = Instant::now();
    Command::new("tmux")
        .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", &command])
        .status()?;
    let painted = loop {
        let out = Command::new("tmux").args(["-L", &socket, "capture-pane", "-p", "-t", "t"]).output()?;
        if String::from_utf8_lossy(&out.stdout).contains("All steps are done.") {
            break Ok(t0.elapsed());
        }
        if t0.elapsed() > Duration::from_secs(10) {
            break Err(anyhow::anyhow!("the attached session never showed its last answer"));
        }
        std::thread::sleep(Duration::from_micros(500));
    };
    let _ = Command::new("tmux").args(["-L", &socket, "kill-server"]).status();
    // The host notices the terminal left before the next one attaches.
    std::thread::sleep(Duration::from_millis(100));
    painted
}
