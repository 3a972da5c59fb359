//! The session's transcript as the engine writes it: each line appended and flushed as
//! it happens. A write that fails is reported once — a warning for the user, carried by
//! the next engine event — and the session goes on: losing the record must not lose the
//! work in progress.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rein_transcript::{SessionError, Transcript};

#[derive(Clone, Default)]
pub(crate) struct Journal {
    file: Option<Arc<Mutex<Transcript>>>,
    failed: Arc<AtomicBool>,
    warning: Arc<Mutex<Option<String>>>,
}

impl Journal {
    pub(crate) fn new(transcript: Transcript) -> Self {
        Journal { file: Some(Arc::new(Mutex::new(transcript))), ..Journal::default() }
    }

    /// Append with `write`; the first failure becomes a warning.
    pub(crate) fn write(&self, write: impl FnOnce(&mut Transcript) -> Result<(), SessionError>) {
        let Some(file) = &self.file else { return };
        let mut t = file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = write(&mut t) {
            tracing::error!(error = %e, "could not write the transcript");
            if !self.failed.swap(true, Ordering::Relaxed) {
                let text = format!(
                    "warning: the transcript could not be written ({e}); the session goes on, but it may not be resumable"
                );
                *self.warning.lock().unwrap_or_else(|p| p.into_inner()) = Some(text);
            }
        }
    }

    /// The uuid of the last message line written.
    pub(crate) fn last_uuid(&self) -> Option<String> {
        let file = self.file.as_ref()?;
        file.lock().unwrap_or_else(|p| p.into_inner()).last_uuid().map(str::to_string)
    }

    /// The warning of the first failed write, once.
    pub(crate) fn take_warning(&self) -> Option<String> {
        self.warning.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transcript that cannot be written warns once; the session is not stopped.
    #[test]
    fn a_failed_write_warns_once() {
        let full = std::path::Path::new("/dev/full");
        if !full.exists() {
            return;
        }
        let Ok(t) = Transcript::open(full, "s", std::path::Path::new("/"), None) else { return };
        let journal = Journal::new(t);
        let user = rein_protocol::Message::user_text("hi");
        journal.write(|t| t.user(&user, false));
        let warning = journal.take_warning();
        assert!(warning.as_deref().is_some_and(|w| w.contains("could not be written")), "{warning:?}");
        journal.write(|t| t.user(&user, false));
        assert_eq!(journal.take_warning(), None, "only once");
    }
}
