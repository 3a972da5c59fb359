//! Live recording of a confined command's writes, where no copy-on-write layer is made
//! (a background command, whose writes must show as it makes them; Tier B, which has no
//! namespaces; a workspace overlayfs refuses). A second seccomp filter, installed just
//! before the command starts, stops each system call that may change a file — an open
//! for writing, a truncate, an unlink, a rename, a link — and hands it to rein through
//! the filter's listener. rein saves what each file in a write root held (through a
//! [`WriteRecorder`]: the session's checkpoints) and lets the call go on unchanged.
//!
//! The filter decides nothing: the walls are the sandbox's, and the call runs as the
//! command made it. rein reads the call's path from the stopped process's memory; a
//! process that rewrites it between that read and the call escapes the record (still
//! walled), never the sandbox. Any failure — a kernel without listeners, a memory read
//! refused — leaves a write unrecorded, never a command stopped.

use std::collections::HashSet;
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd, RawFd};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use libc::sock_filter;

use crate::record::{MAX_BYTES, WriteRecorder};

/// How a call names the path it may change.
#[derive(Clone, Copy, Debug)]
enum Arg {
    /// Argument `path`, relative to the working directory.
    Cwd(usize),
    /// Argument `path`, relative to the directory descriptor in argument `dir`.
    At(usize, usize),
}

/// A call the filter stops: its number, the paths it may change (two: a rename's source
/// and destination), and for the opens the argument holding the flags.
struct Call {
    nr: i64,
    paths: &'static [Arg],
    flags: Option<usize>,
}

const fn call(nr: i64, paths: &'static [Arg]) -> Call {
    Call { nr, paths, flags: None }
}

/// Every call the filter stops (`openat2` is refused by the sandbox's own filter, so
/// libc falls back to `openat`).
const CALLS: &[Call] = &[
    Call { nr: libc::SYS_openat, paths: &[Arg::At(0, 1)], flags: Some(2) },
    call(libc::SYS_mknodat, &[Arg::At(0, 1)]),
    call(libc::SYS_truncate, &[Arg::Cwd(0)]),
    call(libc::SYS_unlinkat, &[Arg::At(0, 1)]),
    call(libc::SYS_renameat2, &[Arg::At(0, 1), Arg::At(2, 3)]),
    call(libc::SYS_linkat, &[Arg::At(2, 3)]),
    call(libc::SYS_symlinkat, &[Arg::At(1, 2)]),
    #[cfg(target_arch = "x86_64")]
    Call { nr: libc::SYS_open, paths: &[Arg::Cwd(0)], flags: Some(1) },
    #[cfg(target_arch = "x86_64")]
    call(libc::SYS_creat, &[Arg::Cwd(0)]),
    #[cfg(target_arch = "x86_64")]
    call(libc::SYS_mknod, &[Arg::Cwd(0)]),
    #[cfg(target_arch = "x86_64")]
    call(libc::SYS_unlink, &[Arg::Cwd(0)]),
    #[cfg(target_arch = "x86_64")]
    call(libc::SYS_rename, &[Arg::Cwd(0), Arg::Cwd(1)]),
    #[cfg(target_arch = "x86_64")]
    call(libc::SYS_renameat, &[Arg::At(0, 1), Arg::At(2, 3)]),
    #[cfg(target_arch = "x86_64")]
    call(libc::SYS_link, &[Arg::Cwd(1)]),
    #[cfg(target_arch = "x86_64")]
    call(libc::SYS_symlink, &[Arg::Cwd(1)]),
];

/// The open flags that may change a file.
const WRITING: u32 = (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC) as u32;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xc000_00b7;
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const AUDIT_ARCH: u32 = 0;

/// Offset in `struct seccomp_data` of the 32 bits the kernel reads of argument `i`.
const fn arg_offset(i: usize) -> u32 {
    let low = if cfg!(target_endian = "little") { 0 } else { 4 };
    16 + 8 * i as u32 + low
}

/// The filter, compiled once ([`prepare`]): every listed call goes to the listener (an
/// open only when its flags may write); everything else, and a foreign architecture,
/// is let through (the sandbox's own filter deals with those).
/// `None` on a kernel that cannot let a stopped call go on (before 5.5): the call would
/// wait for ever.
static PROGRAM: OnceLock<Option<Vec<sock_filter>>> = OnceLock::new();

/// Compile the filter, before any process that installs it forks.
pub(crate) fn prepare() {
    PROGRAM.get_or_init(|| kernel_at_least(5, 5).then(build));
}

/// Whether the running kernel's version is at least `major.minor`.
fn kernel_at_least(major: u32, minor: u32) -> bool {
    // SAFETY: a zeroed utsname is valid; uname fills it.
    let mut name: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer.
    if unsafe { libc::uname(&mut name) } != 0 {
        return false;
    }
    let release: Vec<u8> = name.release.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
    let text = String::from_utf8_lossy(&release);
    let mut parts = text.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse::<u32>().ok());
    let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    found >= (major, minor)
}

fn build() -> Vec<sock_filter> {
    const LD_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JEQ: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
    const JSET: u16 = 0x45; // BPF_JMP | BPF_JSET | BPF_K
    const RET: u16 = 0x06; // BPF_RET | BPF_K
    const ALLOW: u32 = 0x7fff_0000;
    let op = |code: u16, jt: u8, jf: u8, k: u32| sock_filter { code, jt, jf, k };
    let opens: Vec<&Call> = CALLS.iter().filter(|c| c.flags.is_some()).collect();
    // Layout: arch check, the number, one test per call, allow; then per open its flag
    // test (two instructions); then allow, notify.
    let tests = CALLS.len();
    let flags_at = 4 + tests + 1;
    let allow_at = flags_at + 2 * opens.len();
    let notify_at = allow_at + 1;
    let mut p = vec![op(LD_ABS, 0, 0, 4)];
    p.push(op(JEQ, 1, 0, AUDIT_ARCH));
    p.push(op(RET, 0, 0, ALLOW));
    p.push(op(LD_ABS, 0, 0, 0));
    for call in CALLS {
        let here = p.len();
        let target = match opens.iter().position(|o| o.nr == call.nr) {
            Some(i) => flags_at + 2 * i,
            None => notify_at,
        };
        p.push(op(JEQ, (target - here - 1) as u8, 0, call.nr as u32));
    }
    p.push(op(RET, 0, 0, ALLOW));
    for open in &opens {
        let flags = open.flags.unwrap_or_default();
        p.push(op(LD_ABS, 0, 0, arg_offset(flags)));
        let here = p.len();
        p.push(op(JSET, (notify_at - here - 1) as u8, (allow_at - here - 1) as u8, WRITING));
    }
    p.push(op(RET, 0, 0, ALLOW));
    p.push(op(RET, 0, 0, libc::SECCOMP_RET_USER_NOTIF));
    p
}

/// In the command's process just before it starts (system calls only: this also runs
/// between fork and exec): install the filter with a listener, send the listener to
/// rein on `socket`, close both. On any failure (or no [`prepare`]) the command goes on
/// unrecorded.
pub(crate) fn child_side(socket: RawFd) {
    if let Some(Some(program)) = PROGRAM.get() {
        install_and_send(program, socket);
    }
    // SAFETY: the socket is this process's copy; rein keeps its own end.
    unsafe { libc::close(socket) };
}

fn install_and_send(program: &[sock_filter], socket: RawFd) {
    let prog = libc::sock_fprog { len: program.len() as u16, filter: program.as_ptr() as *mut sock_filter };
    // SAFETY: integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
    // Once rein has a call, the caller waits killably: a signal does not make an open
    // or a rename fail with EINTR (Linux 5.19; without it on older kernels).
    const WAIT_KILLABLE_RECV: libc::c_ulong = 1 << 5;
    let install = |flags: libc::c_ulong| {
        // SAFETY: `prog` points at a filter that outlives the call.
        unsafe { libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, flags, &prog) }
    };
    let mut listener = install(libc::SECCOMP_FILTER_FLAG_NEW_LISTENER | WAIT_KILLABLE_RECV);
    if listener < 0 {
        listener = install(libc::SECCOMP_FILTER_FLAG_NEW_LISTENER);
    }
    if listener >= 0 {
        send_fd(socket, listener as RawFd);
        // SAFETY: our own descriptor, sent (the kernel keeps rein's copy).
        unsafe { libc::close(listener as RawFd) };
    }
}

/// A one-byte message over `iov` with the control buffer `space`, `control` bytes of it
/// in use (no allocation: this also runs between fork and exec).
fn message(iov: &mut libc::iovec, space: &mut [u64; 4], control: usize) -> libc::msghdr {
    // SAFETY: a zeroed msghdr is valid; the caller's buffers outlive its use.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space.as_mut_ptr().cast();
    msg.msg_controllen = control as _;
    msg
}

/// Send `fd` over the Unix socket `socket` (no allocation).
fn send_fd(socket: RawFd, fd: RawFd) {
    let mut byte = 0u8;
    let mut iov = libc::iovec { iov_base: (&raw mut byte).cast(), iov_len: 1 };
    let mut space = [0u64; 4];
    // SAFETY: CMSG_SPACE is arithmetic.
    let control = unsafe { libc::CMSG_SPACE(std::mem::size_of::<RawFd>() as u32) } as usize;
    let msg = message(&mut iov, &mut space, control);
    // SAFETY: the control buffer holds one header and one descriptor (CMSG_SPACE(4) is
    // 24 bytes, the buffer 32).
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() {
            return;
        }
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd);
        libc::sendmsg(socket, &msg, libc::MSG_NOSIGNAL);
    }
}

/// Receive one descriptor from `socket`; `None` when the other side closed without one.
fn recv_fd(socket: &OwnedFd) -> Option<OwnedFd> {
    let mut byte = 0u8;
    let mut iov = libc::iovec { iov_base: (&raw mut byte).cast(), iov_len: 1 };
    let mut space = [0u64; 4];
    let size = std::mem::size_of_val(&space);
    let mut msg = message(&mut iov, &mut space, size);
    loop {
        // SAFETY: a valid socket and a message whose buffers outlive the call.
        let n = unsafe { libc::recvmsg(socket.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        if n <= 0 {
            return None;
        }
        break;
    }
    // SAFETY: the kernel filled the control buffer; the header is checked before use.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null() || (*cmsg).cmsg_level != libc::SOL_SOCKET || (*cmsg).cmsg_type != libc::SCM_RIGHTS {
            return None;
        }
        let fd = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>());
        (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
    }
}

/// The two ends of the socket the listener crosses: rein's, and the command's (to be
/// inherited by the process that installs the filter).
pub(crate) fn socket_pair() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: a valid array of two ints.
    let rc = unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both just made and owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// What a watch never keeps: the reads the command's sandbox denies it (rein does not
/// read them on its behalf), and its protected paths (and placeholders for those
/// missing): a rewind never writes them from what a command left there.
#[derive(Debug, Default)]
pub(crate) struct Walls {
    pub(crate) masked: Vec<PathBuf>,
    pub(crate) held: Vec<PathBuf>,
    /// Writable again inside `held` (agents' worktrees).
    pub(crate) reopened: Vec<PathBuf>,
}

/// What one watched command changed so far.
#[derive(Default)]
struct Seen {
    /// The sizes of the files kept, before the command changed them.
    bytes: u64,
    /// The sizes of the files read to note what the command left.
    hashed: u64,
    /// Every path kept (bounded by [`crate::record::MAX_FILES`]).
    kept: HashSet<PathBuf>,
    /// Paths whose [`WriteRecorder::after`] is still owed.
    owed: Vec<PathBuf>,
}

/// rein's side of one watched command: a thread that answers its calls until every
/// process under the filter has ended.
pub(crate) struct Watch {
    seen: Arc<Mutex<Seen>>,
    recorder: Arc<dyn WriteRecorder>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch").finish_non_exhaustive()
    }
}

impl Watch {
    /// Watch the command that will send its listener on `ours`, keeping the pre-images
    /// of what it changes under `roots` (canonical) — never of what lies behind its
    /// sandbox's `walls`.
    pub(crate) fn start(ours: OwnedFd, roots: Vec<PathBuf>, walls: Walls, recorder: Arc<dyn WriteRecorder>) -> Watch {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let watch = Watch { seen: seen.clone(), recorder: recorder.clone() };
        let spawned = std::thread::Builder::new().name("rein-watch".into()).spawn(move || {
            let Some(listener) = recv_fd(&ours) else { return };
            drop(ours);
            let answer = Answer {
                roots,
                masked: walls.masked,
                held: walls.held,
                reopened: walls.reopened,
                recorder: recorder.clone(),
                seen: seen.clone(),
            };
            answer.serve(&listener);
            settle(&seen, recorder.as_ref());
        });
        // No thread: the command runs unrecorded (its end of the socket closes unread).
        drop(spawned);
        watch
    }

    /// The command ended (its writes so far are done): note what it left.
    pub(crate) fn settle(&self) {
        settle(&self.seen, self.recorder.as_ref());
    }
}

/// Tell the recorder what the command left, for the files it may read whole (the
/// recorder hashes each): none larger than [`MAX_BYTES`], and no more than
/// [`AFTER_BUDGET`] per command (a command that hard-links one large file under
/// thousands of names must not cost rein a read of each).
fn settle(seen: &Mutex<Seen>, recorder: &dyn WriteRecorder) {
    let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
    let owed = std::mem::take(&mut seen.owed);
    for path in owed {
        let size = std::fs::symlink_metadata(&path).map_or(0, |m| if m.is_file() { m.len() } else { 0 });
        if size > MAX_BYTES || seen.hashed + size > AFTER_BUDGET {
            continue;
        }
        seen.hashed += size;
        recorder.after(&path);
    }
}

/// At most this much is read to note what a command left.
const AFTER_BUDGET: u64 = 256 << 20;

#[path = "watch_answer.rs"]
mod answer;
use answer::Answer;

#[cfg(test)]
#[path = "watch_tests.rs"]
mod tests;
