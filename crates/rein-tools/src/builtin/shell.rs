//! The session's shell. Each command runs in a fresh `bash` in its own process group (so
//! a timeout or cancel kills everything it started), yet the session behaves like one
//! persistent shell: after every command the working directory, exported variables and
//! functions are saved to a state file, and the next command starts from them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio_util::sync::CancellationToken;

pub(crate) use super::shell_output::Ending;
use super::shell_output::{How, Limits, Ran, Sink, lock};
use super::shell_state::{CWD_FD, STATE_FD, Saving};
use crate::spilling::Spilling;

/// Loads the saved state, saves it again on exit, and runs the command with `eval`.
/// Arguments: $1 state file, $2 starting directory, $3 the command, $4 "save" or "",
/// $5 the SessionStart hooks' env file. The state is saved through the descriptors
/// [`STATE_FD`] and [`CWD_FD`], files rein opened in its own directory: no command, in
/// the sandbox or not, can name (or predict) a file rein later sources.
const WRAPPER: &str = r#"__rein_state=$1; __rein_cmd=$3
if [ -s "$__rein_state" ]; then . "$__rein_state" 2>/dev/null; else cd -- "$2" 2>/dev/null; fi
if [ -n "$5" ] && [ -s "$5" ]; then set -a; . "$5" >/dev/null 2>&1; set +a; fi
if [ "$4" = save ]; then
  __rein_save() { { export -p; declare -f; printf 'cd -- %q\n' "$PWD"; printf '%s\n' '# rein: end of state'; } >&71 2>/dev/null; printf '%s' "$PWD" >&72 2>/dev/null; }
  trap __rein_save EXIT
fi
set --
eval "$__rein_cmd"
"#;

/// Set in every command's environment (rein's doing, not a change a command made).
const OPTIONAL_LOCKS: (&str, &str) = ("GIT_OPTIONAL_LOCKS", "0");

/// A background command.
pub(super) struct Job {
    pub(super) group: Option<Pid>,
    pub(super) command: String,
    pub(super) started: std::time::Instant,
    pub(super) output: PathBuf,
    pub(super) read_to: u64,
    pub(super) status: Arc<Mutex<JobStatus>>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum JobStatus {
    Running,
    Exited(Option<i32>),
    Killed,
}

/// Shared by Bash, BashOutput and KillShell for one session.
pub(crate) struct Shell {
    /// The shell's own folder (its saved state, background logs), made when first
    /// needed: a session that runs no command makes none.
    dir: std::sync::OnceLock<Result<tempfile::TempDir, std::io::Error>>,
    /// The session's OS sandbox, when one is configured.
    pub(crate) sandbox: Option<Arc<rein_sandbox::Sandbox>>,
    /// The environment the first command started from (rein's own, credentials
    /// removed): what later changes are measured against.
    baseline: std::sync::OnceLock<HashMap<std::ffi::OsString, std::ffi::OsString>>,
    pub(super) jobs: Mutex<HashMap<String, Job>>,
    pub(super) next_job: AtomicU32,
    /// Names the files each command saves the state through.
    next_save: AtomicU32,
    /// `CLAUDE_ENV_FILE`: what SessionStart hooks export for every command.
    env_file: std::sync::OnceLock<PathBuf>,
    /// The session's checkpoints, keeping what confined commands change for rewind.
    recorder: std::sync::OnceLock<Arc<dyn rein_sandbox::WriteRecorder>>,
    /// Ctrl+B: the foreground commands running now move to the background.
    pub(super) detach: tokio::sync::Notify,
    /// The session's background subagents: TaskOutput, TaskStop and `/tasks` serve them
    /// beside the commands.
    pub(super) agents: crate::BackgroundAgents,
}

impl Shell {
    pub(crate) fn new(sandbox: Option<Arc<rein_sandbox::Sandbox>>) -> std::io::Result<Self> {
        Ok(Shell {
            dir: std::sync::OnceLock::new(),
            sandbox,
            baseline: std::sync::OnceLock::new(),
            jobs: Default::default(),
            next_job: AtomicU32::new(1),
            next_save: AtomicU32::new(1),
            env_file: std::sync::OnceLock::new(),
            recorder: std::sync::OnceLock::new(),
            detach: tokio::sync::Notify::new(),
            agents: Default::default(),
        })
    }

    /// The shell's folder, made on first use.
    pub(super) fn dir(&self) -> std::io::Result<&Path> {
        let made = self.dir.get_or_init(|| tempfile::Builder::new().prefix("rein-shell-").tempdir());
        match made {
            Ok(d) => Ok(d.path()),
            Err(e) => Err(std::io::Error::new(e.kind(), format!("the shell's folder: {e}"))),
        }
    }

    /// The saved state's file (in a folder that could not be made: a path that does
    /// not exist, so the state reads as empty and commands start fresh).
    pub(super) fn state_file(&self) -> PathBuf {
        match self.dir() {
            Ok(d) => d.join("state.sh"),
            Err(_) => PathBuf::from("/nonexistent/rein-shell/state.sh"),
        }
    }

    /// The next command starts in `dir`: the saved state ends by going there (the
    /// variables and functions it holds are kept).
    pub(crate) fn move_to(&self, dir: &Path) {
        use std::io::Write as _;
        let quoted = format!("'{}'", dir.display().to_string().replace('\'', r"'\''"));
        if let Ok(mut state) = std::fs::OpenOptions::new().append(true).open(self.state_file()) {
            let _ = writeln!(state, "cd -- {quoted}");
        }
        let mut cwd = self.state_file().into_os_string();
        cwd.push(".cwd");
        let _ = std::fs::write(cwd, dir.display().to_string());
    }

    /// A file the wrapper writes beside the state file after each command.
    fn saved(&self, suffix: &str) -> Option<Vec<u8>> {
        let mut path = self.state_file().into_os_string();
        path.push(suffix);
        std::fs::read(path).ok()
    }

    /// The directory the next command starts in, once a command has run (`None` before).
    pub(crate) fn current_dir(&self) -> Option<PathBuf> {
        use std::os::unix::ffi::OsStringExt as _;
        self.saved(".cwd").filter(|b| !b.is_empty()).map(|b| PathBuf::from(std::ffi::OsString::from_vec(b)))
    }

    /// Source `path` (written by SessionStart hooks through `CLAUDE_ENV_FILE`) before
    /// every command.
    pub(crate) fn use_env_file(&self, path: PathBuf) {
        let _ = self.env_file.set(path);
    }

    /// Keep what confined commands change in `checkpoints` (the first call counts).
    pub(crate) fn use_checkpoints(&self, checkpoints: Arc<dyn crate::FileCheckpoints>) {
        let _ = self.recorder.set(Arc::new(crate::checkpoints::Recorded(checkpoints)));
    }

    /// What the env file sets, name and value as written (quotes taken off): the
    /// session's, not a command's change — while a variable still holds that value.
    fn env_file_values(&self) -> Vec<(String, String)> {
        let Some(text) = self.env_file.get().and_then(|p| std::fs::read_to_string(p).ok()) else { return Vec::new() };
        text.lines()
            .filter_map(|l| {
                let l = l.trim().strip_prefix("export ").unwrap_or(l.trim());
                let (name, value) = l.split_once('=')?;
                let value = value.trim();
                let unquoted = ['"', '\'']
                    .iter()
                    .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
                    .unwrap_or(value);
                Some((name.trim().to_string(), unquoted.to_string()))
            })
            .collect()
    }

    /// What earlier commands left in the shell: functions, and exported variables (not
    /// inert ones) that differ from the environment the session started with. Read from
    /// the saved state (`export -p`, `declare -f`), so that saving costs no process.
    pub(crate) fn state(&self) -> rein_effects::ShellState {
        let mut state = rein_effects::ShellState::default();
        let Some(saved) = self.saved("") else { return state };
        let saved = String::from_utf8_lossy(&saved);
        let (exported, functions) = super::shell_state::parse(&saved);
        state.functions = functions.into_iter().filter(|f| !f.starts_with("__rein")).collect();
        let Some(baseline) = self.baseline.get() else { return state };
        let injected = self.sandbox.as_ref().map(|s| s.injected_env()).unwrap_or_default();
        // An env-file value is expanded with the environment the session started with
        // (`$HOME/bin:$PATH`); a variable holding anything else is a change like any.
        let from_env_file: Vec<(String, String)> = self
            .env_file_values()
            .into_iter()
            .map(|(n, v)| (n, super::shell_state::expand_with(&v, baseline)))
            .collect();
        for (name, value) in exported {
            if matches!(name.as_str(), "PWD" | "OLDPWD" | "SHLVL" | "_")
                || name == OPTIONAL_LOCKS.0
                || rein_bash::is_inert(&name)
                || injected.contains(&name.as_str())
                || from_env_file.iter().any(|(n, v)| *n == name && value.as_deref() == Some(v.as_str()))
            {
                continue;
            }
            let before = baseline.get(std::ffi::OsStr::new(&name)).map(|v| v.to_string_lossy());
            if before.as_deref() != value.as_deref() {
                state.changed_env.push(name);
            }
        }
        state
    }

    /// The variables the sandbox sets in a confined command's environment.
    pub(super) fn injected(&self) -> Vec<&'static str> {
        self.sandbox.as_ref().map(|s| s.injected_env()).unwrap_or_default()
    }

    /// Whether commands that do not opt out run in a working sandbox.
    pub(crate) fn sandboxed(&self) -> bool {
        self.sandbox.as_ref().is_some_and(|s| s.is_active())
    }

    /// The process for one command run as `how` says, and what its sandbox does after
    /// it. A command run outside an active sandbox starts from the shell's directory
    /// only: the saved state was writable from inside the sandbox and is not trusted
    /// outside it.
    pub(super) fn command_as(
        &self,
        cwd: &Path,
        command: &str,
        save: bool,
        how: How,
    ) -> std::io::Result<(tokio::process::Command, Option<rein_sandbox::After>, Option<Saving>)> {
        let profile = match how {
            How::Recorded(p) | How::Watched(p) => p,
            How::Trial => Some(rein_sandbox::Profile::ReadOnly),
        };
        let trial = matches!(how, How::Trial);
        self.baseline.get_or_init(|| rein_process::env::inherited().into_iter().collect());
        let escaping = self.sandboxed() && profile.is_none();
        let (state, start, save) = if escaping {
            (PathBuf::new(), self.current_dir().filter(|d| d.is_dir()).unwrap_or_else(|| cwd.to_path_buf()), false)
        } else {
            (self.state_file(), cwd.to_path_buf(), save)
        };
        let argv: Vec<std::ffi::OsString> = vec![
            "bash".into(),
            "--noprofile".into(),
            "--norc".into(),
            "-c".into(),
            WRAPPER.into(),
            "rein-bash".into(),
            state.into(),
            start.clone().into(),
            command.into(),
            (if save { "save" } else { "" }).into(),
            self.env_file.get().map(|p| p.as_os_str().to_os_string()).unwrap_or_default(),
        ];
        let (mut cmd, after) = match &self.sandbox {
            Some(sandbox) if trial => {
                let keep = if save { &[STATE_FD, CWD_FD][..] } else { &[] };
                // The jail hides the shared temp directory where the shell keeps its
                // state: the state and the hooks' env file are shown to it, read-only.
                let mut shown = vec![self.state_file()];
                shown.extend(self.env_file.get().cloned());
                let w = sandbox.wrap_trial(&argv, &start, keep, &shown).map_err(std::io::Error::other)?;
                (tokio::process::Command::from(w.command), Some(w.after))
            }
            Some(sandbox) if let Some(profile) = profile => {
                let keep = if save { &[STATE_FD, CWD_FD][..] } else { &[] };
                let w = match (&how, self.recorder.get().cloned()) {
                    (How::Recorded(_), Some(r)) => sandbox.wrap_recorded(profile, &argv, &start, keep, r),
                    (How::Watched(_), Some(r)) => sandbox.wrap_watched(profile, &argv, &start, keep, r),
                    _ => sandbox.wrap_as(profile, &argv, &start, keep),
                };
                (tokio::process::Command::from(w.command), Some(w.after))
            }
            None if trial => return Err(std::io::Error::other("no sandbox to try the command in")),
            _ => {
                let mut c = tokio::process::Command::new(&argv[0]);
                c.args(&argv[1..]).current_dir(&start);
                (c, None)
            }
        };
        // rein's own credentials never reach a command.
        rein_process::env::for_child(cmd.as_std_mut());
        // Reads that would change things do not: `git status` and `git diff` refresh
        // and rewrite the index unless optional locks are off.
        cmd.env(OPTIONAL_LOCKS.0, OPTIONAL_LOCKS.1);
        let saving = if save {
            let s = Saving::new(self.dir()?, self.next_save.fetch_add(1, Ordering::Relaxed))?;
            s.attach(&mut cmd);
            Some(s)
        } else {
            None
        };
        // A session of its own: no controlling terminal to type into or read the
        // person's keys from, and a process group a timeout or cancel kills whole.
        // SAFETY: only `setsid`, a system call, between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd.stdin(Stdio::null()).kill_on_drop(true);
        Ok((cmd, after, saving))
    }

    /// Run `command` in the foreground; output (stdout and stderr in order) kept whole:
    /// past `limit` characters it goes to the file `spill`, in bounded memory.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn run(
        &self,
        cwd: &Path,
        command: &str,
        timeout: Duration,
        abort: &CancellationToken,
        limit: usize,
        profile: Option<rein_sandbox::Profile>,
        spill: &Path,
    ) -> std::io::Result<(String, Ending)> {
        let limits = Limits { timeout, abort, limit, spill };
        let ran = self.run_as(cwd, command, How::Recorded(profile), limits).await?;
        let mut output = ran.output;
        // What the sandbox refused, in the form the model is told about. First: a
        // recorded run's changes reach the host here, and the directory it `cd`'d into
        // may be one of them.
        if let Some(block) = self.finish(ran.after, &output) {
            if !output.is_empty() && !output.ends_with('\n') {
                output.push('\n');
            }
            output.push_str(&block);
        }
        if let Some(saving) = ran.saving {
            let injected = self.injected();
            saving.adopt(&self.state_file(), profile.map(|_| injected.as_slice()));
        }
        Ok((output, ran.ending))
    }

    /// Run `command` once as it comes, or as a trial; the state it saved is not yet
    /// adopted and its sandbox's after-step not yet taken.
    pub(super) async fn run_as(&self, cwd: &Path, command: &str, how: How, limits: Limits<'_>) -> std::io::Result<Ran> {
        let trial = matches!(how, How::Trial);
        let (reader, writer) = std::io::pipe()?;
        let (mut cmd, after, saving) = self.command_as(cwd, command, true, how)?;
        cmd.stdout(Stdio::from(writer.try_clone()?)).stderr(Stdio::from(writer));
        let mut child = cmd.spawn()?;
        // Our copies of the write end must close, or the reader never sees EOF.
        drop(cmd);
        // Killed when the command ends, and also if this future is dropped mid-way.
        let mut group = crate::GroupGuard::new(child.id());
        let sink = Arc::new(Mutex::new(Sink::Memory(Spilling::new(limits.limit, limits.spill))));
        let collecting = sink.clone();
        let collector = tokio::task::spawn_blocking(move || super::shell_output::collect(reader, &collecting));
        // A trial is never moved to the background: what it did is still to be decided.
        let detach = async { if trial { std::future::pending::<()>().await } else { self.detach.notified().await } };
        let ending = tokio::select! {
            status = child.wait() => Ending::Exited(status?.code()),
            _ = tokio::time::sleep(limits.timeout) => Ending::TimedOut,
            _ = limits.abort.cancelled() => Ending::Cancelled,
            _ = detach => {
                // It runs on as a job; the collector now writes to the job's log.
                let id = self.adopt(command, child, group, &sink, after)?;
                return Ok(Ran { output: String::new(), ending: Ending::Backgrounded(id), saving: None, after: None });
            }
        };
        // Kill the whole group: on timeout and cancel, and to end anything the command
        // left running that would hold the pipe open (a daemon, `sleep 100 &`).
        group.kill();
        let _ = child.wait().await;
        let output = collector.await.map_err(std::io::Error::other)?.for_model();
        Ok(Ran { output, ending, saving, after })
    }
}

impl Drop for Shell {
    /// No background command outlives the session.
    fn drop(&mut self) {
        for job in lock(&self.jobs).values() {
            if *lock(&job.status) == JobStatus::Running
                && let Some(g) = job.group
            {
                let _ = kill_process_group(g, Signal::KILL);
            }
        }
    }
}
