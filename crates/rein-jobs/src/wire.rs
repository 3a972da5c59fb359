//! What goes over a host's socket. A client sends frames — `[kind: u8][length: u32 BE]
//! [payload]` — and the host sends back the raw bytes the session draws.

use std::io::{self, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;

const HELLO: u8 = 1;
const INPUT: u8 = 2;
const RESIZE: u8 = 3;
const STOP: u8 = 4;

/// The most one frame may carry: a paste, not a flood.
const MAX_FRAME: usize = 1 << 20;

/// A socket path longer than this does not fit a `sockaddr_un` everywhere.
const MAX_SOCKET_PATH: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Frame {
    /// A terminal attaches: its size.
    Hello { cols: u16, rows: u16 },
    /// Keys typed in an attached terminal.
    Input(Vec<u8>),
    /// An attached terminal changed size.
    Resize { cols: u16, rows: u16 },
    /// `rein stop`: end the session.
    Stop,
}

pub(crate) fn write_frame(w: &mut impl Write, frame: &Frame) -> io::Result<()> {
    let (kind, payload): (u8, Vec<u8>) = match frame {
        Frame::Hello { cols, rows } => (HELLO, size_bytes(*cols, *rows)),
        Frame::Input(bytes) => (INPUT, bytes.clone()),
        Frame::Resize { cols, rows } => (RESIZE, size_bytes(*cols, *rows)),
        Frame::Stop => (STOP, Vec::new()),
    };
    let mut out = Vec::with_capacity(5 + payload.len());
    out.push(kind);
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
    out.extend_from_slice(&payload);
    w.write_all(&out)?;
    w.flush()
}

fn size_bytes(cols: u16, rows: u16) -> Vec<u8> {
    let mut b = cols.to_be_bytes().to_vec();
    b.extend_from_slice(&rows.to_be_bytes());
    b
}

/// The next frame; `None` at the end of the stream.
pub(crate) fn read_frame(r: &mut impl Read) -> io::Result<Option<Frame>> {
    let mut head = [0u8; 5];
    match r.read_exact(&mut head) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "frame too long"));
    }
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload)?;
    let size = |p: &[u8]| match p {
        [a, b, c, d, ..] => Ok((u16::from_be_bytes([*a, *b]), u16::from_be_bytes([*c, *d]))),
        _ => Err(io::Error::new(io::ErrorKind::InvalidData, "short size frame")),
    };
    Ok(Some(match head[0] {
        HELLO => {
            let (cols, rows) = size(&payload)?;
            Frame::Hello { cols, rows }
        }
        INPUT => Frame::Input(payload),
        RESIZE => {
            let (cols, rows) = size(&payload)?;
            Frame::Resize { cols, rows }
        }
        STOP => Frame::Stop,
        _ => return Err(io::Error::new(io::ErrorKind::InvalidData, "unknown frame")),
    }))
}

/// The host's socket in `dir`: named by its full path when that fits a socket address,
/// else from inside `dir` (this process moves there; hosts and clients have no other use
/// for their working directory).
fn socket_name(dir: &Path) -> io::Result<std::path::PathBuf> {
    let full = dir.join("sock");
    if full.as_os_str().len() <= MAX_SOCKET_PATH {
        return Ok(full);
    }
    std::env::set_current_dir(dir)?;
    Ok("sock".into())
}

pub(crate) fn bind(dir: &Path) -> io::Result<UnixListener> {
    let name = socket_name(dir)?;
    let _ = std::fs::remove_file(&name);
    UnixListener::bind(&name)
}

pub(crate) fn connect(dir: &Path) -> io::Result<UnixStream> {
    UnixStream::connect(socket_name(dir)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_read_back_as_written_and_a_flood_is_refused() -> io::Result<()> {
        let frames = [
            Frame::Hello { cols: 120, rows: 40 },
            Frame::Input(b"yes\r".to_vec()),
            Frame::Resize { cols: 60, rows: 20 },
            Frame::Stop,
        ];
        let mut bytes = Vec::new();
        for f in &frames {
            write_frame(&mut bytes, f)?;
        }
        let mut r = bytes.as_slice();
        for f in &frames {
            assert_eq!(read_frame(&mut r)?.as_ref(), Some(f));
        }
        assert_eq!(read_frame(&mut r)?, None);
        let mut flood = vec![INPUT];
        flood.extend_from_slice(&((MAX_FRAME as u32) + 1).to_be_bytes());
        assert!(read_frame(&mut flood.as_slice()).is_err());
        Ok(())
    }
}
