//! The listener's side of [`super::Watch`]: each stopped call's paths read from the
//! caller's memory, resolved as the host sees them, and kept when they lie in a write
//! root; then the call goes on.

use std::ffi::OsStr;
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{Arg, CALLS, Seen};
use crate::record::{MAX_BYTES, MAX_FILES, WriteRecorder};

/// At most this much is kept per command (its files' sizes before it changed them).
const MAX_COMMAND_BYTES: u64 = 256 << 20;
/// Longer paths are not kept.
const MAX_PATH: usize = 1024;

pub(super) struct Answer {
    pub(super) roots: Vec<PathBuf>,
    pub(super) masked: Vec<PathBuf>,
    /// Protected paths (and placeholders for those missing) and git directories.
    pub(super) held: Vec<PathBuf>,
    /// Writable again inside the held paths (agents' worktrees).
    pub(super) reopened: Vec<PathBuf>,
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
        // An open goes through a link at the end of its path (unless told not to, or
        // told to make a new file): the file changed is the link's target.
        let follow = call.flags.is_some_and(|i| {
            let flags = req.data.args[i] as u32 as i32;
            flags & libc::O_NOFOLLOW == 0 && flags & (libc::O_CREAT | libc::O_EXCL) != libc::O_CREAT | libc::O_EXCL
        });
        let paths: Vec<Option<PathBuf>> = raw.iter().map(|(dir, p)| self.resolve(req.pid, *dir, p, follow)).collect();
        // A directory renamed: every file in it moves (both ends are kept); exchanged,
        // the other one's too.
        if let [from, to] = paths.as_slice() {
            let exchange = call.nr == libc::SYS_renameat2 && req.data.args[4] as u32 & libc::RENAME_EXCHANGE != 0;
            let is_dir = |p: &Option<PathBuf>| p.as_deref().is_some_and(|p| p.is_dir());
            if is_dir(from) || exchange && is_dir(to) {
                // A directory's files move, each kept at both ends; the directories
                // themselves are not files to keep.
                self.keep_tree(from.as_deref(), to.as_deref());
                if exchange {
                    self.keep_tree(to.as_deref(), from.as_deref());
                }
                return;
            }
        }
        paths.iter().flatten().for_each(|p| self.keep(p));
    }

    /// `raw` (relative to the caller's directory `dir` or working directory) as the host
    /// names it: its directory's links resolved as the kernel resolves them (and with
    /// `follow`, a link at its end), so that a link in the workspace to a place outside
    /// it never makes the record (and a rewind) name a file there. `None` outside every
    /// write root, or held.
    fn resolve(&self, pid: u32, dir: Option<i32>, raw: &[u8], follow: bool) -> Option<PathBuf> {
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
        let full = as_seen_by(pid, &full)?;
        let real = self.real(&full)?;
        if follow && std::fs::symlink_metadata(&real).is_ok_and(|m| m.file_type().is_symlink()) {
            // The target, resolved whole and held to the same rules.
            return self.real(&std::fs::canonicalize(&real).ok()?);
        }
        Some(real)
    }

    /// `full` with its directory's links resolved (an open descriptor's name, through
    /// `/proc/PID/fd/N`, resolved whole), if it lies in a write root and is not held.
    fn real(&self, full: &Path) -> Option<PathBuf> {
        let parent = full.parent()?;
        let through_fd = parent.parent().is_some_and(|p| p.starts_with("/proc")) && parent.ends_with("fd");
        let real = if through_fd {
            std::fs::canonicalize(full).ok()?
        } else {
            std::fs::canonicalize(parent).ok()?.join(full.file_name()?)
        };
        let inside = self.roots.iter().any(|r| real.starts_with(r));
        (inside && !self.held(&real)).then_some(real)
    }

    /// Whether rein must not keep `path`: a read its sandbox denies (rein does not read
    /// it on the command's behalf), a protected path or one inside a git directory (a
    /// rewind never writes them from what a command left there), a name too long.
    fn held(&self, path: &Path) -> bool {
        if path.as_os_str().len() > MAX_PATH || self.masked.iter().any(|m| path.starts_with(m)) {
            return true;
        }
        let Some(root) = self.roots.iter().find(|r| path.starts_with(r)) else { return true };
        if crate::plan::is_held(path, &self.held, &self.reopened) {
            return true;
        }
        let reopened = crate::plan::reopened_holding(path, &self.reopened);
        path.ancestors()
            .take_while(|a| a.starts_with(root) && *a != root.as_path() && Some(*a) != reopened)
            .any(|a| a.file_name().is_some_and(|n| n == ".git") || crate::plan::is_protected_name(a))
    }

    /// Keep what `path` (resolved, not held) holds now: a regular file up to
    /// [`MAX_BYTES`], or that nothing is there; at most [`MAX_FILES`] paths and
    /// [`MAX_COMMAND_BYTES`] per command.
    fn keep(&self, path: &Path) {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let new = !seen.kept.contains(path);
        if new && seen.kept.len() >= MAX_FILES {
            return;
        }
        let size = match std::fs::symlink_metadata(path) {
            Ok(m) if m.is_file() && m.len() <= MAX_BYTES => m.len(),
            Ok(_) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(_) => return,
        };
        if new && seen.bytes + size > MAX_COMMAND_BYTES {
            return;
        }
        // Every time (once per turn is the recorder's business): a server writing on
        // through later turns has each turn's state kept.
        self.recorder.before(path);
        if new {
            seen.bytes += size;
            seen.kept.insert(path.to_path_buf());
            seen.owed.push(path.to_path_buf());
        }
    }

    /// A directory about to move from `from` to `to` (either outside the roots, then
    /// `None`): its files at both ends, each end resolved and held to the rules as a
    /// path the command named. Not walked: a masked directory (its names are not for
    /// the command), a link.
    fn keep_tree(&self, from: Option<&Path>, to: Option<&Path>) {
        let Some(from) = from else { return };
        if !std::fs::symlink_metadata(from).is_ok_and(|m| m.is_dir()) {
            return;
        }
        // `to` is replaced, never gone through: a link there takes no file of `from`.
        let to = to.filter(|t| !std::fs::symlink_metadata(t).is_ok_and(|m| m.file_type().is_symlink()));
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
                if self.held(&path) {
                    continue;
                }
                match entry.file_type() {
                    Ok(t) if t.is_dir() => stack.push(path),
                    Ok(t) if t.is_file() => {
                        self.keep(&path);
                        // `to` is resolved and no link: what lies below it is named as
                        // listed here.
                        let moved = to.zip(path.strip_prefix(from).ok()).map(|(to, rel)| to.join(rel));
                        if let Some(moved) = moved.filter(|m| !self.held(m)) {
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
