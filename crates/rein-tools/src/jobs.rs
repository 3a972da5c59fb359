//! The session's background commands as a frontend sees them (`/tasks`): each one's
//! id, command line, state and age; the end of its output; stopping it.

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

/// What a frontend can do with the background commands.
pub trait BackgroundJobs: Send + Sync {
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
}
