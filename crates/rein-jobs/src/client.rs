//! A terminal attached to a background session (`rein attach`), and `rein stop`. Attached,
//! the screen shows what the session drew and what it draws next; keys go to it, and
//! Ctrl+Z detaches (the session goes on). The session's size follows this terminal's.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::JobError;
use crate::wire::{self, Frame};

/// Ctrl+Z as a terminal sends it.
const DETACH_KEY: u8 = 0x1a;

/// How an attached terminal let go of its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The person pressed the detach key: the session goes on.
    Detached,
    /// The session ended.
    SessionEnded,
}

enum Happened {
    Detach,
    Closed,
}

/// Attach this terminal to the session in `dir` until the person detaches or the
/// session ends.
pub fn attach(dir: &Path) -> Result<Ended, JobError> {
    let stream = wire::connect(dir).map_err(|e| JobError::io(dir, e))?;
    let mut size = terminal_size();
    let mut keys = stream.try_clone().map_err(|e| JobError::io(dir, e))?;
    wire::write_frame(&mut keys, &Frame::Hello { cols: size.0, rows: size.1 }).map_err(|e| JobError::io(dir, e))?;
    crossterm::terminal::enable_raw_mode().map_err(|e| JobError::Terminal(format!("raw mode: {e}")))?;
    // A clean screen for what the session drew.
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(b"\x1b[H\x1b[2J");
    let _ = stdout.flush();
    let (tx, rx) = mpsc::channel::<Happened>();
    {
        let tx = tx.clone();
        let mut drawn = stream.try_clone().map_err(|e| JobError::io(dir, e))?;
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            let mut out = std::io::stdout();
            while let Ok(n) = drawn.read(&mut buf) {
                if n == 0 || out.write_all(&buf[..n]).and_then(|()| out.flush()).is_err() {
                    break;
                }
            }
            let _ = tx.send(Happened::Closed);
        });
    }
    {
        let mut keys = keys.try_clone().map_err(|e| JobError::io(dir, e))?;
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            let mut stdin = std::io::stdin();
            while let Ok(n) = stdin.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let typed = &buf[..n];
                let (before, detach) = match typed.iter().position(|b| *b == DETACH_KEY) {
                    Some(at) => (&typed[..at], true),
                    None => (typed, false),
                };
                if !before.is_empty() && wire::write_frame(&mut keys, &Frame::Input(before.to_vec())).is_err() {
                    break;
                }
                if detach {
                    let _ = tx.send(Happened::Detach);
                    return;
                }
            }
        });
    }
    let ended = loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(Happened::Detach) => break Ended::Detached,
            Ok(Happened::Closed) => break Ended::SessionEnded,
            Err(mpsc::RecvTimeoutError::Disconnected) => break Ended::SessionEnded,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let now = crossterm::terminal::size().unwrap_or(size);
                if now != size {
                    size = now;
                    let _ = wire::write_frame(&mut keys, &Frame::Resize { cols: size.0, rows: size.1 });
                }
            }
        }
    };
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let _ = crossterm::terminal::disable_raw_mode();
    // Modes the session set in this terminal end with it: pasting, the cursor, colours;
    // its live area (input box, footer) goes, so the shell's prompt starts clean.
    let _ = stdout.write_all(b"\x1b[?2004l\x1b[?25h\x1b[0m\x1b[H\x1b[2J");
    let _ = stdout.flush();
    Ok(ended)
}

/// End the session in `dir` and wait (up to 10 s) until its host is gone.
pub fn stop(dir: &Path, id: &str) -> Result<(), JobError> {
    let mut stream: UnixStream = match wire::connect(dir) {
        Ok(s) => s,
        Err(_) => return Err(JobError::NotRunning(id.to_string())),
    };
    wire::write_frame(&mut stream, &Frame::Stop).map_err(|e| JobError::io(dir, e))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while crate::host_alive(dir) {
        if Instant::now() > deadline {
            return Err(JobError::Terminal(format!("background session {id} did not stop within 10 s")));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// This terminal's size (columns, rows), or 100 × 30 when it cannot be read.
pub fn terminal_size() -> (u16, u16) {
    crossterm::terminal::size().unwrap_or((100, 30))
}
