//! Keys that change the session from the input box: "don't ask again" rules through
//! the policy's one door, and exiting (Ctrl+C or Ctrl+D twice).

use std::time::Instant;

use rein_policy::{Change, Destination, PermissionUpdate, SettingsFiles, UpdateError};

use crate::app::{App, EXIT_WINDOW};

impl App {
    /// A "don't ask again" answer, through the policy's one door for updates.
    pub(crate) fn apply(
        &self,
        change: Change,
        destination: Destination,
    ) -> Result<Option<std::path::PathBuf>, UpdateError> {
        let files = SettingsFiles { project_root: self.project_root.clone(), user_dir: None };
        self.policy.apply(&PermissionUpdate { change, destination }, &files)
    }

    pub(crate) fn arm_exit(&mut self, hint: &str) {
        if self.exit_armed.is_some_and(|t| t.elapsed() < EXIT_WINDOW) {
            self.quit = true;
            return;
        }
        self.exit_armed = Some(Instant::now());
        self.hint = Some((hint.to_string(), Instant::now()));
    }
}
