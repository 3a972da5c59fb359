//! A Bash command tried first (see `rein_sandbox::trial`): run once in a copy-on-write
//! jail, its output and what it changed kept in the call's [`TrialSlot`] until the
//! permission stage decides — keep the result (and apply the changes), or drop it.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rein_sandbox::trial::Trial;

use super::shell::{Ending, How, Limits, Saving, Shell, lock};

/// What a tried command did, held until its result is kept or dropped.
pub struct Tried {
    pub trial: Trial,
    /// Its output as the model would get it, and how it ended.
    pub output: String,
    pub ending: Ending,
    /// The shell state it saved (its `cd` and exports), adopted when the result is kept.
    saving: Option<Saving>,
    state_file: std::path::PathBuf,
}

impl std::fmt::Debug for Tried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tried").field("trial", &self.trial).field("output", &self.output).finish()
    }
}

impl Tried {
    /// Keep what it did: its changes made on the host (the command does not run again),
    /// and its shell state adopted. The number of changes made.
    pub fn keep(self) -> Result<usize, String> {
        let made = self.trial.apply()?;
        if let Some(saving) = self.saving {
            saving.adopt(&self.state_file);
        }
        Ok(made)
    }
}

/// Where a call to be tried first leaves what it did. Empty when the call could not be
/// tried (no Tier A, a background command): the call is then asked as before.
#[derive(Debug, Clone, Default)]
pub struct TrialSlot(Arc<Mutex<Option<Tried>>>);

impl TrialSlot {
    pub fn take(&self) -> Option<Tried> {
        lock(&self.0).take()
    }

    /// The tried command's output and ending, leaving it in the slot.
    pub(super) fn peek_output(&self) -> Option<(String, Ending)> {
        lock(&self.0).as_ref().map(|t| (t.output.clone(), t.ending.clone()))
    }

    pub(super) fn put(&self, tried: Tried) {
        *lock(&self.0) = Some(tried);
    }
}

impl Shell {
    /// Try `command` in the jail; what it did goes to `slot`.
    pub(super) async fn try_first(
        &self,
        cwd: &Path,
        command: &str,
        limits: Limits<'_>,
        slot: &TrialSlot,
    ) -> std::io::Result<()> {
        let Some(sandbox) = self.sandbox.clone() else { return Ok(()) };
        let ran = self.run_as(cwd, command, How::Trial, limits).await?;
        let Some(trial) = ran.after.and_then(|a| sandbox.finish_trial(a)) else { return Ok(()) };
        slot.put(Tried {
            trial,
            output: ran.output,
            ending: ran.ending,
            saving: ran.saving,
            state_file: self.state_file(),
        });
        Ok(())
    }
}
