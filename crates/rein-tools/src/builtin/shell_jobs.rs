//! The session's background commands: started in the background (`run_in_background`),
//! or moved there while they run (Ctrl+B); their output goes to a log that TaskOutput
//! reads and `/tasks` shows; TaskStop and `/tasks stop` end them.

use std::io::Read as _;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use rustix::process::{Pid, Signal, kill_process_group};

use super::shell::{Job, JobStatus, Shell};
use super::shell_output::utf8_prefix;
use super::shell_output::{Sink, lock};
use crate::spilling::{Collected, Spilling};

impl Shell {
    /// Ctrl+B: the foreground commands running now go on in the background.
    pub(crate) fn detach_running(&self) {
        self.detach.notify_waiters();
    }

    /// A foreground command moved to the background: what it printed so far starts its
    /// job's log, the collector appends the rest, and a watcher records how it ends.
    pub(super) fn adopt(
        &self,
        command: &str,
        child: tokio::process::Child,
        guard: crate::GroupGuard,
        sink: &Mutex<Sink>,
        after: Option<rein_sandbox::After>,
    ) -> std::io::Result<String> {
        use std::io::Write as _;
        let id = format!("bash_{}", self.next_job.fetch_add(1, Ordering::Relaxed));
        let output = self.dir()?.join(format!("{id}.log"));
        let mut log = std::fs::File::create(&output)?;
        {
            let mut sink = lock(sink);
            let so_far = std::mem::replace(&mut *sink, Sink::Log(log.try_clone()?));
            if let Sink::Memory(capped) = so_far {
                match capped.finish() {
                    Collected::Whole(text) => log.write_all(text.as_bytes())?,
                    Collected::Spilled { saved: Ok(saved), .. } => {
                        std::io::copy(&mut std::fs::File::open(&saved.path)?, &mut log)?;
                    }
                    Collected::Spilled { head, tail, .. } => write!(log, "{head}\n…\n{tail}")?,
                }
            }
        }
        self.watch(id.clone(), command, child, guard, output, after);
        Ok(id)
    }

    /// Keep `child` as the job `id`: a watcher records how it ends (after the sandbox's
    /// after-step, whose block joins the log) and its process group dies with it.
    fn watch(
        &self,
        id: String,
        command: &str,
        mut child: tokio::process::Child,
        guard: crate::GroupGuard,
        output: std::path::PathBuf,
        after: Option<rein_sandbox::After>,
    ) {
        let group = child.id().and_then(|id| Pid::from_raw(id as i32));
        let status = Arc::new(Mutex::new(JobStatus::Running));
        let watcher = status.clone();
        let (sandbox, log_path) = (self.sandbox.clone(), output.clone());
        tokio::spawn(async move {
            let _guard = guard;
            let code = child.wait().await.ok().and_then(|s| s.code());
            if let (Some(sandbox), Some(after)) = (&sandbox, after)
                && let Some(block) = sandbox.finish(after, "")
            {
                // The job's log is what TaskOutput reads.
                use std::io::Write as _;
                if let Ok(mut log) = std::fs::OpenOptions::new().append(true).open(&log_path) {
                    let _ = writeln!(log, "{block}");
                }
            }
            let mut s = lock(&watcher);
            if *s == JobStatus::Running {
                *s = JobStatus::Exited(code);
            }
        });
        let job =
            Job { group, command: command.to_string(), started: std::time::Instant::now(), output, read_to: 0, status };
        lock(&self.jobs).insert(id, job);
    }

    /// Start `command` in the background, its output going to a file; returns its id.
    pub(crate) fn spawn_background(
        &self,
        cwd: &Path,
        command: &str,
        profile: Option<rein_sandbox::Profile>,
    ) -> std::io::Result<String> {
        let id = format!("bash_{}", self.next_job.fetch_add(1, Ordering::Relaxed));
        let output = self.dir()?.join(format!("{id}.log"));
        let file = std::fs::File::create(&output)?;
        let (mut cmd, after, _) = self.command_as(cwd, command, false, super::shell_output::How::Watched(profile))?;
        cmd.stdout(Stdio::from(file.try_clone()?)).stderr(Stdio::from(file));
        let child = cmd.spawn()?;
        // Registered so that a second interrupt kills it too; the job owns its guard.
        let guard = crate::GroupGuard::new(child.id());
        self.watch(id.clone(), command, child, guard, output, after);
        Ok(id)
    }

    /// New output of a background job since the last read, and its status: whole, or
    /// past `limit` characters saved to `spill` (read in bounded memory).
    pub(crate) fn read_new(&self, id: &str, limit: usize, spill: &Path) -> Option<(Collected, JobStatus)> {
        let mut jobs = lock(&self.jobs);
        let job = jobs.get_mut(id)?;
        let status = lock(&job.status).clone();
        let mut text = Spilling::new(limit, spill);
        if let Ok(mut f) = std::fs::File::open(&job.output) {
            use std::io::Seek as _;
            if f.seek(std::io::SeekFrom::Start(job.read_to)).is_ok() {
                let mut buf = vec![0u8; 65536];
                let mut carry: Vec<u8> = Vec::new();
                while let Ok(n) = f.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    job.read_to += n as u64;
                    carry.extend_from_slice(&buf[..n]);
                    let valid = utf8_prefix(&carry);
                    text.push_str(&String::from_utf8_lossy(&carry[..valid]));
                    carry.drain(..valid);
                }
                text.push_str(&String::from_utf8_lossy(&carry));
            }
        }
        Some((text.finish(), status))
    }

    /// Stop a background job (its whole process group).
    pub(crate) fn kill(&self, id: &str) -> Option<JobStatus> {
        let jobs = lock(&self.jobs);
        let job = jobs.get(id)?;
        let mut status = lock(&job.status);
        if *status == JobStatus::Running {
            if let Some(g) = job.group {
                let _ = kill_process_group(g, Signal::KILL);
            }
            *status = JobStatus::Killed;
        }
        Some(status.clone())
    }

    /// A background job's status, without reading its output.
    pub(crate) fn status(&self, id: &str) -> Option<JobStatus> {
        let jobs = lock(&self.jobs);
        let job = jobs.get(id)?;
        let status = lock(&job.status).clone();
        Some(status)
    }

    pub(crate) fn job_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.jobs).keys().cloned().collect();
        ids.sort();
        ids
    }
}

impl crate::jobs::SessionShell for Shell {
    fn list(&self) -> Vec<crate::jobs::JobInfo> {
        let jobs = lock(&self.jobs);
        let mut out: Vec<crate::jobs::JobInfo> = jobs
            .iter()
            .map(|(id, job)| {
                let status = lock(&job.status).clone();
                crate::jobs::JobInfo {
                    id: id.clone(),
                    command: job.command.clone(),
                    state: super::bash_jobs::describe(&status),
                    running: status == JobStatus::Running,
                    age: job.started.elapsed(),
                }
            })
            .collect();
        out.extend(self.agents.list().into_iter().map(|a| crate::jobs::JobInfo {
            command: format!("agent {}: {}", a.name, a.description),
            state: a.state.describe().to_string(),
            running: a.state == crate::AgentState::Running,
            id: a.id,
            age: a.age,
        }));
        out.sort_by_key(|j| std::cmp::Reverse(j.age));
        out
    }

    fn tail(&self, id: &str, lines: usize) -> Option<String> {
        if let Some(agent) = self.agents.get(id) {
            let report = match agent.state {
                crate::AgentState::Done(r) | crate::AgentState::Failed(r) => r,
                other => format!("({})", other.describe()),
            };
            let all: Vec<&str> = report.lines().collect();
            return Some(all[all.len().saturating_sub(lines)..].join("\n"));
        }
        let path = lock(&self.jobs).get(id)?.output.clone();
        // The end of the log, read from a bounded window before it.
        let mut f = std::fs::File::open(&path).ok()?;
        let len = f.metadata().ok()?.len();
        let window = 256 * 1024;
        use std::io::Seek as _;
        f.seek(std::io::SeekFrom::Start(len.saturating_sub(window))).ok()?;
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes).ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let all: Vec<&str> = text.lines().collect();
        Some(all[all.len().saturating_sub(lines)..].join("\n"))
    }

    fn detach_running(&self) {
        Shell::detach_running(self);
    }

    fn move_to(&self, dir: &Path) {
        Shell::move_to(self, dir);
    }

    fn stop(&self, id: &str) -> Option<String> {
        if let Some(state) = self.agents.stop(id) {
            return Some(state.describe().to_string());
        }
        self.kill(id).map(|s| super::bash_jobs::describe(&s))
    }

    fn agents(&self) -> crate::BackgroundAgents {
        self.agents.clone()
    }
}
