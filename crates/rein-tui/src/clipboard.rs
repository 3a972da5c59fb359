//! Text to the clipboard (`/copy`, `/export`): through `wl-copy` on Wayland, `xclip` on
//! X11 or `pbcopy` on macOS when one can run, else as an OSC 52 sequence, which most
//! terminals (and tmux, over ssh too) put on the system clipboard.

use std::io::Write as _;
use std::process::{Command, Stdio};

use base64::Engine as _;

/// Put `text` on the clipboard; how it went there.
pub fn copy(text: &str) -> std::io::Result<&'static str> {
    for (tool, args, needs) in [
        ("wl-copy", &[][..], Some("WAYLAND_DISPLAY")),
        ("xclip", &["-selection", "clipboard", "-in"][..], Some("DISPLAY")),
        ("pbcopy", &[][..], None),
    ] {
        if needs.is_some_and(|var| std::env::var_os(var).is_none_or(|v| v.is_empty())) || !crate::attach::on_path(tool)
        {
            continue;
        }
        if piped(tool, args, text).is_ok() {
            return Ok(tool);
        }
    }
    let sequence = format!("\x1b]52;c;{}\x07", base64::engine::general_purpose::STANDARD.encode(text));
    let mut out = std::io::stdout();
    out.write_all(sequence.as_bytes())?;
    out.flush()?;
    Ok("the terminal (OSC 52)")
}

/// Run `tool` with `text` on its stdin. xclip stays to serve the selection, so the
/// tool is not waited for once it has read everything.
fn piped(tool: &str, args: &[&str], text: &str) -> std::io::Result<()> {
    let mut command = Command::new(tool);
    // rein's own credentials never reach a program it runs.
    for var in rein_process::CREDENTIAL_VARS {
        command.env_remove(var);
    }
    let mut child = command.args(args).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null()).spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(text.as_bytes())?;
    }
    // Reaped in the background: xclip and wl-copy keep running to own the selection.
    std::thread::spawn(move || child.wait());
    Ok(())
}
