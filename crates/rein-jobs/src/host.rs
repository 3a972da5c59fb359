//! The host of a background session: a detached process (its own session, no
//! controlling terminal of the person's) that runs an interactive rein in a
//! pseudo-terminal, keeps what it drew, and serves attached terminals over the socket in
//! the session's folder. It holds `host.lock` for as long as it lives and records how
//! the session ended. When no terminal is attached, a notification the session sends its
//! terminal (OSC 9: a question waits, a long turn ended) becomes a desktop notification.

use std::ffi::OsString;
use std::fs::File;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{ChildKiller, CommandBuilder, MasterPty, PtySize, native_pty_system};

use crate::hub::{Hub, pump};
use crate::wire::{self, Frame};
use crate::{HOST_ARG, JobError, State, Status, state};

/// How a host starts its session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// A new conversation on the record's prompt.
    Fresh,
    /// The record's conversation, resumed from its transcript.
    Resume,
}

/// Start the host of the session in `dir` as a detached process that runs the rein
/// binary `exe` with `env`, in a terminal of `size` (columns, rows), and wait until it
/// listens. The host is `rein-job-host` beside `exe` when it is there (a binary of its
/// own, a few megabytes lighter for as long as the session lives), else `exe` itself.
pub fn spawn(
    dir: &Path,
    exe: &Path,
    env: &[(OsString, OsString)],
    size: (u16, u16),
    start: Start,
) -> Result<(), JobError> {
    let log = File::create(dir.join("host.log")).map_err(|e| JobError::io(dir, e))?;
    let mode = match start {
        Start::Fresh => "fresh",
        Start::Resume => "resume",
    };
    let own = exe.with_file_name(HOST_BINARY);
    let program = if own.is_file() { own.as_path() } else { exe };
    let mut host = std::process::Command::new(program)
        .arg(HOST_ARG)
        .arg(dir)
        .arg(size.0.to_string())
        .arg(size.1.to_string())
        .arg(mode)
        .arg(exe)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .map_err(|e| JobError::io(exe, e))?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if dir.join("sock").exists() && crate::host_alive(dir) {
            return Ok(());
        }
        if host.try_wait().is_ok_and(|ended| ended.is_some()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let said = std::fs::read_to_string(dir.join("host.log")).unwrap_or_default();
    Err(JobError::Terminal(format!("the background session did not start: {}", said.trim())))
}

/// The host's own binary, beside rein's.
pub const HOST_BINARY: &str = "rein-job-host";

/// The host's whole life (`rein __rein-job-host DIR COLS ROWS fresh|resume REIN`): the
/// exit code of the session it ran with the rein binary `REIN`.
pub fn run(args: &[OsString]) -> Result<i32, JobError> {
    let [dir, cols, rows, mode, exe] = args else {
        return Err(JobError::Terminal("usage: rein __rein-job-host DIR COLUMNS ROWS fresh|resume REIN".into()));
    };
    let exe = PathBuf::from(exe);
    let dir = PathBuf::from(dir);
    let number = |v: &OsString| v.to_str().and_then(|s| s.parse::<u16>().ok()).filter(|n| *n > 0).unwrap_or(24);
    let size = PtySize { cols: number(cols), rows: number(rows), pixel_width: 0, pixel_height: 0 };
    let start = if mode == "resume" { Start::Resume } else { Start::Fresh };
    // Away from the terminal that started it: closing that terminal does not end it.
    let _ = rustix::process::setsid();
    let lock_path = dir.join("host.lock");
    let lock = state::lock_file(&lock_path)?;
    let record = state::read(&dir)?;
    // Whoever looks whether a host lives holds the lock for an instant: try a while.
    let trying = Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if trying.elapsed() < Duration::from_millis(500) => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(std::fs::TryLockError::WouldBlock) => return Err(JobError::AlreadyRunning(record.id)),
            Err(std::fs::TryLockError::Error(e)) => return Err(JobError::io(&lock_path, e)),
        }
    }
    let (args, workdir) = session_args(&record, &dir, start);
    // Never somewhere else: a folder that is gone (a removed worktree) is said.
    if !workdir.is_dir() {
        return Err(JobError::Terminal(format!(
            "{} is gone; the conversation can still be resumed elsewhere with rein -r {}",
            workdir.display(),
            record.session_id
        )));
    }
    let listener = wire::bind(&dir).map_err(|e| JobError::io(&dir, e))?;
    let pty = native_pty_system().openpty(size).map_err(terminal)?;
    let mut command = CommandBuilder::new(&exe);
    command.args(args);
    command.cwd(workdir);
    if rein_process::env::os(rein_process::env::Var::Term).is_none() {
        command.env("TERM", "xterm-256color");
    }
    let mut child = pty.slave.spawn_command(command).map_err(terminal)?;
    drop(pty.slave);
    let pid = child.process_id();
    state::update(&dir, |s| {
        s.status = Status::Starting;
        s.host_pid = Some(std::process::id());
        s.session_pid = None;
        s.exit_code = None;
    })?;
    let reader = pty.master.try_clone_reader().map_err(terminal)?;
    let writer = pty.master.take_writer().map_err(terminal)?;
    let hub = Arc::new(Hub::default());
    let stopping = Arc::new(AtomicBool::new(false));
    let keys: Arc<Mutex<Box<dyn Write + Send>>> = Arc::new(Mutex::new(writer));
    let (pumped_tx, pumped) = std::sync::mpsc::channel::<()>();
    {
        let (hub, keys) = (hub.clone(), keys.clone());
        std::thread::spawn(move || {
            pump(reader, &hub, &keys);
            let _ = pumped_tx.send(());
        });
    }
    let serving = Serving {
        dir: dir.clone(),
        hub: hub.clone(),
        keys,
        master: Arc::new(Mutex::new(pty.master)),
        killer: Arc::new(Mutex::new(child.clone_killer())),
        stopping: stopping.clone(),
        pid,
        sizes: Arc::new(Mutex::new(Vec::new())),
    };
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let serving = serving.clone();
            std::thread::spawn(move || serving.client(stream));
        }
    });
    let status = child.wait();
    // What the session drew last reaches the attached terminals before they are closed.
    let _ = pumped.recv_timeout(Duration::from_secs(1));
    hub.close();
    let code = status.as_ref().map_or(1, |s| s.exit_code() as i32);
    let stopped = stopping.load(Ordering::SeqCst);
    let failed = !stopped && !status.as_ref().is_ok_and(|s| s.success());
    // A session that failed says why on its screen: the host's log keeps the last of it.
    let last_words = if failed { hub.last_words() } else { String::new() };
    if failed {
        #[allow(clippy::print_stderr)] // the host's stderr is its log file
        {
            eprintln!("the session ended with code {code}; the last it drew:\n{last_words}");
        }
    }
    state::update(&dir, |s| {
        if let Some(line) = last_words.lines().rev().find(|l| !l.trim().is_empty()) {
            s.detail = line.trim().chars().take(200).collect();
        }
        s.status = if stopped {
            Status::Stopped
        } else if status.as_ref().is_ok_and(|s| s.success()) {
            Status::Exited
        } else {
            Status::Failed
        };
        s.exit_code = Some(code);
    })?;
    let _ = std::fs::remove_file(dir.join("sock"));
    Ok(code)
}

/// A pseudo-terminal that could not be had.
fn terminal(e: impl std::fmt::Display) -> JobError {
    JobError::Terminal(format!("a terminal for the session: {e}"))
}

/// The flags of the session the host runs, and where it runs: a fresh one gets the
/// record's flags and takes its prompt from the record (`--job-prompt`: never on a
/// command line, whatever its size, nor in `ps`); a resumed one gets its conversation,
/// in the folder it worked in.
fn session_args(record: &State, dir: &Path, start: Start) -> (Vec<OsString>, PathBuf) {
    let mut args: Vec<OsString> = Vec::new();
    let job = [OsString::from("--job"), dir.as_os_str().to_owned()];
    match start {
        Start::Fresh => {
            args.extend(record.args.iter().map(OsString::from));
            args.extend(job);
            args.push("--job-prompt".into());
            (args, record.cwd.clone())
        }
        Start::Resume => {
            args.extend(resumable_flags(&record.args).into_iter().map(OsString::from));
            args.extend(job);
            args.push(format!("--resume={}", record.session_id).into());
            let workdir = record.workdir.clone().unwrap_or_else(|| record.cwd.clone());
            (args, workdir)
        }
    }
}

/// The flags without those that choose or make the conversation and its folder (the
/// resumed session names its conversation itself and works where it worked).
fn resumable_flags(args: &[String]) -> Vec<String> {
    let with_value = ["--session-id", "--resume", "-r", "--worktree", "-w", "--rewind-to"];
    let alone = ["--continue", "-c", "--fork-session"];
    let mut out = Vec::new();
    let mut skip_next = false;
    for a in args {
        if std::mem::take(&mut skip_next) && !a.starts_with('-') {
            continue;
        }
        let flag = a.split('=').next().unwrap_or(a);
        if alone.contains(&a.as_str()) {
            continue;
        }
        if with_value.contains(&flag) {
            skip_next = !a.contains('=');
            continue;
        }
        out.push(a.clone());
    }
    out
}

#[derive(Clone)]
struct Serving {
    dir: PathBuf,
    hub: Arc<Hub>,
    keys: Arc<Mutex<Box<dyn Write + Send>>>,
    master: Arc<Mutex<Box<dyn MasterPty + Send>>>,
    killer: Arc<Mutex<Box<dyn ChildKiller + Send + Sync>>>,
    stopping: Arc<AtomicBool>,
    pid: Option<u32>,
    /// Each attached terminal's size, by connection, the one in use last: the session is
    /// drawn for the terminal the person types in (the others show it at that size).
    sizes: Arc<Mutex<Vec<(usize, u16, u16)>>>,
}

impl Serving {
    /// One connection: a terminal that attaches, or `rein stop`.
    fn client(&self, mut stream: UnixStream) {
        let Ok(Some(first)) = wire::read_frame(&mut stream) else { return };
        match first {
            Frame::Stop => self.stop(),
            Frame::Hello { cols, rows } => {
                static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
                let me = NEXT.fetch_add(1, Ordering::Relaxed);
                self.sized(me, Some((cols, rows)), true);
                // A session ready for it draws itself again at this terminal's size;
                // else what it drew so far is replayed.
                let ready = self.ready();
                if self.hub.attach(&stream, !ready).is_err() {
                    return;
                }
                if ready {
                    self.repaint();
                }
                while let Ok(Some(frame)) = wire::read_frame(&mut stream) {
                    match frame {
                        Frame::Input(bytes) => {
                            // The terminal the person types in is the one the session
                            // is drawn for.
                            if self.sized(me, None, true) && self.ready() {
                                self.repaint();
                            }
                            if let Ok(mut keys) = self.keys.lock() {
                                let _ = keys.write_all(&bytes);
                                let _ = keys.flush();
                            }
                        }
                        Frame::Resize { cols, rows } => {
                            self.sized(me, Some((cols, rows)), false);
                        }
                        Frame::Stop => self.stop(),
                        Frame::Hello { .. } => {}
                    }
                }
                if self.left(me) && self.ready() {
                    self.repaint();
                }
            }
            Frame::Input(_) | Frame::Resize { .. } => {}
        }
    }

    /// Terminal `me` has `size` now (`None`: as before); `active`: the person uses it.
    /// The session is drawn at the size of the terminal used last. `true` when that
    /// terminal changed (the others' screens need drawing again).
    fn sized(&self, me: usize, size: Option<(u16, u16)>, active: bool) -> bool {
        let (switched, now) = {
            let Ok(mut sizes) = self.sizes.lock() else { return false };
            let was = sizes.last().map(|s| s.0);
            let mine = sizes.iter().position(|s| s.0 == me).map(|i| sizes.remove(i));
            let Some((cols, rows)) = size.or(mine.map(|m| (m.1, m.2))).filter(|(c, r)| *c > 0 && *r > 0) else {
                return false;
            };
            // The last entry is the terminal in use.
            let at = if active || was == Some(me) { sizes.len() } else { sizes.len().saturating_sub(1) };
            sizes.insert(at, (me, cols, rows));
            let last = sizes.last().copied();
            (was != last.map(|s| s.0), last)
        };
        if let Some((_, cols, rows)) = now {
            self.resize(cols, rows);
        }
        switched
    }

    /// Terminal `me` left; `true` when it was the one in use (another one now is).
    fn left(&self, me: usize) -> bool {
        let next = {
            let Ok(mut sizes) = self.sizes.lock() else { return false };
            let was = sizes.last().map(|s| s.0);
            sizes.retain(|s| s.0 != me);
            if was != Some(me) {
                return false;
            }
            sizes.last().copied()
        };
        match next {
            Some((_, cols, rows)) => {
                self.resize(cols, rows);
                true
            }
            None => false,
        }
    }

    /// The session has said it can draw itself again on request.
    fn ready(&self) -> bool {
        self.pid.is_some() && state::read(&self.dir).is_ok_and(|s| s.session_pid.is_some() && s.session_pid == self.pid)
    }

    /// Ask the session to draw everything again (at the size in use).
    fn repaint(&self) {
        if let Some(pid) = self.pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::USR1);
        }
    }

    fn resize(&self, cols: u16, rows: u16) {
        if let Ok(master) = self.master.lock() {
            let _ = master.resize(PtySize { cols, rows, pixel_width: 0, pixel_height: 0 });
        }
    }

    /// End the session: a hangup, as when its terminal closes, then a kill if it lingers.
    fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        let _ = state::update(&self.dir, |s| s.detail = "stopped with `rein stop`".into());
        if let Ok(mut killer) = self.killer.lock() {
            let _ = killer.kill();
        }
        if let Some(pid) = self.pid {
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_secs(3));
                rein_process::kill_group(pid);
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumed_session_keeps_its_flags_but_not_those_that_chose_its_conversation() {
        let args: Vec<String> = [
            "--model",
            "opus",
            "-w",
            "feature",
            "--session-id=abc",
            "-c",
            "--permission-mode",
            "plan",
            "--resume",
            "x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(resumable_flags(&args), ["--model", "opus", "--permission-mode", "plan"]);
    }
}
