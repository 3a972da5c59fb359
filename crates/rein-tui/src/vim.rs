//! Vim's two modes in the input box (`/vim`, or the `editorMode` setting `vim`): insert
//! mode types as usual; Esc goes to normal mode, where keys move and edit — h l 0 ^ $
//! w b e, x X D C, dd cc dw cw db d$ d0, i a I A o O, u (undo), p (paste what was cut),
//! j k (lines, then history). Normal-mode commands become the input box's own editing
//! keys, so both modes edit the same way.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Insert,
    Normal,
}

/// What a key does in vim mode.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Handle the key as usual (typing in insert mode, Enter, Ctrl keys, arrows).
    Pass(KeyEvent),
    /// These editing keys, given to the input box in order.
    Edit(Vec<KeyEvent>),
    /// `dw`: the word at the cursor and the blanks after it go.
    CutWord,
    /// `w`: to the start of the next word.
    NextWord,
    /// Nothing (an unknown normal-mode key, or the first key of `dd`).
    Nothing,
}

#[derive(Debug)]
pub(crate) struct Vim {
    pub mode: Mode,
    /// `d` or `c` waiting for its motion.
    operator: Option<char>,
}

impl Default for Vim {
    fn default() -> Self {
        Vim { mode: Mode::Insert, operator: None }
    }
}

fn plain(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}
fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}
fn alt(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::ALT)
}

impl Vim {
    pub(crate) fn key(&mut self, key: KeyEvent) -> Step {
        let modified = key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match (self.mode, key.code) {
            (Mode::Insert, KeyCode::Esc) if !modified => {
                self.mode = Mode::Normal;
                Step::Edit(vec![plain(KeyCode::Left)])
            }
            (Mode::Insert, _) => Step::Pass(key),
            (Mode::Normal, KeyCode::Char(c)) if !modified => self.normal(c),
            (Mode::Normal, KeyCode::Backspace) => Step::Edit(vec![plain(KeyCode::Left)]),
            (Mode::Normal, _) => {
                self.operator = None;
                Step::Pass(key)
            }
        }
    }

    fn insert(&mut self, before: Vec<KeyEvent>) -> Step {
        self.mode = Mode::Insert;
        Step::Edit(before)
    }

    fn normal(&mut self, c: char) -> Step {
        if let Some(op) = self.operator.take() {
            let cut = match c {
                _ if c == op => vec![ctrl('a'), ctrl('k')],
                // `cw` changes to the end of the word, as vim does (`ce`).
                'w' if op == 'd' => return Step::CutWord,
                'w' | 'e' => vec![alt(KeyCode::Char('d'))],
                'b' => vec![alt(KeyCode::Backspace)],
                '$' => vec![ctrl('k')],
                '0' | '^' => vec![ctrl('u')],
                _ => return Step::Nothing,
            };
            return if op == 'c' { self.insert(cut) } else { Step::Edit(cut) };
        }
        match c {
            'h' => Step::Edit(vec![plain(KeyCode::Left)]),
            'l' => Step::Edit(vec![plain(KeyCode::Right)]),
            '0' | '^' => Step::Edit(vec![ctrl('a')]),
            '$' => Step::Edit(vec![ctrl('e')]),
            'w' => Step::NextWord,
            // To the last letter of this word, or of the next one from a word's end.
            'e' => Step::Edit(vec![plain(KeyCode::Right), alt(KeyCode::Char('f')), plain(KeyCode::Left)]),
            'b' => Step::Edit(vec![alt(KeyCode::Char('b'))]),
            'x' => Step::Edit(vec![plain(KeyCode::Delete)]),
            'X' => Step::Edit(vec![plain(KeyCode::Backspace)]),
            'D' => Step::Edit(vec![ctrl('k')]),
            'C' => self.insert(vec![ctrl('k')]),
            'u' => Step::Edit(vec![ctrl('_')]),
            'p' => Step::Edit(vec![ctrl('y')]),
            'j' => Step::Pass(plain(KeyCode::Down)),
            'k' => Step::Pass(plain(KeyCode::Up)),
            'd' | 'c' => {
                self.operator = Some(c);
                Step::Nothing
            }
            'i' => self.insert(Vec::new()),
            'a' => self.insert(vec![plain(KeyCode::Right)]),
            'I' => self.insert(vec![ctrl('a')]),
            'A' => self.insert(vec![ctrl('e')]),
            'o' => self.insert(vec![ctrl('e'), ctrl('j')]),
            'O' => self.insert(vec![ctrl('a'), ctrl('j'), plain(KeyCode::Up)]),
            _ => Step::Nothing,
        }
    }
}

/// Do what `step` says to `composer`; the key to handle as usual, if any. In normal
/// mode the cursor then stays on a character, as vim's does.
pub(crate) fn apply(step: Step, mode: Mode, composer: &mut crate::composer::Composer) -> Option<KeyEvent> {
    match step {
        Step::Pass(key) => return Some(key),
        Step::Edit(keys) => {
            for k in keys {
                let _ = composer.key(k);
            }
        }
        Step::CutWord => composer.cut_word_and_blanks(),
        Step::NextWord => composer.move_to_next_word(),
        Step::Nothing => {}
    }
    if mode == Mode::Normal {
        composer.keep_on_a_character();
    }
    None
}

#[cfg(test)]
#[path = "vim_model_tests.rs"]
mod model_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::composer::{Composer, Edit};

    /// Type `keys` (a string; `⎋` is Esc, `⏎` Enter) into a composer in vim mode.
    fn typed(keys: &str) -> (String, Mode, Option<String>) {
        let mut c = Composer::default();
        let mut vim = Vim::default();
        let mut sent = None;
        for ch in keys.chars() {
            let key = match ch {
                '⎋' => plain(KeyCode::Esc),
                '⏎' => plain(KeyCode::Enter),
                c => plain(KeyCode::Char(c)),
            };
            let step = vim.key(key);
            if let Some(k) = apply(step, vim.mode, &mut c)
                && let Edit::Submit(s) = c.key(k)
            {
                sent = Some(s);
            }
        }
        (c.text().to_string(), vim.mode, sent)
    }

    #[test]
    fn normal_mode_moves_and_edits() {
        assert_eq!(typed("hello world⎋"), ("hello world".into(), Mode::Normal, None));
        assert_eq!(typed("hello world⎋0dw").0, "world");
        // `w` lands on the next word, and `dw` there keeps the blank before it.
        assert_eq!(typed("one two three⎋0wdw").0, "one three");
        assert_eq!(typed("one two three⎋0wwdw").0, "one two ");
        assert_eq!(typed("a, b⎋0wdw").0, "ab");
        assert_eq!(typed("hello world⎋bD").0, "hello ");
        assert_eq!(typed("hello world⎋0cwbye⎋").0, "bye world");
        assert_eq!(typed("hello world⎋ddinew").0, "new");
        assert_eq!(typed("hello⎋0xx").0, "llo");
        assert_eq!(typed("hello⎋Athere").0, "hellothere");
        assert_eq!(typed("hello⎋Isay ").0, "say hello");
        assert_eq!(typed("one⎋otwo").0, "one\ntwo");
        assert_eq!(typed("one⎋ddu").0, "one", "u undoes");
        assert_eq!(typed("abc⎋qzZ").0, "abc", "unknown keys type nothing");
        assert_eq!(typed("send me⎋⏎").2.as_deref(), Some("send me"), "Enter sends from normal mode");
    }
}
