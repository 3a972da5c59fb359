//! Vim's normal mode against a small reference model of what vim does on one line of
//! words and blanks: random lines and random command sequences, the input box's text
//! and cursor compared with the model's after every command.

use proptest::prelude::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Mode, Vim, apply};
use crate::composer::Composer;

/// One line as vim holds it in normal mode: its characters and the cursor on one of
/// them (0 on an empty line).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    text: Vec<char>,
    at: usize,
}

fn word(c: char) -> bool {
    c.is_alphanumeric()
}

impl Line {
    fn last(&self) -> usize {
        self.text.len().saturating_sub(1)
    }

    fn clamp(&mut self) {
        self.at = self.at.min(self.last());
    }

    /// Where `w` goes: past the word the cursor is on, then past the blanks (the end of
    /// the line when no word follows).
    fn next_word(&self) -> usize {
        let mut i = self.at;
        if self.text.get(i).is_some_and(|c| word(*c)) {
            while self.text.get(i).is_some_and(|c| word(*c)) {
                i += 1;
            }
        }
        while self.text.get(i) == Some(&' ') {
            i += 1;
        }
        i
    }

    /// Where `b` goes: back over blanks, then to the start of that word.
    fn previous_word(&self) -> usize {
        let mut i = self.at;
        while i > 0 && self.text[i - 1] == ' ' {
            i -= 1;
        }
        while i > 0 && word(self.text[i - 1]) {
            i -= 1;
        }
        i
    }

    /// Where `e` goes: forward one, over blanks, to the last letter of that word.
    fn word_end(&self) -> usize {
        let mut i = self.at + 1;
        while self.text.get(i) == Some(&' ') {
            i += 1;
        }
        while self.text.get(i + 1).is_some_and(|c| word(*c)) {
            i += 1;
        }
        i.min(self.last())
    }

    fn cut(&mut self, from: usize, to: usize) {
        let to = to.min(self.text.len());
        if from < to {
            self.text.drain(from..to);
        }
        self.at = from;
        self.clamp();
    }

    fn command(&mut self, command: &str) {
        match command {
            "h" => self.at = self.at.saturating_sub(1),
            "l" => self.at = (self.at + 1).min(self.last()),
            "0" => self.at = 0,
            "$" => self.at = self.last(),
            "w" => {
                self.at = self.next_word();
                self.clamp();
            }
            "b" => self.at = self.previous_word(),
            "e" => self.at = self.word_end(),
            "x" => self.cut(self.at, self.at + 1),
            "X" if self.at > 0 => self.cut(self.at - 1, self.at),
            "X" => {}
            "D" | "d$" => self.cut(self.at, self.text.len()),
            "dw" => self.cut(self.at, self.next_word()),
            "db" => self.cut(self.previous_word(), self.at),
            "d0" => self.cut(0, self.at),
            "dd" => self.cut(0, self.text.len()),
            other => unreachable!("{other}"),
        }
    }
}

const COMMANDS: [&str; 16] = ["h", "l", "0", "$", "w", "b", "e", "x", "X", "D", "d$", "dw", "db", "d0", "dd", "e"];

/// Type `text`, Esc, then `commands`: the text and the cursor (in characters).
fn typed(text: &str, commands: &[&str]) -> (String, usize) {
    let mut composer = Composer::default();
    let mut vim = Vim::default();
    let mut keys: Vec<KeyEvent> = text.chars().map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)).collect();
    keys.push(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    keys.extend(commands.iter().flat_map(|c| c.chars()).map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)));
    for key in keys {
        let step = vim.key(key);
        if let Some(k) = apply(step, vim.mode, &mut composer) {
            let _ = composer.key(k);
        }
    }
    assert_eq!(vim.mode, Mode::Normal);
    let at = composer.text()[..composer.cursor_byte()].chars().count();
    (composer.text().to_string(), at)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn normal_mode_does_what_vim_does(
        text in "[ab ]{0,12}",
        commands in proptest::collection::vec(0..COMMANDS.len(), 0..8),
    ) {
        let commands: Vec<&str> = commands.into_iter().map(|i| COMMANDS[i]).collect();
        let mut model = Line { text: text.chars().collect(), at: text.chars().count() };
        model.at = model.at.saturating_sub(1);
        for (n, command) in commands.iter().enumerate() {
            model.command(command);
            let (got, at) = typed(&text, &commands[..=n]);
            let want: String = model.text.iter().collect();
            prop_assert_eq!((&got, at), (&want, model.at), "{:?} then {:?}", text, &commands[..=n]);
        }
    }
}
