//! The facts of a running session that change while it runs (its id, transcript, mode
//! and the shell's directory), with one owner: hooks read
//! them each time they run (through `rein_hooks::LiveFacts`), frontends when they draw.

use std::path::PathBuf;
use std::sync::{PoisonError, RwLock};

use rein_policy::SharedPolicy;

/// The session id and transcript (new after `/clear`) and the permission mode (read
/// from the policy the gate decides with, so every change is seen).
pub struct Live {
    id: RwLock<String>,
    transcript: RwLock<PathBuf>,
    policy: SharedPolicy,
    /// Where the session shell is (hooks' `cwd`).
    shell_dir: rein_tools::ShellDir,
}

impl Live {
    pub fn new(session_id: String, transcript: PathBuf, policy: SharedPolicy) -> Self {
        Live {
            id: RwLock::new(session_id),
            transcript: RwLock::new(transcript),
            policy,
            shell_dir: rein_tools::ShellDir::default(),
        }
    }

    /// The session shell's directory slot (the one its tools' context carries).
    pub fn shell_dir(&self) -> &rein_tools::ShellDir {
        &self.shell_dir
    }

    pub fn session_id(&self) -> String {
        self.id.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub fn transcript(&self) -> PathBuf {
        self.transcript.read().unwrap_or_else(PoisonError::into_inner).clone()
    }

    pub fn policy(&self) -> &SharedPolicy {
        &self.policy
    }

    /// A new session (`/clear`): its id and transcript.
    pub(crate) fn renew(&self, session_id: String, transcript: PathBuf) {
        *self.id.write().unwrap_or_else(PoisonError::into_inner) = session_id;
        *self.transcript.write().unwrap_or_else(PoisonError::into_inner) = transcript;
    }
}

impl rein_hooks::LiveFacts for Live {
    fn session_id(&self) -> String {
        Live::session_id(self)
    }

    fn transcript_path(&self) -> PathBuf {
        self.transcript()
    }

    fn permission_mode(&self) -> String {
        self.policy.get().mode.name().to_string()
    }

    fn cwd(&self) -> Option<PathBuf> {
        self.shell_dir.get()
    }
}
