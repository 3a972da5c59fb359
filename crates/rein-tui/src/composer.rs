//! The input box: multi-line text (Enter sends; `\`+Enter, Shift+Enter, Alt+Enter and
//! Ctrl+J add a newline), cursor movement, prompt history (Up/Down at the first/last
//! row), and pastes (a large paste shows as `[Pasted text #N +L lines]`, sent whole).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Pastes longer than this (or of more lines) are shown as a marker.
const PASTE_CHARS: usize = 800;
const PASTE_LINES: usize = 2;

/// What a key did to the composer.
#[derive(Debug, PartialEq, Eq)]
pub enum Edit {
    /// Handled; nothing else to do.
    Changed,
    /// Enter on a message: send this text.
    Submit(String),
    /// Not a composer key.
    Ignored,
}

#[derive(Debug, Default)]
pub struct Composer {
    /// The text as shown (paste markers included).
    text: String,
    /// Cursor, as a byte offset into `text`.
    cursor: usize,
    /// Pasted texts, by marker.
    pastes: Vec<(String, String)>,
    history: Vec<String>,
    /// Position while browsing history.
    browsing: Option<usize>,
}

impl Composer {
    /// Earlier prompts (oldest first), for Up/Down and Ctrl+R.
    pub fn set_history(&mut self, entries: Vec<String>) {
        self.history = entries;
    }

    pub fn history(&self) -> &[String] {
        &self.history
    }

    /// Replace the text (a recalled or found prompt).
    pub fn set_text(&mut self, text: &str) {
        self.clear();
        self.insert(text);
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.pastes.clear();
        self.browsing = None;
    }

    /// The cursor as (row, column in characters).
    pub fn cursor(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let row = before.matches('\n').count();
        let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0);
        (row, col)
    }

    pub fn insert(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
        self.browsing = None;
    }

    /// A bracketed paste: small ones inline, large ones as a marker.
    pub fn paste(&mut self, pasted: &str) {
        let pasted = pasted.replace("\r\n", "\n").replace('\r', "\n");
        let lines = pasted.lines().count();
        if pasted.chars().count() > PASTE_CHARS || lines > PASTE_LINES {
            let marker = format!("[Pasted text #{} +{lines} lines]", self.pastes.len() + 1);
            self.insert(&marker);
            self.pastes.push((marker, pasted));
        } else {
            self.insert(&pasted);
        }
    }

    /// The message to send: markers replaced by what was pasted.
    fn message(&self) -> String {
        let mut out = self.text.clone();
        for (marker, pasted) in &self.pastes {
            out = out.replace(marker, pasted);
        }
        out
    }

    pub fn key(&mut self, key: KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let newline = key.modifiers.intersects(KeyModifiers::SHIFT | KeyModifiers::ALT);
        match key.code {
            KeyCode::Enter if newline => self.insert("\n"),
            KeyCode::Char('j') if ctrl => self.insert("\n"),
            KeyCode::Enter if self.text[..self.cursor].ends_with('\\') => {
                self.cursor -= 1;
                self.text.remove(self.cursor);
                self.insert("\n");
            }
            KeyCode::Enter => {
                let message = self.message();
                if message.trim().is_empty() {
                    return Edit::Changed;
                }
                if self.history.last() != Some(&self.text) {
                    self.history.push(self.text.clone());
                }
                self.clear();
                return Edit::Submit(message);
            }
            KeyCode::Char('a') if ctrl => self.cursor = self.line_start(),
            KeyCode::Char('e') if ctrl => self.cursor = self.line_end(),
            KeyCode::Char('u') if ctrl => {
                let start = self.line_start();
                self.text.replace_range(start..self.cursor, "");
                self.cursor = start;
            }
            KeyCode::Char('k') if ctrl => {
                let end = self.line_end();
                self.text.replace_range(self.cursor..end, "");
            }
            KeyCode::Char(c) if !ctrl => self.insert(c.encode_utf8(&mut [0; 4])),
            KeyCode::Backspace => {
                if let Some(prev) = self.text[..self.cursor].chars().next_back() {
                    self.cursor -= prev.len_utf8();
                    self.text.remove(self.cursor);
                }
            }
            KeyCode::Delete => {
                if self.cursor < self.text.len() {
                    self.text.remove(self.cursor);
                }
            }
            KeyCode::Left => {
                if let Some(prev) = self.text[..self.cursor].chars().next_back() {
                    self.cursor -= prev.len_utf8();
                }
            }
            KeyCode::Right => {
                if let Some(next) = self.text[self.cursor..].chars().next() {
                    self.cursor += next.len_utf8();
                }
            }
            KeyCode::Home => self.cursor = self.line_start(),
            KeyCode::End => self.cursor = self.line_end(),
            KeyCode::Up if self.cursor().0 == 0 => self.recall(-1),
            KeyCode::Down if self.cursor().0 == self.text.matches('\n').count() => self.recall(1),
            _ => return Edit::Ignored,
        }
        Edit::Changed
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map(|i| i + 1).unwrap_or(0)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..].find('\n').map(|i| self.cursor + i).unwrap_or(self.text.len())
    }

    /// Step through earlier prompts (-1 older, +1 newer).
    fn recall(&mut self, step: isize) {
        if self.history.is_empty() {
            return;
        }
        let last = self.history.len() as isize;
        let at = self.browsing.map(|b| b as isize).unwrap_or(last) + step;
        if at < 0 {
            return;
        }
        if at >= last {
            self.text.clear();
            self.cursor = 0;
            self.browsing = None;
            return;
        }
        self.text = self.history[at as usize].clone();
        self.cursor = self.text.len();
        self.browsing = Some(at as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(c: &mut Composer, s: &str) {
        for ch in s.chars() {
            c.key(key(KeyCode::Char(ch)));
        }
    }

    #[test]
    fn enter_sends_and_backslash_enter_adds_a_line() {
        let mut c = Composer::default();
        typed(&mut c, "one\\");
        assert_eq!(c.key(key(KeyCode::Enter)), Edit::Changed);
        typed(&mut c, "two");
        assert_eq!(c.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT)), Edit::Changed);
        typed(&mut c, "three");
        assert_eq!(c.key(key(KeyCode::Enter)), Edit::Submit("one\ntwo\nthree".into()));
        assert!(c.is_empty());
        c.key(key(KeyCode::Up));
        assert_eq!(c.text(), "one\ntwo\nthree");
    }

    #[test]
    fn large_pastes_become_a_marker_and_are_sent_whole() {
        let mut c = Composer::default();
        let big = "line\n".repeat(10);
        c.paste(&big);
        assert_eq!(c.text(), "[Pasted text #1 +10 lines]");
        assert_eq!(c.key(key(KeyCode::Enter)), Edit::Submit(big));
    }
}
