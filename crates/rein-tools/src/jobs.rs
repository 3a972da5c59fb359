//! The session's shell as the engine and a frontend see it: its background commands
//! (`/tasks`: each one's id, command line, state and age; the end of its output;
//! stopping it; Ctrl+B) and the directory it works in (a worktree moves it).

use std::time::Duration;

/// One background command.
#[derive(Debug, Clone, PartialEq)]
pub struct JobInfo {
    pub id: String,
    pub command: String,
    /// `running`, `exited with code 0`, `killed`, …
    pub state: String,
    pub running: bool,
    pub age: Duration,
}

/// What the engine and a frontend can do with the session's shell.
pub trait SessionShell: Send + Sync {
    /// Every background command of the session, oldest first.
    fn list(&self) -> Vec<JobInfo>;
    /// The last `lines` lines of a command's output (all of it so far, whatever was
    /// read before); `None` for an unknown id.
    fn tail(&self, id: &str, lines: usize) -> Option<String>;
    /// Stop a command; its state after, or `None` for an unknown id.
    fn stop(&self, id: &str) -> Option<String>;
    /// Ctrl+B: the foreground commands running now go on in the background (their
    /// calls return with the new job's id).
    fn detach_running(&self);
    /// The next command starts in `dir` (the session moved into or out of a worktree).
    fn move_to(&self, dir: &std::path::Path);
    /// The session's background subagents.
    fn agents(&self) -> crate::BackgroundAgents;
}
