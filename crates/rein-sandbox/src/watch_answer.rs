//! The listener's side of [`super::Watch`]: each stopped call's paths read from the
//! caller's memory, resolved as the host sees them, and kept when they lie in a write
//! root; then the call goes on.

use std::ffi::OsStr;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{Arg, CALLS, Seen};
use crate::record::{MAX_BYTES, MAX_FILES, WriteRecorder};

pub(super) struct Answer {
    pub(super) roots: Vec<PathBuf>,
    pub(super) masked: Vec<PathBuf>,
    pub(super) recorder: Arc<dyn WriteRecorder>,
    pub(super) seen: Arc<Mutex<Seen>>,
}

fn errno() -> Option<i32> {
    std::io::Error::last_os_error().raw_os_error()
}

impl Answer {
    /// Answer calls until no process is left under the filter.
    pub(super) fn serve(&self, listener: &OwnedFd) {
        let fd = listener.as_raw_fd();
        loop {
            let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
            // SAFETY: one valid pollfd.
            if unsafe { libc::poll(&mut poll, 1, -1) } < 0 {
                if errno() == Some(libc::EINTR) {
                    continue;
                }
                return;
            }
            if poll.revents & libc::POLLIN == 0 {
                // Hung up: every process under the filter has ended.
                return;
            }
            // SAFETY: the kernel wants a zeroed request to fill.
            let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
            // SAFETY: a listener descriptor and a request of the size the ioctl names.
            if unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut req) } < 0 {
                match errno() {
                    // Interrupted, or the caller died before it was read.
                    Some(libc::EINTR | libc::ENOENT) => continue,
                    _ => return,
                }
            }
            self.record(fd, &req);
            let flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32;
            let resp = libc::seccomp_notif_resp { id: req.id, val: 0, error: 0, flags };
            // SAFETY: as above. ENOENT: the caller is gone, nothing to answer.
            unsafe { libc::ioctl(fd, libc::SECCOMP_IOCTL_NOTIF_SEND, &resp) };
        }
    }

    /// Keep what the call is about to change.
    fn record(&self, listener: i32, req: &libc::seccomp_notif) {
        let Some(call) = CALLS.iter().find(|c| c.nr == i64::from(req.data.nr)) else { return };
        let mut raw = Vec::with_capacity(call.paths.len());
        for arg in call.paths {
            let (dir, at) = match *arg {
                Arg::Cwd(p) => (None, p),
                Arg::At(d, p) => (Some(req.data.args[d] as u32 as i32), p),
            };
            let Some(path) = read_string(req.pid, req.data.args[at]) else { return };
            raw.push((dir, path));
        }
        // What was read is the caller's only while its call still waits (else the id
        // may name another process now).
        let mut id = req.id;
        // SAFETY: a listener descriptor and a pointer to the id.
        if unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_ID_VALID, &mut id) } != 0 {
            return;
        }
        let paths: Vec<Option<PathBuf>> = raw.iter().map(|(dir, p)| self.resolve(req.pid, *dir, p)).collect();
        // A directory renamed: every file in it moves (both ends are kept).
        if let [Some(from), to] = paths.as_slice()
            && std::fs::symlink_metadata(from).is_ok_and(|m| m.is_dir())
        {
            self.keep_tree(from, to.as_deref());
        }
        paths.iter().flatten().for_each(|p| self.keep(p));
    }

    /// `raw` (relative to the caller's directory `dir` or working directory) as the host
    /// names it: its directory's links resolved, so that a link in the workspace to a
    /// place outside it never makes the record (and a rewind) name a file there. `None`
    /// outside every write root.
    fn resolve(&self, pid: u32, dir: Option<i32>, raw: &[u8]) -> Option<PathBuf> {
        let path = Path::new(OsStr::from_bytes(raw));
        let full = if path.is_absolute() {
            path.to_path_buf()
        } else {
            let base = match dir {
                Some(fd) if fd != libc::AT_FDCWD => format!("/proc/{pid}/fd/{fd}"),
                _ => format!("/proc/{pid}/cwd"),
            };
            std::fs::read_link(base).ok()?.join(path)
        };
        let full = as_seen_by(pid, &normal(&full))?;
        let real = std::fs::canonicalize(full.parent()?).ok()?.join(full.file_name()?);
        self.roots.iter().any(|r| real.starts_with(r)).then_some(real)
    }

    /// Keep what `path` holds now (a regular file up to [`MAX_BYTES`], or that nothing
    /// is there), at most [`MAX_FILES`] paths per command.
    fn keep(&self, path: &Path) {
        if self.masked.iter().any(|m| path.starts_with(m)) {
            return;
        }
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let new = !seen.kept.contains(path);
        if new && seen.kept.len() >= MAX_FILES {
            return;
        }
        let keepable = match std::fs::symlink_metadata(path) {
            Ok(m) => m.is_file() && m.len() <= MAX_BYTES,
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        };
        if !keepable {
            return;
        }
        // Every time (once per turn is the recorder's business): a server writing on
        // through later turns has each turn's state kept.
        self.recorder.before(path);
        if new {
            seen.kept.insert(path.to_path_buf());
            seen.owed.push(path.to_path_buf());
        }
    }

    /// A directory about to move from `from` to `to`: its files at both ends.
    fn keep_tree(&self, from: &Path, to: Option<&Path>) {
        let mut stack = vec![from.to_path_buf()];
        let mut budget = MAX_FILES;
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                if budget == 0 {
                    return;
                }
                budget -= 1;
                let path = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_dir() => stack.push(path),
                    Ok(t) if t.is_file() => {
                        if self.roots.iter().any(|r| path.starts_with(r)) {
                            self.keep(&path);
                        }
                        let moved = to.zip(path.strip_prefix(from).ok()).map(|(to, rel)| to.join(rel));
                        if let Some(moved) = moved.filter(|m| self.roots.iter().any(|r| m.starts_with(r))) {
                            self.keep(&moved);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// `path` with the names that mean the caller itself (`/proc/self`, `/dev/fd`, …) made
/// to name process `pid`, so that rein, resolving them, finds the caller's directories
/// and not its own. `None` for another process's `/proc` entry (rein cannot tell which
/// process the caller's namespace means).
fn as_seen_by(pid: u32, path: &Path) -> Option<PathBuf> {
    let own = Path::new("/proc").join(pid.to_string());
    let map = |from: &str, to: PathBuf| path.strip_prefix(from).ok().map(|rest| to.join(rest));
    let fd = own.join("fd");
    let mapped = map("/proc/self", own.clone())
        .or_else(|| map("/proc/thread-self", own.clone()))
        .or_else(|| map("/dev/fd", fd.clone()))
        .or_else(|| map("/dev/stdin", fd.join("0")))
        .or_else(|| map("/dev/stdout", fd.join("1")))
        .or_else(|| map("/dev/stderr", fd.join("2")));
    match mapped {
        Some(p) => Some(p),
        None if path.starts_with("/proc") => None,
        None => Some(path.to_path_buf()),
    }
}

/// `path` with `.` and `..` taken out as written.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The NUL-terminated string at `addr` in process `pid` (at most `PATH_MAX` bytes).
fn read_string(pid: u32, addr: u64) -> Option<Vec<u8>> {
    const CHUNK: u64 = 4096;
    let max = libc::PATH_MAX as usize;
    let mut out = Vec::new();
    let mut at = addr;
    let mut buf = [0u8; CHUNK as usize];
    while out.len() < max {
        // Never across a page boundary: the next page may not be mapped.
        let want = ((CHUNK - at % CHUNK) as usize).min(max - out.len());
        let local = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: want };
        let remote = libc::iovec { iov_base: at as *mut libc::c_void, iov_len: want };
        // SAFETY: the local buffer holds `want` bytes; the remote range is only read.
        let n = unsafe { libc::process_vm_readv(pid as libc::pid_t, &local, 1, &remote, 1, 0) };
        if n <= 0 {
            return None;
        }
        let got = &buf[..n as usize];
        if let Some(end) = got.iter().position(|b| *b == 0) {
            out.extend_from_slice(&got[..end]);
            return Some(out);
        }
        out.extend_from_slice(got);
        at += n as u64;
    }
    None
}
