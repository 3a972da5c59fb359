//! The rule every question rein asks keeps: it is answered only on purpose. A key
//! counts as an answer when it comes after the question has been on screen long
//! enough to be read and after a pause in typing; keys typed on while the question
//! appeared (the person was writing their next prompt) answer nothing — `y`, a number
//! or Enter typed ahead would approve. Keys that cannot approve (moving, scrolling,
//! Esc and Ctrl+C, which refuse) always count. Once one deliberate key has come, the
//! question is the person's: a note or an answer of their own goes at typing speed.
//!
//! The modal stack holds one gate for the question on screen ([`crate::modal::Stack`]);
//! the questions drawn inline before a session (trust, the project's MCP servers, the
//! session picker) hold their own ([`crate::inline::read_key`]).

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// How long a question must have been on screen, and typing paused, before a key
/// answers it (`REIN_TUI_ANSWER_PAUSE_MS`, 500 ms by default).
pub(crate) fn pause() -> Duration {
    let ms = rein_session::env::Env::lookup("REIN_TUI_ANSWER_PAUSE_MS").and_then(|v| v.parse().ok());
    Duration::from_millis(ms.unwrap_or(500))
}

/// One question's gate.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    opened: Instant,
    pause: Duration,
    /// When the last key came (before the question too: typing that began earlier and
    /// goes on is still typing).
    last_key: Option<Instant>,
    engaged: bool,
    ignored: usize,
}

impl Gate {
    /// A gate for a question shown at `now`; `last_key` is when the last key came
    /// before it.
    pub(crate) fn new(now: Instant, pause: Duration, last_key: Option<Instant>) -> Self {
        Gate { opened: now, pause, last_key, engaged: false, ignored: 0 }
    }

    /// Whether `key`, arriving at `now`, may act on the question. A key that may not
    /// is counted (see [`Gate::ignored`]).
    pub(crate) fn admits(&mut self, key: &KeyEvent, now: Instant) -> bool {
        let gap = self.last_key.replace(now).map(|before| now.saturating_duration_since(before));
        if self.engaged {
            return true;
        }
        let read = now.saturating_duration_since(self.opened) >= self.pause;
        let paused = gap.is_none_or(|g| g >= self.pause);
        // A first deliberate key, harmless or not, makes the question the person's.
        self.engaged = read && paused;
        if self.engaged || harmless(key) {
            return true;
        }
        self.ignored += 1;
        false
    }

    /// How many keys were held back.
    #[cfg(test)]
    pub(crate) fn ignored(&self) -> usize {
        self.ignored
    }

    /// The line that says so, when any were and the person has not answered yet;
    /// `draft`: what was typed went to the draft under the question.
    pub(crate) fn hint(&self, draft: bool) -> Option<String> {
        (self.ignored > 0 && !self.engaged).then(|| {
            let keys = if self.ignored == 1 { "1 key".to_string() } else { format!("{} keys", self.ignored) };
            let went = if draft { "went to your draft" } else { "answered nothing" };
            format!("{keys} typed as this appeared {went}: pause, then answer")
        })
    }
}

/// Keys that can approve nothing: moving, scrolling, refusing.
fn harmless(key: &KeyEvent) -> bool {
    let ctrl_c = key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
    ctrl_c
        || matches!(
            key.code,
            KeyCode::Esc
                | KeyCode::Up
                | KeyCode::Down
                | KeyCode::Left
                | KeyCode::Right
                | KeyCode::PageUp
                | KeyCode::PageDown
                | KeyCode::Home
                | KeyCode::End
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    const PAUSE: Duration = Duration::from_millis(500);

    #[test]
    fn keys_typed_as_the_question_appears_answer_nothing() {
        let t0 = Instant::now();
        let mut gate = Gate::new(t0, PAUSE, Some(t0));
        for (i, c) in "yes1".chars().enumerate() {
            assert!(!gate.admits(&key(KeyCode::Char(c)), t0 + Duration::from_millis(80 * i as u64)));
        }
        assert!(!gate.admits(&key(KeyCode::Enter), t0 + Duration::from_millis(400)));
        assert_eq!(gate.ignored(), 5);
        assert!(gate.hint(true).is_some_and(|h| h.starts_with("5 keys")));
    }

    #[test]
    fn typing_that_goes_on_past_the_pause_is_still_typing() {
        let t0 = Instant::now();
        let mut gate = Gate::new(t0, PAUSE, None);
        // A key every 100 ms for two seconds: never a pause, never an answer.
        for i in 1..20u64 {
            assert!(!gate.admits(&key(KeyCode::Enter), t0 + Duration::from_millis(100 * i)));
        }
        // Then the person stops, reads, and answers.
        assert!(gate.admits(&key(KeyCode::Char('1')), t0 + Duration::from_millis(2600)));
        assert!(gate.hint(true).is_none(), "the hint goes once the person answers");
        // From then on, keys at typing speed are theirs (a note).
        assert!(gate.admits(&key(KeyCode::Char('x')), t0 + Duration::from_millis(2650)));
    }

    #[test]
    fn moving_and_refusing_always_count() {
        let t0 = Instant::now();
        let mut gate = Gate::new(t0, PAUSE, Some(t0));
        for code in [KeyCode::Down, KeyCode::PageDown, KeyCode::Esc] {
            assert!(gate.admits(&key(code), t0));
        }
        assert!(gate.admits(&KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL), t0));
        assert!(!gate.admits(&key(KeyCode::Enter), t0), "moving as it appears does not engage the question");
        // Read, then moved and answered quickly: the move made the question the person's.
        let later = t0 + Duration::from_secs(2);
        assert!(gate.admits(&key(KeyCode::Down), later));
        assert!(gate.admits(&key(KeyCode::Enter), later + Duration::from_millis(100)));
    }
}
