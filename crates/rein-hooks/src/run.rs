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
pub async fn run(handler: &Handler, input: &str, cwd: &Path, env: &[(String, String)]) -> Run {
    let display = handler.display();
    let project_dir = env.iter().find(|(k, _)| k == "CLAUDE_PROJECT_DIR").map(|(_, v)| v.as_str()).unwrap_or("");
    let subst = |s: &str| s.replace("${CLAUDE_PROJECT_DIR}", project_dir);
    let mut cmd = match &handler.kind {
        HandlerKind::Command { command, args: None } => {
            let mut c = tokio::process::Command::new("sh");
            c.arg("-c").arg(subst(command));
            c
        }
        HandlerKind::Command { command, args: Some(args) } => {
            let mut c = tokio::process::Command::new(subst(command));
            c.args(args.iter().map(|a| subst(a)));
            c
        }
        HandlerKind::Callback { .. }
        | HandlerKind::Http { .. }
        | HandlerKind::Prompt { .. }
        | HandlerKind::Agent { .. }
        | HandlerKind::McpTool { .. } => {
            return Run {
                handler: display,
                exit: Exit::NotStarted("this handler does not run as a command".into()),
                stdout: String::new(),
                stderr: String::new(),
            };
        }
        HandlerKind::Unsupported(t) => {
            return Run {
                handler: display,
                exit: Exit::NotStarted(format!("`{t}` is not a hook type (command, http, prompt, agent, mcp_tool)")),
                stdout: String::new(),
                stderr: String::new(),
            };
        }
    };
    for var in rein_process::CREDENTIAL_VARS {
        cmd.env_remove(var);
    }
    cmd.current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
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
    let mut group = rein_process::GroupGuard::new(child.id());
    let mut stdin = child.stdin.take();
    let input = input.to_string();
    let feed = async move {
        if let Some(s) = stdin.as_mut() {
            // A hook that does not read its input must not make us fail.
            let _ = s.write_all(input.as_bytes()).await;
        }
        drop(stdin);
    };
    let mut out = child.stdout.take();
    let mut err = child.stderr.take();
    let read = |pipe: Option<tokio::process::ChildStdout>| async move {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = (&mut p).take(MAX_OUTPUT as u64).read_to_end(&mut buf).await;
        }
        String::from_utf8_lossy(&buf).into_owned()
    };
    let read_err = |pipe: Option<tokio::process::ChildStderr>| async move {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = (&mut p).take(MAX_OUTPUT as u64).read_to_end(&mut buf).await;
        }
        String::from_utf8_lossy(&buf).into_owned()
    };
    let timeout = handler.timeout.map(Duration::from_secs_f64).unwrap_or(DEFAULT_TIMEOUT);
    let work = async {
        let (_, stdout, stderr, status) = tokio::join!(feed, read(out.take()), read_err(err.take()), child.wait());
        (stdout, stderr, status)
    };
    let result = tokio::time::timeout(timeout, work).await;
    group.kill();
    match result {
        Ok((stdout, stderr, status)) => {
            let code = status.ok().and_then(|s| s.code());
            // The shell's own "cannot run" codes: not found, not executable, bad interpreter.
            let exit =
                if matches!(handler.kind, HandlerKind::Command { args: None, .. }) && matches!(code, Some(126 | 127)) {
                    Exit::NotStarted(format!("{display}: {}", stderr.lines().next().unwrap_or("could not run")))
                } else {
                    Exit::Code(code)
                };
            Run { handler: display, exit, stdout, stderr }
        }
        Err(_) => Run { handler: display, exit: Exit::TimedOut(timeout), stdout: String::new(), stderr: String::new() },
    }
}
