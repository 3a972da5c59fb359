//! Running one command handler: stdin JSON, captured output, timeout, process group.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::config::{Handler, HandlerKind};

/// Default handler timeout (spec §A3).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// Output kept from a hook.
const MAX_OUTPUT: usize = 100_000;

/// How a handler ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Exit {
    /// It ran to completion with this exit code (`None`: killed by a signal).
    Code(Option<i32>),
    /// It ran past its timeout and its process group was killed.
    TimedOut(Duration),
    /// It could not be started (missing file, not executable, bad interpreter).
    NotStarted(String),
}

/// What one handler did.
#[derive(Debug, Clone)]
pub struct Run {
    pub handler: String,
    pub exit: Exit,
    pub stdout: String,
    pub stderr: String,
}

/// Run `handler` with `input` on stdin, in `cwd`, with `env` added.
pub(crate) async fn run(handler: &Handler, input: &str, cwd: &Path, env: &[(String, String)]) -> Run {
    let display = handler.display();
    let Some(mut cmd) = command_of(handler, cwd, env) else {
        let why = match &handler.kind {
            HandlerKind::Unsupported(t) => format!("`{t}` is not a hook type (command, http, prompt, agent, mcp_tool)"),
            _ => "this handler does not run as a command".into(),
        };
        return Run { handler: display, exit: Exit::NotStarted(why), stdout: String::new(), stderr: String::new() };
    };
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Run {
                handler: display.clone(),
                exit: Exit::NotStarted(format!("{display}: {e}")),
                stdout: String::new(),
                stderr: String::new(),
            };
        }
    };
    // Registered while it lives (a second interrupt kills it), killed when done.
    let group = rein_process::GroupGuard::new(child.id());
    let timeout = handler.timeout.map(Duration::from_secs_f64).unwrap_or(DEFAULT_TIMEOUT);
    // The hook may answer `{"async": true}` first: it goes on by itself (up to its
    // `asyncTimeout`) and nobody waits for it.
    let detach = std::sync::Arc::new(Detach::default());
    let task = tokio::spawn(finish(child, group, input.to_string(), timeout, detach.clone()));
    tokio::select! {
        done = task => {
            let (exit, stdout, stderr) = done.unwrap_or_else(|e| (Exit::NotStarted(e.to_string()), String::new(), String::new()));
            let exit = match exit {
                // The shell's own "cannot run" codes: not found, not executable, bad interpreter.
                Exit::Code(Some(126 | 127)) if matches!(handler.kind, HandlerKind::Command { args: None, .. }) => {
                    Exit::NotStarted(format!("{display}: {}", stderr.lines().next().unwrap_or("could not run")))
                }
                other => other,
            };
            Run { handler: display, exit, stdout, stderr }
        }
        _ = detach.went.notified() => {
            tracing::debug!(target: "rein::hooks", hook = %handler.display(), "the hook went on asynchronously");
            Run { handler: display, exit: Exit::Code(Some(0)), stdout: String::new(), stderr: String::new() }
        }
    }
}

/// A command handler's process, not started: `sh -c COMMAND` (or the program with its
/// `args`), `${CLAUDE_PROJECT_DIR}` filled in, in `cwd` with `env` added and rein's
/// credentials taken out, stdin piped, a process group of its own. `None` for any other
/// kind of handler.
fn command_of(handler: &Handler, cwd: &Path, env: &[(String, String)]) -> Option<tokio::process::Command> {
    let HandlerKind::Command { command, args } = &handler.kind else { return None };
    let project_dir = env.iter().find(|(k, _)| k == "CLAUDE_PROJECT_DIR").map(|(_, v)| v.as_str()).unwrap_or("");
    let subst = |s: &str| s.replace("${CLAUDE_PROJECT_DIR}", project_dir);
    let mut cmd = match args {
        None => {
            let mut c = tokio::process::Command::new("sh");
            c.arg("-c").arg(subst(command));
            c
        }
        Some(args) => {
            let mut c = tokio::process::Command::new(subst(command));
            c.args(args.iter().map(|a| subst(a)));
            c
        }
    };
    rein_process::env::for_child(cmd.as_std_mut());
    cmd.current_dir(cwd).envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str()))).stdin(Stdio::piped()).process_group(0);
    Some(cmd)
}

/// Start `handler` (an `async: true` command hook) and leave it: its output is not read,
/// nothing waits for it, and it outlives rein as Claude Code's do (rein still kills its
/// process group at its timeout while rein runs).
pub(crate) fn spawn_detached(handler: &Handler, input: &str, cwd: &Path, env: &[(String, String)]) {
    let Some(mut cmd) = command_of(handler, cwd, env) else { return };
    cmd.stdout(Stdio::null()).stderr(Stdio::null()).kill_on_drop(false);
    let Ok(mut child) = cmd.spawn() else { return };
    let timeout = handler.timeout.map(Duration::from_secs_f64).unwrap_or(DEFAULT_TIMEOUT);
    let input = input.to_string();
    tokio::spawn(async move {
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes()).await;
        }
        if tokio::time::timeout(timeout, child.wait()).await.is_err()
            && let Some(pid) = child.id()
        {
            rein_process::kill_group(pid);
            let _ = child.wait().await;
        }
    });
}

/// A hook's `{"async": true}` answer: the caller stops waiting; the hook's own deadline
/// becomes its `asyncTimeout` (milliseconds), counted from then.
#[derive(Default)]
struct Detach {
    /// For the caller, who stops waiting.
    went: tokio::sync::Notify,
    /// For the hook's own deadline.
    rearm: tokio::sync::Notify,
    timeout: std::sync::Mutex<Option<Duration>>,
}

/// `{"async": true, "asyncTimeout": MS}` at the start of a hook's output: the async
/// timeout, when it is that answer.
fn async_answer(text: &str) -> Option<Option<Duration>> {
    let first = text.trim_start().lines().next()?;
    let v: serde_json::Value = serde_json::from_str(first).ok()?;
    if v.get("async").and_then(serde_json::Value::as_bool) != Some(true) {
        return None;
    }
    Some(
        v.get("asyncTimeout")
            .and_then(serde_json::Value::as_f64)
            .filter(|ms| *ms > 0.0)
            .map(|ms| Duration::from_secs_f64(ms / 1000.0)),
    )
}

/// Feed, read and wait for the hook; killed at its deadline. Its exit and output.
async fn finish(
    mut child: tokio::process::Child,
    mut group: rein_process::GroupGuard,
    input: String,
    timeout: Duration,
    detach: std::sync::Arc<Detach>,
) -> (Exit, String, String) {
    let mut stdin = child.stdin.take();
    let feed = async move {
        if let Some(s) = stdin.as_mut() {
            // A hook that does not read its input must not make us fail.
            let _ = s.write_all(input.as_bytes()).await;
        }
        drop(stdin);
    };
    let out = child.stdout.take();
    let err = child.stderr.take();
    let watching = detach.clone();
    let read_out = async move {
        let mut buf = Vec::new();
        let Some(mut p) = out else { return String::new() };
        let mut chunk = [0u8; 8192];
        let mut looking = true;
        loop {
            match p.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n.min(MAX_OUTPUT.saturating_sub(buf.len()))]),
            }
            if looking {
                let text = String::from_utf8_lossy(&buf);
                if let Some(after) = async_answer(&text) {
                    *watching.timeout.lock().unwrap_or_else(|p| p.into_inner()) = after;
                    watching.went.notify_one();
                    watching.rearm.notify_one();
                    looking = false;
                } else if text.trim_start().contains('\n')
                    || !text.trim_start().starts_with('{') && !text.trim().is_empty()
                {
                    looking = false;
                }
            }
        }
        String::from_utf8_lossy(&buf).into_owned()
    };
    let read_err = async move {
        let mut buf = Vec::new();
        if let Some(mut p) = err {
            let _ = (&mut p).take(MAX_OUTPUT as u64).read_to_end(&mut buf).await;
        }
        String::from_utf8_lossy(&buf).into_owned()
    };
    let work = async {
        let (_, stdout, stderr, status) = tokio::join!(feed, read_out, read_err, child.wait());
        (stdout, stderr, status)
    };
    tokio::pin!(work);
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let result = loop {
        tokio::select! {
            r = &mut work => break Some(r),
            _ = &mut deadline => break None,
            _ = detach.rearm.notified() => {
                // Answered async: from now on its own async deadline holds, if it set one.
                if let Some(t) = *detach.timeout.lock().unwrap_or_else(|p| p.into_inner()) {
                    deadline.as_mut().reset(tokio::time::Instant::now() + t);
                }
            }
        }
    };
    group.kill();
    match result {
        Some((stdout, stderr, status)) => (Exit::Code(status.ok().and_then(|s| s.code())), stdout, stderr),
        None => (Exit::TimedOut(timeout), String::new(), String::new()),
    }
}
