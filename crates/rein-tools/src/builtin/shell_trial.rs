//! A Bash command tried first (see `rein_sandbox::trial`): run once in a copy-on-write
//! jail, its output and what it changed kept in the call's [`TrialSlot`] until the
//! permission stage decides — keep the result (and apply the changes), or drop it.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rein_sandbox::trial::Trial;

use super::shell::Shell;
use super::shell_output::{Ending, lock};
use super::shell_output::{How, Limits};
use super::shell_state::Saving;

/// What a tried command did, held until its result is kept or dropped.
pub struct Tried {
    pub trial: Trial,
    /// Its output as the model would get it, and how it ended.
    pub output: String,
    pub ending: Ending,
    /// The shell state it saved (its `cd` and exports), adopted when the result is kept.
    saving: Option<Saving>,
    state_file: std::path::PathBuf,
    /// The variables the sandbox set (not the command's to pass on).
    injected: Vec<&'static str>,
}

impl std::fmt::Debug for Tried {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tried").field("trial", &self.trial).field("output", &self.output).finish()
    }
}

impl Tried {
    /// The files keeping it touches on the host (to checkpoint first): each file changed,
    /// added or removed, and every file inside a directory it removes.
    pub fn touched_files(&self) -> Vec<std::path::PathBuf> {
        rein_sandbox::trial::touched_files(&self.trial.changes)
    }

    /// Whether a change is to a protected path or a repository's own files (never kept
    /// unasked).
    pub fn touches_protected(&self) -> bool {
        let everyone_writes =
            |c: &rein_sandbox::trial::Change| c.modes.is_some_and(|(o, n)| n & 0o002 != 0 && o & 0o002 == 0);
        self.trial.changes.iter().any(|c| c.protected || everyone_writes(c))
    }

    /// Every path it changed on the host side (files and directories; for a removed
    /// directory, the directory).
    pub fn changed_paths(&self) -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> = self.trial.changes.iter().map(|c| c.path.clone()).collect();
        v.dedup();
        v
    }

    /// What it changed, for the person: one line per path (A added, M changed, D
    /// removed; outside the workspace, protected paths and `marks` noted, those lines
    /// first), then a diff of each text file, within a budget of lines. Names are shown
    /// with control characters escaped (a name cannot forge a line).
    pub fn summary(&self, marks: &std::collections::HashMap<std::path::PathBuf, &str>) -> String {
        const PATHS: usize = 100;
        const DIFF_LINES: usize = 80;
        let mut lines: Vec<(bool, String)> = Vec::new();
        for c in &self.trial.changes {
            let mut notes: Vec<&str> = Vec::new();
            if !c.inside_workspace {
                notes.push("outside the workspace");
            }
            if c.protected {
                notes.push("protected");
            }
            notes.extend(marks.get(&c.path).copied());
            if let Some((old, new)) = c.modes
                && new & 0o002 != 0
                && old & 0o002 == 0
            {
                notes.push("made writable by everyone");
            }
            let slash = if c.is_dir { "/" } else { "" };
            let modes = c.modes.map(|(o, n)| format!(" (mode {o:o} -> {n:o})")).unwrap_or_default();
            let link = c.link.as_ref().map(|t| format!(" -> {}", printable(t))).unwrap_or_default();
            let shown = if notes.is_empty() { String::new() } else { format!("  [{}]", notes.join(", ")) };
            lines.push((
                !notes.is_empty(),
                format!("  {} {}{slash}{link}{modes}{shown}", c.kind.letter(), printable(&c.path)),
            ));
        }
        // What needs a closer look comes first, so no cut can hide it.
        lines.sort_by_key(|(flagged, _)| !flagged);
        let flagged = lines.iter().filter(|(f, _)| *f).count();
        let mut out = String::new();
        if flagged > 0 {
            out.push_str(&format!("  ({flagged} of {} changes need a closer look)\n", lines.len()));
        }
        for (_, l) in lines.iter().take(PATHS) {
            out.push_str(l);
            out.push('\n');
        }
        if lines.len() > PATHS {
            out.push_str(&format!("  … and {} more\n", lines.len() - PATHS));
        }
        let mut budget = DIFF_LINES;
        for c in &self.trial.changes {
            let Some((old, new)) = c.texts() else { continue };
            if budget == 0 {
                out.push_str("  (more differences not shown)\n");
                break;
            }
            let name = printable(&c.path);
            let diff = similar::TextDiff::from_lines(&old, &new);
            let text = diff.unified_diff().context_radius(2).header(&name, &name).to_string();
            for line in text.lines().take(budget) {
                out.push_str(&line.replace(|ch: char| ch.is_control() && ch != '\t', "?"));
                out.push('\n');
                budget -= 1;
            }
        }
        out.trim_end().to_string()
    }

    /// Keep what it did: its changes made on the host (the command does not run again),
    /// and its shell state adopted. The number of changes made.
    pub fn keep(self) -> Result<usize, rein_sandbox::trial::ApplyError> {
        let made = self.trial.apply()?;
        if let Some(saving) = self.saving {
            saving.adopt(&self.state_file, Some(&self.injected));
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
            injected: sandbox.trial_injected_env(),
        });
        Ok(())
    }
}

/// A path as text with its control characters escaped.
fn printable(path: &Path) -> String {
    path.display()
        .to_string()
        .chars()
        .flat_map(|c| if c.is_control() { c.escape_default().collect::<Vec<_>>() } else { vec![c] })
        .collect()
}

impl Shell {
    /// The sandbox's after-step for a finished command: its recorded changes made on
    /// the host (each kept first by the session's checkpoints, so a rewind restores
    /// them); its violations block, if any.
    pub(super) fn finish(&self, after: Option<rein_sandbox::After>, output: &str) -> Option<String> {
        let (sandbox, after) = self.sandbox.as_ref().zip(after)?;
        sandbox.finish(after, output)
    }
}
