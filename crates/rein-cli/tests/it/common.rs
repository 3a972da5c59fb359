//! Helpers shared by the binary's integration tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use rein_testkit::{FakeServer, Scenario};
use serde_json::Value;

/// The built-in tools sent in full in the first request, in order: the rarely used
/// ones wait behind ToolSearch (last), which names them.
pub(crate) const SENT_TOOLS: [&str; 10] =
    ["Read", "Glob", "Grep", "Bash", "Write", "Edit", "TodoWrite", "Agent", "AskUserQuestion", "ToolSearch"];

/// Every built-in tool, in the order the model sees them.
pub(crate) const ALL_TOOLS: [&str; 20] = [
    "Read",
    "Glob",
    "Grep",
    "Bash",
    "TaskOutput",
    "TaskStop",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "WebFetch",
    "TodoWrite",
    "WebSearch",
    "Agent",
    "Workflow",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitWorktree",
    "ExitPlanMode",
    "AskUserQuestion",
];

/// A scratch project directory and a scratch HOME.
pub(crate) struct Env {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl Env {
    pub(crate) fn new() -> Self {
        Env { dir: tempfile::tempdir().unwrap(), home: tempfile::tempdir().unwrap() }
    }

    pub(crate) fn cwd(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Trust the project folder, as the person would have answered the trust question
    /// (in `~/.claude.json`, where Claude Code keeps it).
    pub(crate) fn trust(&self) {
        rein_session::trust::record_trust(&self.home.path().join(".claude.json"), self.dir.path()).unwrap();
    }

    /// `rein` in the project, with a clean environment: no real credentials, HOME isolated.
    pub(crate) fn rein(&self) -> Command {
        let mut c = Command::cargo_bin("rein").unwrap();
        c.current_dir(self.dir.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            // Retries wait 1 ms (not 500) in tests.
            .env("REIN_RETRY_BASE_MS", "1")
            .timeout(std::time::Duration::from_secs(60));
        c
    }

    /// `rein` as a plain process (to signal or kill it), pointed at `server`, with the
    /// same clean environment as [`rein`](Self::rein).
    pub(crate) fn spawnable_at(&self, server: &FakeServer) -> std::process::Command {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("rein"));
        c.current_dir(self.dir.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("ANTHROPIC_BASE_URL", server.url())
            .env("ANTHROPIC_API_KEY", "k");
        c
    }

    /// `rein` pointed at `server` with a test key.
    pub(crate) fn rein_at(&self, server: &FakeServer) -> Command {
        let mut c = self.rein();
        c.env("ANTHROPIC_BASE_URL", server.url()).env("ANTHROPIC_API_KEY", "sk-test");
        c
    }
}

pub(crate) fn serve(scenario: Scenario) -> FakeServer {
    FakeServer::start(scenario).unwrap()
}

/// stdout as JSON lines.
pub(crate) fn json_lines(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The system prompt of request `n`.
pub(crate) fn system_of(server: &FakeServer, n: usize) -> String {
    server.requests()[n].system_text()
}

/// The tool_result for `id` in `messages`: its text and whether it is an error.
pub(crate) fn tool_result(messages: &[Value], id: &str) -> (String, bool) {
    for m in messages {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["tool_use_id"] == id {
                // A string, or a list of blocks (an MCP tool's result): its text.
                let text = match &b["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(blocks) if blocks.iter().all(|b| b["type"] == "text") => {
                        blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n")
                    }
                    other => other.to_string(),
                };
                return (text, b["is_error"] == serde_json::json!(true));
            }
        }
    }
    panic!("no result for {id}");
}

/// Whether real bubblewrap is installed (`.ci/run` installs it); the sandbox tests skip
/// without it, saying so.
pub(crate) fn have_bwrap() -> bool {
    let ok = std::process::Command::new("bwrap").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        unavailable("bubblewrap is not installed (apt-get install bubblewrap)");
    }
    ok
}

/// A test's dependency is missing: on a developer's machine the test says so and is
/// skipped; under `CI=true` it fails — a test never passes by skipping there
/// (`scripts/test` installs what the tests need).
#[allow(clippy::print_stderr)] // a test helper: says what was skipped
pub(crate) fn unavailable(what: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") {
        panic!("{what}; CI=true, so this test fails instead of skipping (scripts/prepare installs it)");
    }
    eprintln!("{what}: skipped (scripts/prepare installs it)");
}

/// A loopback HTTP server that answers every request with `response` (whole, headers
/// included); its port.
pub(crate) fn http_answering(response: &'static [u8]) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = conn.read(&mut buf);
            let _ = conn.write_all(response);
        }
    });
    port
}

/// One headless session (`rein -p go`) whose model makes the tool calls `calls` (ids
/// c0, c1, …) and then answers: each call's result (text, is_error), rein's stderr, and
/// the fake server (its requests). `configure` adds flags or environment.
pub(crate) fn tool_calls(
    env: &Env,
    calls: &[(&str, Value)],
    configure: impl FnOnce(&mut Command),
) -> (Vec<(String, bool)>, String, FakeServer) {
    use rein_testkit::{reply, text, tool_use_with_id};
    let mut steps: Vec<_> = calls
        .iter()
        .enumerate()
        .map(|(i, (tool, input))| reply([tool_use_with_id(&format!("c{i}"), tool, input.clone())]))
        .collect();
    steps.push(reply([text("done")]));
    let server = serve(Scenario::new(steps));
    let mut cmd = env.rein_at(&server);
    cmd.args(["-p", "go"]);
    configure(&mut cmd);
    let out = cmd.assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let last = server.requests().last().unwrap().body["messages"].as_array().unwrap().clone();
    let results = (0..calls.len()).map(|i| tool_result(&last, &format!("c{i}"))).collect();
    (results, stderr, server)
}
