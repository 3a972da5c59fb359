//! WorktreeCreate and WorktreeRemove around `--worktree`, as Claude Code raises them:
//! where a WorktreeCreate hook is configured it makes the worktree instead of git (for
//! a folder git does not manage, or a team's own layout) and prints the worktree's
//! path as the last line of its output; any exit but 0 fails the creation. When the
//! session is done with a worktree, WorktreeRemove hooks hear of it (to stop what they
//! started there) before git removes it — or instead of git, for one a hook made.
//! The hooks come from the settings the session itself will read; in a folder nobody
//! trusted yet, an interactive start takes only the person's and the organisation's.

use std::path::{Path, PathBuf};

use rein_hooks::{Exit, HookConfig, HookEvent, HookInput, Hooks, Session as HookSession};

use crate::Options;

/// The worktree hooks of a session about to start.
pub struct WorktreeHooks {
    hooks: Hooks,
}

/// Why a WorktreeCreate hook made no worktree.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeHookError {
    #[error("the WorktreeCreate hook `{hook}` failed ({exit}): {stderr}")]
    Failed { hook: String, exit: String, stderr: String },
    #[error("the WorktreeCreate hook `{hook}` printed no folder that exists (its last line: {line:?})")]
    NoFolder { hook: String, line: String },
}

/// The worktree hooks configured for a session started with `opts` in `cwd`, if any.
pub fn load(opts: &Options, cwd: &Path, session_id: &str) -> crate::Result<Option<WorktreeHooks>> {
    let env = opts.env();
    let home = env.home.clone();
    let kinds = crate::builtin::builtin_kinds()?;
    let (mut settings, _) = crate::rules::load(opts, cwd, home.as_deref(), kinds)?;
    let trusted = opts.print
        || opts.trusted_for_session
        || crate::mcp::claude_json(&env).is_some_and(|j| crate::trust::is_trusted(&j, cwd, home.as_deref()));
    if !trusted {
        settings.files.retain(|f| !f.scope.is_repository());
    }
    let config = HookConfig::from_settings(&crate::safe_mode::customisations(opts, &settings))?;
    if !config.events.contains_key(&HookEvent::WorktreeCreate)
        && !config.events.contains_key(&HookEvent::WorktreeRemove)
    {
        return Ok(None);
    }
    let session_dir = env.rein_home.join("sessions").join(session_id);
    let session = HookSession {
        session_id: session_id.to_string(),
        transcript_path: session_dir.join("transcript.jsonl"),
        cwd: cwd.to_path_buf(),
        project_dir: cwd.to_path_buf(),
        permission_mode: opts.permission_mode.clone().unwrap_or_else(|| "default".into()),
        session_dir,
    };
    Ok(Some(WorktreeHooks { hooks: Hooks::new(config, session) }))
}

impl WorktreeHooks {
    /// Make the worktree `name` through the WorktreeCreate hooks: its path, or `None`
    /// when no such hook is configured (git makes it).
    pub async fn create(&self, name: &str) -> Result<Option<PathBuf>, WorktreeHookError> {
        if !self.hooks.has(HookEvent::WorktreeCreate) {
            return Ok(None);
        }
        let out = self.hooks.fire_input(&HookInput::WorktreeCreate { name: name.to_string() }, |_| true).await;
        let mut made = None;
        for run in &out.runs {
            if run.exit != Exit::Code(Some(0)) {
                let exit = match &run.exit {
                    Exit::Code(Some(c)) => format!("exit {c}"),
                    Exit::Code(None) => "killed by a signal".into(),
                    Exit::TimedOut(t) => format!("timed out after {} s", t.as_secs_f64()),
                    Exit::NotStarted(why) => format!("not started: {why}"),
                };
                let stderr = run.stderr.lines().next().unwrap_or("").trim().to_string();
                return Err(WorktreeHookError::Failed { hook: run.handler.clone(), exit, stderr });
            }
            let line = run.stdout.lines().rev().map(str::trim).find(|l| !l.is_empty()).unwrap_or("").to_string();
            let path = self.hooks.session.cwd.join(&line);
            if line.is_empty() || !path.is_dir() {
                return Err(WorktreeHookError::NoFolder { hook: run.handler.clone(), line });
            }
            made.get_or_insert(path);
        }
        Ok(made)
    }

    /// The session is done with the worktree at `path`: WorktreeRemove hooks; what they
    /// say is for the person.
    pub async fn remove(&self, path: &Path) -> Vec<String> {
        if !self.hooks.has(HookEvent::WorktreeRemove) {
            return Vec::new();
        }
        let input = HookInput::WorktreeRemove { worktree_path: path.display().to_string() };
        self.hooks.fire_input(&input, |_| true).await.notices(HookEvent::WorktreeRemove)
    }
}
