//! The rule every question rein asks keeps: it is answered only on purpose.
//!
//! Keys come in four kinds. **Typing** (letters, digits, space, Backspace, a paste)
//! is never an answer while nobody has turned to the question: it goes to the draft
//! under it, and it turns the person away from the question again. **Moving** keys
//! (arrows, PgUp/PgDn, Home/End) turn the person to the question — but only after the
//! question has been on screen long enough to be read and typing has paused; before
//! that they do nothing at all (an arrow meant for the draft must not move the
//! choice). **Answering** keys (Enter, a number, Space, Tab, Shift+Tab) answer once
//! the person has turned to the question; when nothing was typed at the question, a
//! first answering key after the pause turns them to it as well. **Refusing** keys
//! (Esc, Ctrl+C) always count: a refusal approves nothing.
//!
//! So typing that goes on while a question appears — `y`, a `1`, an Enter meant to
//! send a prompt, even after a pause in the middle — answers nothing; a person who
//! typed at the question turns to it with an arrow first, and the question says so.
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

/// What a key is to a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Typing,
    Moving,
    Answering,
    Refusing,
}

fn kind(key: &KeyEvent) -> Kind {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    match key.code {
        KeyCode::Esc => Kind::Refusing,
        KeyCode::Char('c') if ctrl => Kind::Refusing,
        KeyCode::Up
        | KeyCode::Down
        | KeyCode::Left
        | KeyCode::Right
        | KeyCode::PageUp
        | KeyCode::PageDown
        | KeyCode::Home
        | KeyCode::End => Kind::Moving,
        KeyCode::Enter | KeyCode::Tab | KeyCode::BackTab => Kind::Answering,
        KeyCode::Char(c) if !ctrl && (c.is_ascii_digit() || c == ' ') => Kind::Answering,
        _ => Kind::Typing,
    }
}

/// One question's gate.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    opened: Instant,
    pause: Duration,
    /// When the person last typed (before the question too: typing that began earlier
    /// and goes on is still typing).
    typed: Option<Instant>,
    /// The person turned to the question (and has not typed since).
    engaged: bool,
    /// Keys held back, and whether any was typing at the question.
    ignored: usize,
    typed_here: bool,
}

impl Gate {
    /// A gate for a question shown at `now`; `typed` is when the person last typed
    /// before it.
    pub(crate) fn new(now: Instant, pause: Duration, typed: Option<Instant>) -> Self {
        Gate { opened: now, pause, typed, engaged: false, ignored: 0, typed_here: false }
    }

    /// Whether `key`, arriving at `now`, may act on the question. A key that may not
    /// is counted (see [`Gate::hint`]); typing is also noted as typing.
    pub(crate) fn admits(&mut self, key: &KeyEvent, now: Instant) -> bool {
        let k = kind(key);
        if k == Kind::Refusing {
            return true;
        }
        if k == Kind::Typing {
            self.typing(now);
            return false;
        }
        let read = now.saturating_duration_since(self.opened) >= self.pause;
        let paused = self.typed.is_none_or(|t| now.saturating_duration_since(t) >= self.pause);
        let turns = match k {
            Kind::Moving => read && paused,
            // Nothing typed at the question: a first answer after the pause is meant.
            _ => self.engaged || (read && paused && !self.typed_here),
        };
        if turns {
            self.engaged = true;
            return true;
        }
        // An answering key typed on is typing (a digit, a space, Enter sending a prompt).
        if k == Kind::Answering {
            self.typing(now);
        } else {
            self.ignored += 1;
        }
        false
    }

    /// Text arrived that is not an answer (a key typed on, a paste).
    pub(crate) fn typing(&mut self, now: Instant) {
        self.typed = Some(now);
        self.engaged = false;
        self.typed_here = true;
        self.ignored += 1;
    }

    /// How many keys were held back.
    #[cfg(test)]
    pub(crate) fn ignored(&self) -> usize {
        self.ignored
    }

    /// The line that says so, when any were and the person has not turned to the
    /// question since; `draft`: what was typed went to the draft under the question.
    pub(crate) fn hint(&self, draft: bool) -> Option<String> {
        (self.ignored > 0 && !self.engaged).then(|| {
            let keys = if self.ignored == 1 { "1 key".to_string() } else { format!("{} keys", self.ignored) };
            let went = if draft { "went to your draft" } else { "answered nothing" };
            let how = if self.typed_here { "↑↓ first, then answer" } else { "pause, then answer" };
            format!("{keys} typed as this appeared {went}: {how}")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    const PAUSE: Duration = Duration::from_millis(500);

    fn ms(t0: Instant, n: u64) -> Instant {
        t0 + Duration::from_millis(n)
    }

    #[test]
    fn keys_typed_as_the_question_appears_answer_nothing() {
        let t0 = Instant::now();
        let mut gate = Gate::new(t0, PAUSE, Some(t0));
        for (i, c) in "yes1".chars().enumerate() {
            assert!(!gate.admits(&key(KeyCode::Char(c)), ms(t0, 80 * i as u64)));
        }
        assert!(!gate.admits(&key(KeyCode::Enter), ms(t0, 400)));
        assert_eq!(gate.ignored(), 5);
        assert!(gate.hint(true).is_some_and(|h| h.starts_with("5 keys")));
    }

    /// The attacks a reader of this code found: a pause in the middle of typing, then
    /// a digit or Enter; arrows typed on; a paste just before Enter.
    #[test]
    fn a_pause_in_the_middle_of_typing_does_not_make_the_next_key_an_answer() {
        let t0 = Instant::now();
        let mut gate = Gate::new(t0, PAUSE, None);
        for i in 1..10 {
            assert!(!gate.admits(&key(KeyCode::Char('a')), ms(t0, 80 * i)));
        }
        // A pause, then "step 1" goes on — and later Enter, to send the prompt.
        assert!(!gate.admits(&key(KeyCode::Char('1')), ms(t0, 2000)));
        assert!(!gate.admits(&key(KeyCode::Enter), ms(t0, 4000)));
        // An arrow typed on while typing moves nothing.
        assert!(!gate.admits(&key(KeyCode::Char('x')), ms(t0, 5000)));
        assert!(!gate.admits(&key(KeyCode::Down), ms(t0, 5080)));
        // A paste is typing too.
        gate.typing(ms(t0, 7000));
        assert!(!gate.admits(&key(KeyCode::Enter), ms(t0, 7050)));
        // The person turns to the question (an arrow after a pause), then answers.
        assert!(gate.admits(&key(KeyCode::Down), ms(t0, 8000)));
        assert!(gate.admits(&key(KeyCode::Enter), ms(t0, 8100)));
        assert!(gate.hint(true).is_none(), "the hint goes once the person answers");
    }

    #[test]
    fn nothing_typed_a_first_answer_after_the_pause_is_meant() {
        let t0 = Instant::now();
        let mut gate = Gate::new(t0, PAUSE, None);
        assert!(!gate.admits(&key(KeyCode::Char('1')), ms(t0, 100)), "too soon to have read it");
        let mut gate = Gate::new(t0, PAUSE, None);
        assert!(gate.admits(&key(KeyCode::Char('1')), ms(t0, 900)));
    }

    #[test]
    fn refusing_always_counts_and_moving_waits_for_the_pause() {
        let t0 = Instant::now();
        let mut gate = Gate::new(t0, PAUSE, Some(t0));
        assert!(gate.admits(&key(KeyCode::Esc), t0));
        assert!(gate.admits(&KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL), t0));
        assert!(!gate.admits(&key(KeyCode::Down), t0), "moving as it appears moves nothing");
        assert!(!gate.admits(&key(KeyCode::Enter), ms(t0, 100)));
        // Read, then moved and answered quickly: the move turned the person to it.
        assert!(gate.admits(&key(KeyCode::Down), ms(t0, 2000)));
        assert!(gate.admits(&key(KeyCode::Enter), ms(t0, 2100)));
    }
}
