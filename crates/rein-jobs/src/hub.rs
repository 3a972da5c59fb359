//! What a background session drew, kept for terminals that attach, and handed on to
//! those attached as it comes; the session's terminal notifications become desktop
//! notifications while no terminal is attached.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An attached terminal: where its chunks are queued, and the thread writing them.
type Attached = (SyncSender<Arc<[u8]>>, std::thread::JoinHandle<()>);

/// The start of what the session drew, kept whole: it sets the terminal's modes. What
/// was drawn is replayed only to a terminal that attaches before the session is ready
/// to draw itself again (a question it asks before its screen opens).
const HEAD_BYTES: usize = 16 * 1024;
/// The most of the rest that is kept for replay.
const TAIL_BYTES: usize = 512 * 1024;
/// Chunks queued for one attached terminal before it counts as gone.
const CLIENT_QUEUE: usize = 4096;

/// What the session drew, and the terminals attached to it.
#[derive(Default)]
pub(crate) struct Hub {
    inner: Mutex<Drawn>,
}

#[derive(Default)]
struct Drawn {
    head: Vec<u8>,
    tail: Vec<u8>,
    /// Some of the tail was dropped (it starts at a line's beginning).
    cut: bool,
    clients: Vec<Attached>,
}

impl Hub {
    /// Keep `chunk` and send it to every attached terminal; a terminal that cannot keep
    /// up is let go. `true` when no terminal is attached.
    fn push(&self, chunk: &[u8]) -> bool {
        let Ok(mut d) = self.inner.lock() else { return true };
        let room = HEAD_BYTES.saturating_sub(d.head.len()).min(chunk.len());
        d.head.extend_from_slice(&chunk[..room]);
        d.tail.extend_from_slice(&chunk[room..]);
        if d.tail.len() > TAIL_BYTES {
            let mut drop = d.tail.len() - TAIL_BYTES * 3 / 4;
            if let Some(nl) = d.tail[drop..].iter().position(|b| *b == b'\n') {
                drop += nl + 1;
            }
            d.tail.drain(..drop);
            d.cut = true;
        }
        let shared: Arc<[u8]> = Arc::from(chunk);
        d.clients.retain(|(tx, _)| tx.try_send(shared.clone()).is_ok());
        let alone = d.clients.is_empty();
        drop(d);
        if alone && let Some(text) = notification(chunk) {
            desktop_notification(&text);
        }
        alone
    }

    /// A terminal attaches: a clean screen or (`replay`) what was drawn so far, then
    /// everything new.
    pub(crate) fn attach(&self, stream: &UnixStream, replay: bool) -> std::io::Result<()> {
        let mut out = stream.try_clone()?;
        out.set_write_timeout(Some(Duration::from_secs(5)))?;
        let (tx, rx) = sync_channel::<Arc<[u8]>>(CLIENT_QUEUE);
        let Ok(mut d) = self.inner.lock() else { return Ok(()) };
        let replay = if replay {
            let mut drawn = d.head.clone();
            if d.cut {
                drawn.extend_from_slice(b"\r\n");
            }
            drawn.extend_from_slice(&d.tail);
            drawn
        } else {
            b"\x1b[H\x1b[2J".to_vec()
        };
        let writer = std::thread::spawn(move || {
            if out.write_all(&replay).is_err() {
                return;
            }
            for chunk in rx {
                if out.write_all(&chunk).is_err() {
                    break;
                }
            }
            let _ = out.shutdown(std::net::Shutdown::Both);
        });
        d.clients.push((tx, writer));
        Ok(())
    }

    /// The last lines the session drew, as text.
    pub(crate) fn last_words(&self) -> String {
        let Ok(d) = self.inner.lock() else { return String::new() };
        let drawn = if d.tail.is_empty() { &d.head } else { &d.tail };
        let text = plain_text(&drawn[drawn.len().saturating_sub(4096)..]);
        let lines: Vec<&str> = text.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// The session ended: each terminal gets what is queued for it, then is closed.
    pub(crate) fn close(&self) {
        let clients = match self.inner.lock() {
            Ok(mut d) => std::mem::take(&mut d.clients),
            Err(_) => return,
        };
        for (tx, writer) in clients {
            drop(tx);
            let _ = writer.join();
        }
    }
}

/// Copy what the session draws into the hub until its terminal closes. While no
/// terminal is attached, the host answers the session's questions to its terminal (where
/// the cursor is) as a terminal would, so that the session never waits for an answer.
pub(crate) fn pump(mut reader: Box<dyn Read + Send>, hub: &Hub, keys: &Mutex<Box<dyn Write + Send>>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        let alone = hub.push(chunk);
        if alone
            && chunk.windows(4).any(|w| w == b"\x1b[6n")
            && let Ok(mut keys) = keys.lock()
        {
            let _ = keys.write_all(b"\x1b[1;1R");
            let _ = keys.flush();
        }
    }
}

/// `bytes` without the terminal's control sequences.
fn plain_text(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            0x1b => {
                i += 1;
                match bytes.get(i) {
                    // CSI: up to its final byte.
                    Some(b'[') => {
                        i += 1;
                        while i < bytes.len() && !(0x40..=0x7e).contains(&bytes[i]) {
                            i += 1;
                        }
                    }
                    // OSC: up to BEL or ST.
                    Some(b']') => {
                        while i < bytes.len() && bytes[i] != 0x07 && !(bytes[i] == b'\\' && bytes[i - 1] == 0x1b) {
                            i += 1;
                        }
                    }
                    _ => {}
                }
            }
            b'\r' => {}
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The text of a terminal notification (`ESC ] 9 ; text BEL`) in `chunk`.
fn notification(chunk: &[u8]) -> Option<String> {
    let start = chunk.windows(4).position(|w| w == b"\x1b]9;")? + 4;
    let rest = &chunk[start..];
    let end = rest.iter().position(|b| *b == 0x07 || *b == 0x1b)?;
    let text = String::from_utf8_lossy(&rest[..end]).trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Tell the desktop, where it has a notifier (`notify-send`); nothing otherwise.
fn desktop_notification(text: &str) {
    let Some(path) = rein_process::env::os(rein_process::env::Var::Path) else { return };
    let Some(notifier) = std::env::split_paths(&path).map(|d| d.join("notify-send")).find(|p| p.is_file()) else {
        return;
    };
    let spawned = rein_process::env::for_child(&mut std::process::Command::new(notifier))
        .args(["--app-name=rein", "rein (background session)", text])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Ok(mut child) = spawned {
        std::thread::spawn(move || child.wait());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_failed_session_drew_is_kept_as_plain_text() {
        assert_eq!(plain_text(b"\x1b[31mrein: error\x1b[0m: bad\r\n\x1b]9;hi\x07ok"), "rein: error: bad\nok");
    }

    #[test]
    fn a_terminal_notification_is_found_in_what_the_session_draws() {
        assert_eq!(notification(b"abc\x1b]9;rein needs you\x07def").as_deref(), Some("rein needs you"));
        assert_eq!(notification(b"\x1b]9;\x07"), None);
        assert_eq!(notification(b"plain text"), None);
    }
}
