//! What a background session tells its record as it works: the interactive session run
//! by a host holds a [`Reporter`] and calls it at each turn's start and end and while a
//! question waits for a person. A record that cannot be written is logged, never fatal:
//! the session's work matters more than its listing.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{JobError, State, Status, state};

/// The most of a session's last answer its record keeps.
const OUTPUT_CHARS: usize = 2_000;

/// Keeps one background session's record current.
#[derive(Debug)]
pub struct Reporter {
    dir: PathBuf,
    /// Questions open now (parallel calls may ask at once).
    open_questions: AtomicUsize,
}

impl Reporter {
    /// The reporter of the session whose folder is `dir`.
    pub fn at(dir: &Path) -> Result<Reporter, JobError> {
        state::read(dir)?;
        Ok(Reporter { dir: dir.to_path_buf(), open_questions: AtomicUsize::new(0) })
    }

    /// The prompt the session was started with.
    pub fn intent(&self) -> Result<String, JobError> {
        Ok(state::read(&self.dir)?.intent)
    }

    fn change(&self, change: impl FnOnce(&mut State)) {
        if let Err(e) = state::update(&self.dir, change) {
            tracing::warn!(error = %e, "could not update the background session's record");
        }
    }

    /// The session is open: its id, the folder it works in and its transcript; `idle`:
    /// it has no prompt to start on and waits for a message.
    pub fn opened(&self, session_id: &str, workdir: &Path, transcript: Option<PathBuf>, idle: bool) {
        self.change(|s| {
            s.session_id = session_id.to_string();
            s.workdir = Some(workdir.to_path_buf());
            s.transcript = transcript;
            s.session_pid = Some(std::process::id());
            if idle {
                s.status = Status::Done;
                s.detail = "waits for a message".into();
            }
        });
    }

    /// A turn began on `prompt`.
    pub fn working(&self, prompt: &str) {
        let detail = one_line(prompt);
        self.change(|s| {
            s.status = Status::Working;
            s.detail = detail;
        });
    }

    /// A question waits for a person: `what` it asks, in a line.
    pub fn blocked(&self, what: &str) {
        self.open_questions.fetch_add(1, Ordering::SeqCst);
        let detail = one_line(what);
        self.change(|s| {
            s.status = Status::Blocked;
            s.detail = detail;
        });
    }

    /// A question was answered; the session works on unless another still waits.
    pub fn answered_question(&self) {
        let before = self.open_questions.fetch_sub(1, Ordering::SeqCst);
        if before <= 1 {
            self.open_questions.store(0, Ordering::SeqCst);
            self.change(|s| {
                if s.status == Status::Blocked {
                    s.status = Status::Working;
                }
            });
        }
    }

    /// A turn ended with `answer`, having cost `cost_usd`.
    pub fn turn_ended(&self, answer: &str, cost_usd: f64) {
        let output: String = answer.trim().chars().take(OUTPUT_CHARS).collect();
        self.open_questions.store(0, Ordering::SeqCst);
        self.change(|s| {
            s.status = Status::Done;
            s.detail = one_line(answer);
            if !output.is_empty() {
                s.output = output;
            }
            s.cost_usd += cost_usd;
        });
    }
}

/// The first line of `text`, at most 100 characters.
fn one_line(text: &str) -> String {
    let first = text.trim().lines().next().unwrap_or_default();
    if first.chars().count() > 100 { first.chars().take(99).collect::<String>() + "…" } else { first.to_string() }
}
