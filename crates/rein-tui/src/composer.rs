//! The input box: multi-line text (Enter sends; `\`+Enter, Shift+Enter, Alt+Enter and
//! Ctrl+J add a newline); Up/Down move between its lines and reach the prompt history
//! only at its first/last line, the draft kept while browsing; readline keys (Ctrl+A/E/
//! K/U/W/Y, Alt+B/F/D/Backspace, Ctrl+←/→) and undo (Ctrl+_); pastes (a large paste shows
//! as `[Pasted text #N +L lines]`, sent whole).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Pastes longer than this (or of more lines) are shown as a marker.
const PASTE_CHARS: usize = 800;
const PASTE_LINES: usize = 2;

/// What a key did to the composer.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Edit {
    /// Handled; nothing else to do.
    Changed,
    /// Enter on a message: send this text.
    Submit(String),
    /// Not a composer key.
    Ignored,
}

#[derive(Debug, Default)]
pub(crate) struct Composer {
    /// The text as shown (paste markers included).
    text: String,
    /// Cursor, as a byte offset into `text`.
    cursor: usize,
    /// Pasted texts, by marker.
    pastes: Vec<(String, String)>,
    history: Vec<String>,
    /// Position while browsing history.
    browsing: Option<usize>,
    /// What was typed before browsing started, given back past the newest entry.
    draft: Option<String>,
    /// The last text Ctrl+K/U/W/Alt+D cut, for Ctrl+Y.
    killed: String,
    /// Earlier states for undo (text, cursor), the newest last.
    undo: Vec<(String, usize)>,
    /// The last edit typed a character of a word (typing is undone word by word).
    typing: bool,
}

impl Composer {
    /// Earlier prompts (oldest first), for Up/Down and Ctrl+R.
    pub(crate) fn set_history(&mut self, entries: Vec<String>) {
        self.history = entries;
    }

    pub(crate) fn history(&self) -> &[String] {
        &self.history
    }

    /// Replace the text (a recalled or found prompt).
    pub(crate) fn set_text(&mut self, text: &str) {
        self.clear();
        self.insert(text);
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// The cursor as a byte offset into [`Composer::text`].
    pub(crate) fn cursor_byte(&self) -> usize {
        self.cursor
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.pastes.clear();
        self.browsing = None;
        self.draft = None;
    }

    /// The cursor as (row, column in characters).
    pub(crate) fn cursor(&self) -> (usize, usize) {
        let before = &self.text[..self.cursor];
        let row = before.matches('\n').count();
        let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0);
        (row, col)
    }

    pub(crate) fn insert(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
        self.browsing = None;
    }

    /// A bracketed paste: small ones inline, large ones as a marker.
    pub(crate) fn paste(&mut self, pasted: &str) {
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

    pub(crate) fn key(&mut self, key: KeyEvent) -> Edit {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let newline = key.modifiers.intersects(KeyModifiers::SHIFT | KeyModifiers::ALT);
        let word_char = matches!(key.code, KeyCode::Char(c) if !ctrl && !alt && !c.is_whitespace());
        if self.edits(key) && !(word_char && self.typing) {
            self.remember();
        }
        self.typing = word_char;
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
                self.undo.clear();
                return Edit::Submit(message);
            }
            KeyCode::Char('_' | '7') if ctrl => self.undo(),
            KeyCode::Char('a') if ctrl => self.cursor = self.line_start(),
            KeyCode::Char('e') if ctrl => self.cursor = self.line_end(),
            KeyCode::Char('u') if ctrl => self.cut(self.line_start(), self.cursor),
            KeyCode::Char('k') if ctrl => self.cut(self.cursor, self.line_end()),
            KeyCode::Char('w') if ctrl => self.cut(self.word_start(char::is_whitespace), self.cursor),
            KeyCode::Char('y') if ctrl => {
                let killed = self.killed.clone();
                self.insert(&killed);
            }
            KeyCode::Backspace if alt || ctrl => self.cut(self.word_start(|c| !c.is_alphanumeric()), self.cursor),
            KeyCode::Char('d') if alt => self.cut(self.cursor, self.word_end()),
            KeyCode::Char('b') if alt => self.cursor = self.word_start(|c| !c.is_alphanumeric()),
            KeyCode::Char('f') if alt => self.cursor = self.word_end(),
            KeyCode::Left if ctrl || alt => self.cursor = self.word_start(|c| !c.is_alphanumeric()),
            KeyCode::Right if ctrl || alt => self.cursor = self.word_end(),
            KeyCode::Char(c) if !ctrl => self.insert(c.encode_utf8(&mut [0; 4])),
            // A marker (`[Image #1]`, `[Pasted text #2 +40 lines]`) goes whole.
            KeyCode::Backspace if let Some(start) = marker_before(&self.text[..self.cursor]) => {
                self.cut(start, self.cursor);
            }
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
            KeyCode::Up if self.cursor().0 > 0 => self.vertical(-1),
            KeyCode::Down if self.cursor().0 < self.text.matches('\n').count() => self.vertical(1),
            KeyCode::Up => self.recall(-1),
            KeyCode::Down => self.recall(1),
            _ => return Edit::Ignored,
        }
        Edit::Changed
    }

    /// Whether `key` changes the text (so undo keeps the state before it).
    fn edits(&self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('_' | '7' | 'a' | 'e') if ctrl => false,
            KeyCode::Char('b' | 'f') if key.modifiers.contains(KeyModifiers::ALT) => false,
            KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Delete => true,
            KeyCode::Enter => key.modifiers.intersects(KeyModifiers::SHIFT | KeyModifiers::ALT),
            _ => false,
        }
    }

    fn remember(&mut self) {
        if self.undo.last().is_some_and(|(t, _)| *t == self.text) {
            return;
        }
        self.undo.push((self.text.clone(), self.cursor));
        if self.undo.len() > 200 {
            self.undo.remove(0);
        }
    }

    fn undo(&mut self) {
        if let Some((text, cursor)) = self.undo.pop() {
            self.text = text;
            self.cursor = cursor.min(self.text.len());
        }
    }

    /// Remove `from..to`, keeping it for Ctrl+Y.
    fn cut(&mut self, from: usize, to: usize) {
        if from < to {
            self.killed = self.text[from..to].to_string();
            self.text.replace_range(from..to, "");
            self.cursor = from;
        }
    }

    /// Vim's `dw`: cut the word at the cursor and the blanks after it.
    pub(crate) fn cut_word_and_blanks(&mut self) {
        let end = self.next_word_start();
        self.remember();
        self.cut(self.cursor, end);
    }

    /// Vim's normal mode keeps the cursor on a character: never past the last one of
    /// its line (an empty line excepted).
    pub(crate) fn keep_on_a_character(&mut self) {
        let at_end = self.cursor == self.text.len() || self.text[self.cursor..].starts_with('\n');
        if self.cursor > 0 && at_end && !self.text[..self.cursor].ends_with('\n') {
            let before = self.text[..self.cursor].chars().next_back().map_or(0, char::len_utf8);
            self.cursor -= before;
        }
    }

    /// Vim's `w`: to the start of the next word.
    pub(crate) fn move_to_next_word(&mut self) {
        self.cursor = self.next_word_start();
    }

    /// Where vim's `w` goes: past the run the cursor is on (a word's letters, or its
    /// punctuation), then past the blanks after it. On a blank, only past the blanks.
    fn next_word_start(&self) -> usize {
        let after = &self.text[self.cursor..];
        let blank = |c: char| c == ' ' || c == '\t';
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let run = match after.chars().next() {
            Some(c) if blank(c) || c == '\n' => 0,
            Some(c) if word(c) => after.find(|x: char| !word(x)).unwrap_or(after.len()),
            Some(_) => after.find(|x: char| word(x) || blank(x) || x == '\n').unwrap_or(after.len()),
            None => 0,
        };
        let rest = &after[run..];
        self.cursor + run + (rest.len() - rest.trim_start_matches(blank).len())
    }

    /// Where the word before the cursor starts (`stop` tells a separator).
    fn word_start(&self, stop: impl Fn(char) -> bool) -> usize {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(&stop);
        trimmed.rfind(&stop).map(|i| i + trimmed[i..].chars().next().map_or(1, char::len_utf8)).unwrap_or(0)
    }

    /// Where the word after the cursor ends.
    fn word_end(&self) -> usize {
        let after = &self.text[self.cursor..];
        let skipped = after.len() - after.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
        let rest = &after[skipped..];
        let word = rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len());
        self.cursor + skipped + word
    }

    /// Move to the line above (-1) or below (+1), at the same column or the line's end.
    fn vertical(&mut self, step: isize) {
        let (row, col) = self.cursor();
        let target = (row as isize + step).max(0) as usize;
        let mut start = 0;
        for (i, line) in self.text.split('\n').enumerate() {
            if i == target {
                let offset = line.char_indices().nth(col).map(|(b, _)| b).unwrap_or(line.len());
                self.cursor = start + offset;
                return;
            }
            start += line.len() + 1;
        }
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map(|i| i + 1).unwrap_or(0)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..].find('\n').map(|i| self.cursor + i).unwrap_or(self.text.len())
    }

    /// Step through earlier prompts (-1 older, +1 newer); what was being typed comes
    /// back past the newest.
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
            if self.browsing.is_some() {
                self.text = self.draft.take().unwrap_or_default();
                self.cursor = self.text.len();
                self.browsing = None;
            }
            return;
        }
        if self.browsing.is_none() {
            self.draft = Some(self.text.clone());
        }
        self.text = self.history[at as usize].clone();
        self.cursor = self.text.len();
        self.browsing = Some(at as usize);
    }
}

/// Where the marker `before` ends with starts, if it ends with one.
fn marker_before(before: &str) -> Option<usize> {
    let open = before.strip_suffix(']')?.rfind('[')?;
    let inner = &before[open + 1..before.len() - 1];
    let number = |rest: &str| rest.chars().next().is_some_and(|c| c.is_ascii_digit());
    let marked = inner.strip_prefix("Image #").is_some_and(|r| r.chars().all(|c| c.is_ascii_digit()) && number(r))
        || inner.strip_prefix("Pasted text #").is_some_and(number);
    marked.then_some(open)
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

    /// Backspace takes a marker whole, never half of one (which would send `[Image #3`
    /// without its image).
    #[test]
    fn backspace_removes_a_marker_whole() {
        let mut c = Composer::default();
        typed(&mut c, "abc ");
        c.insert("[Image #3] ");
        c.key(key(KeyCode::Backspace));
        assert_eq!(c.text(), "abc [Image #3]");
        c.key(key(KeyCode::Backspace));
        assert_eq!(c.text(), "abc ");
        c.insert("[Pasted text #2 +40 lines]");
        c.key(key(KeyCode::Backspace));
        assert_eq!(c.text(), "abc ");
        typed(&mut c, "[note]");
        c.key(key(KeyCode::Backspace));
        assert_eq!(c.text(), "abc [note", "ordinary brackets go a character at a time");
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
    fn a_draft_survives_browsing_the_history() {
        let mut c = Composer::default();
        c.set_history(vec!["old prompt".into()]);
        typed(&mut c, "half typed");
        c.key(key(KeyCode::Up));
        assert_eq!(c.text(), "old prompt");
        c.key(key(KeyCode::Down));
        assert_eq!(c.text(), "half typed");
    }

    #[test]
    fn up_and_down_move_inside_a_multi_line_prompt_first() {
        let mut c = Composer::default();
        c.set_history(vec!["old".into()]);
        typed(&mut c, "first line");
        c.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
        typed(&mut c, "second");
        c.key(key(KeyCode::Up));
        assert_eq!((c.text(), c.cursor()), ("first line\nsecond", (0, 6)));
        c.key(key(KeyCode::Down));
        assert_eq!(c.cursor(), (1, 6));
        c.key(key(KeyCode::Up));
        c.key(key(KeyCode::Up));
        assert_eq!(c.text(), "old", "history only from the first line");
    }

    #[test]
    fn readline_keys_and_undo() {
        let ctrl = |ch| KeyEvent::new(KeyCode::Char(ch), KeyModifiers::CONTROL);
        let alt = |ch| KeyEvent::new(KeyCode::Char(ch), KeyModifiers::ALT);
        let mut c = Composer::default();
        typed(&mut c, "run the unit tests");
        c.key(ctrl('w'));
        assert_eq!(c.text(), "run the unit ");
        c.key(alt('b'));
        c.key(alt('b'));
        assert_eq!(c.cursor(), (0, 4));
        c.key(alt('d'));
        assert_eq!(c.text(), "run  unit ");
        c.key(ctrl('e'));
        c.key(ctrl('y'));
        assert_eq!(c.text(), "run  unit the");
        c.key(ctrl('_'));
        assert_eq!(c.text(), "run  unit ");
        c.key(ctrl('_'));
        c.key(ctrl('_'));
        assert_eq!(c.text(), "run the unit tests", "undo walks back edit by edit");
        c.key(KeyEvent::new(KeyCode::Left, KeyModifiers::CONTROL));
        assert_eq!(c.cursor(), (0, 13));
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
