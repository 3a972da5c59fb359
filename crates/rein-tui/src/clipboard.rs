//! The system clipboard, through the tool that can run here: `wl-paste`/`wl-copy` on
//! Wayland, `xclip` on X11, `pngpaste`/`pbcopy` on macOS. Ctrl+V reads an image from it;
//! `/copy` and `/export` put text on it — as an OSC 52 sequence when no tool runs, which
//! most terminals (and tmux, over ssh too) put on the system clipboard. Each tool starts
//! without rein's credentials.

use rein_process::env::Var;
use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;

/// How long a clipboard tool may take to answer.
const CLIPBOARD_WAIT: Duration = Duration::from_secs(3);

/// Why no image came from the clipboard.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClipboardError {
    #[error(
        "no clipboard tool found: rein reads images with wl-paste (Wayland, package wl-clipboard), xclip (X11) or \
         pngpaste (macOS)"
    )]
    NoTool,
    #[error("no image in the clipboard ({0})")]
    NoImage(String),
}

/// Whether `tool` can run here: on PATH, and its display (`needs`) set.
fn usable(tool: &str, needs: Option<Var>) -> bool {
    let display = needs.is_none_or(|var| rein_process::env::os(var).is_some_and(|v| !v.is_empty()));
    display
        && rein_process::env::os(Var::Path)
            .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(tool).is_file()))
}

/// `tool` with `args`, without rein's credentials.
fn command(tool: &str, args: &[&str]) -> Command {
    let mut command = Command::new(tool);
    rein_process::env::for_child(&mut command);
    command.args(args);
    command
}

/// The image in the clipboard, as bytes, from the first clipboard tool that can run
/// here.
pub(crate) fn read_image() -> Result<Vec<u8>, ClipboardError> {
    for (tool, args, needs) in [
        ("wl-paste", &["--no-newline", "--type", "image/png"][..], Some(Var::WaylandDisplay)),
        ("xclip", &["-selection", "clipboard", "-target", "image/png", "-out"][..], Some(Var::Display)),
        ("pngpaste", &["-"][..], None),
    ] {
        if !usable(tool, needs) {
            continue;
        }
        return match output(tool, args) {
            Ok(bytes) if !bytes.is_empty() => Ok(bytes),
            Ok(_) => Err(ClipboardError::NoImage(format!("{tool} gave nothing"))),
            Err(why) => Err(ClipboardError::NoImage(format!("{tool}: {why}"))),
        };
    }
    Err(ClipboardError::NoTool)
}

/// Put `text` on the clipboard; how it went there.
pub(crate) fn copy(text: &str) -> std::io::Result<&'static str> {
    for (tool, args, needs) in [
        ("wl-copy", &[][..], Some(Var::WaylandDisplay)),
        ("xclip", &["-selection", "clipboard", "-in"][..], Some(Var::Display)),
        ("pbcopy", &[][..], None),
    ] {
        if usable(tool, needs) && piped(tool, args, text).is_ok() {
            return Ok(tool);
        }
    }
    let sequence = format!("\x1b]52;c;{}\x07", base64::engine::general_purpose::STANDARD.encode(text));
    let mut out = std::io::stdout();
    out.write_all(sequence.as_bytes())?;
    out.flush()?;
    Ok("the terminal (OSC 52)")
}

/// Run `tool` with `text` on its stdin. xclip and wl-copy stay to serve the selection,
/// so the tool is not waited for once it has read everything (it is reaped in the
/// background).
fn piped(tool: &str, args: &[&str], text: &str) -> std::io::Result<()> {
    let mut child = command(tool, args).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(text.as_bytes())?;
    }
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// Run a clipboard tool for at most [`CLIPBOARD_WAIT`]; its output.
fn output(tool: &str, args: &[&str]) -> Result<Vec<u8>, ToolFailed> {
    let mut child = command(tool, args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(ToolFailed::Start)?;
    let mut stdout = child.stdout.take().ok_or(ToolFailed::NoOutput)?;
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < CLIPBOARD_WAIT => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ToolFailed::NoAnswer);
            }
        }
    };
    let bytes = reader.join().unwrap_or_default();
    if !status.success() {
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut err);
        }
        let err = err.trim();
        return Err(ToolFailed::Failed(if err.is_empty() { status.to_string() } else { err.to_string() }));
    }
    Ok(bytes)
}

/// Why a clipboard tool gave nothing.
#[derive(Debug, thiserror::Error)]
enum ToolFailed {
    #[error("{0}")]
    Start(#[source] std::io::Error),
    #[error("no output")]
    NoOutput,
    #[error("it did not answer")]
    NoAnswer,
    /// It failed: what it said, or its exit status.
    #[error("{0}")]
    Failed(String),
}
