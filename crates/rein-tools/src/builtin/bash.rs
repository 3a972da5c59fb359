//! Bash: run a command in its own process group, output captured in order and capped.
//! (This is the foundation's simple form: one process per command. The persistent
//! session shell and background commands come with the full tool set.)

use std::io::Read as _;
use std::process::Stdio;
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use schemars::JsonSchema;
use serde::Deserialize;

use super::capped::CappedText;
use crate::{Tool, ToolContext, ToolError, ToolOutput};

const DEFAULT_TIMEOUT_MS: u64 = 120_000;
const MAX_TIMEOUT_MS: u64 = 600_000;
const MAX_OUTPUT_CHARS: usize = 30_000;

pub struct Bash;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashInput {
    /// The command to execute.
    pub command: String,
    /// Optional timeout in milliseconds (max 600000, default 120000).
    pub timeout: Option<u64>,
    /// A short description of what the command does, in 5-10 words.
    pub description: Option<String>,
    /// Run the command in the background. Not supported yet in this version.
    pub run_in_background: Option<bool>,
}

impl Tool for Bash {
    type Input = BashInput;

    fn name(&self) -> &'static str {
        "Bash"
    }

    fn description(&self) -> String {
        format!(
            "Executes a bash command in the working directory and returns its combined stdout and stderr, in \
             order, with the exit code when it is not zero. Output beyond {MAX_OUTPUT_CHARS} characters is cut in \
             the middle. The default timeout is {}s (max {}s); the command's whole process group is killed on \
             timeout. Stdin is closed. Prefer Read, Glob and Grep over cat, find and grep.",
            DEFAULT_TIMEOUT_MS / 1000,
            MAX_TIMEOUT_MS / 1000
        )
    }

    fn validate(&self, input: &BashInput, _ctx: &ToolContext) -> Result<(), String> {
        if input.command.trim().is_empty() {
            return Err("command is empty".into());
        }
        if input.run_in_background == Some(true) {
            return Err("run_in_background is not supported yet; run the command in the foreground".into());
        }
        Ok(())
    }

    fn is_read_only(&self, _: &BashInput) -> bool {
        false
    }

    async fn call(&self, input: BashInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let timeout = Duration::from_millis(input.timeout.unwrap_or(DEFAULT_TIMEOUT_MS).clamp(1, MAX_TIMEOUT_MS));
        run(&input.command, ctx, timeout).await
    }
}

/// How the command ended.
enum Ending {
    Exited(std::process::ExitStatus),
    TimedOut,
    Cancelled,
}

async fn run(command: &str, ctx: &ToolContext, timeout: Duration) -> Result<ToolOutput, ToolError> {
    let (reader, writer) = std::io::pipe()?;
    let mut cmd = tokio::process::Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(&ctx.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer.try_clone()?))
        .stderr(Stdio::from(writer))
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|e| ToolError::new(format!("cannot start bash: {e}")))?;
    // Our copies of the pipe's write end must close, or the reader never sees EOF.
    drop(cmd);
    let group = child.id().and_then(|id| Pid::from_raw(id as i32));
    let collector = tokio::task::spawn_blocking(move || collect(reader));

    let ending = tokio::select! {
        status = child.wait() => Ending::Exited(status?),
        _ = tokio::time::sleep(timeout) => Ending::TimedOut,
        _ = ctx.abort.cancelled() => Ending::Cancelled,
    };
    // Kill the whole group: on timeout and cancel, and to reap anything the command left
    // running in the background that would otherwise hold the pipe open.
    if let Some(pgid) = group {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
    let _ = child.wait().await;
    let output = collector.await.map_err(|e| ToolError::new(format!("reading output failed: {e}")))?;
    let output = if output.trim().is_empty() { String::new() } else { output.trim_end_matches('\n').to_string() };
    Ok(match ending {
        Ending::Exited(status) if status.success() => {
            ToolOutput::text(if output.is_empty() { "(no output)".to_string() } else { output })
        }
        Ending::Exited(status) => {
            let code = status.code().map(|c| c.to_string()).unwrap_or_else(|| "killed by a signal".into());
            ToolOutput::failure(format!("{output}{}Exit code {code}", if output.is_empty() { "" } else { "\n" }))
        }
        Ending::TimedOut => {
            ToolOutput::failure(format!("{output}\nCommand timed out after {} ms and was killed", timeout.as_millis()))
        }
        Ending::Cancelled => ToolOutput::failure(format!("{output}\nInterrupted by user")),
    })
}

fn collect(mut reader: std::io::PipeReader) -> String {
    let mut capped = CappedText::new(MAX_OUTPUT_CHARS);
    let mut buf = [0u8; 8192];
    let mut carry: Vec<u8> = Vec::new();
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                carry.extend_from_slice(&buf[..n]);
                // Decode what is complete; keep a split UTF-8 sequence for the next read.
                let valid = match std::str::from_utf8(&carry) {
                    Ok(_) => carry.len(),
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    Err(_) => carry.len(),
                };
                capped.push_str(&String::from_utf8_lossy(&carry[..valid]));
                carry.drain(..valid);
            }
        }
    }
    capped.push_str(&String::from_utf8_lossy(&carry));
    capped.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::ToolResultContent;

    fn text(o: &ToolOutput) -> String {
        match &o.content {
            ToolResultContent::Text(t) => t.clone(),
            other => panic!("{other:?}"),
        }
    }

    fn ctx() -> ToolContext {
        ToolContext::new(std::env::temp_dir(), std::env::temp_dir())
    }

    #[tokio::test]
    async fn captures_stdout_and_stderr_in_order_with_exit_code() {
        let out = run("echo one; echo two >&2; echo three; exit 3", &ctx(), Duration::from_secs(10)).await.unwrap();
        assert!(out.is_error);
        assert_eq!(text(&out), "one\ntwo\nthree\nExit code 3");
    }

    #[tokio::test]
    async fn timeout_kills_the_process_group() {
        let start = std::time::Instant::now();
        let out = run("sleep 30 & sleep 30; echo never", &ctx(), Duration::from_millis(300)).await.unwrap();
        assert!(out.is_error);
        assert!(text(&out).contains("timed out"), "{}", text(&out));
        assert!(start.elapsed() < Duration::from_secs(10));
    }

    #[tokio::test]
    async fn huge_output_is_capped() {
        let out = run("seq 1 200000", &ctx(), Duration::from_secs(30)).await.unwrap();
        let t = text(&out);
        assert!(t.len() < MAX_OUTPUT_CHARS + 200, "{}", t.len());
        assert!(t.starts_with("1\n2\n") && t.trim_end().ends_with("200000"));
        assert!(t.contains("lines truncated"));
    }
}
