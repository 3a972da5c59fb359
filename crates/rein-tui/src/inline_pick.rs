//! A list to pick one item from, drawn inline below what is on the screen before the
//! interactive session starts (`rein -r` without an id): ↑/↓ move the pointer, a number
//! jumps to an item, Enter takes it, Esc or Ctrl+C leaves without one. Redrawn in place,
//! row by row (a terminal that keeps cleared screens in its scrollback keeps nothing).

use std::io::Write;

use crossterm::event::{KeyCode, KeyModifiers};
use crossterm::terminal;

/// Ask which of `items` (one line each) to take under `title`; its index, or `None`.
pub fn pick(title: &str, items: &[String]) -> std::io::Result<Option<usize>> {
    if items.is_empty() {
        return Ok(None);
    }
    let mut out = std::io::stdout();
    let mut frame = crate::inline::Inline::default();
    let mut at = 0usize;
    terminal::enable_raw_mode()?;
    let result = (|| -> std::io::Result<Option<usize>> {
        loop {
            let width = crate::inline::width();
            let fit = |s: &str| crate::summary::one_line(s, width.saturating_sub(6));
            let mut rows = vec![fit(title)];
            for (i, item) in items.iter().enumerate() {
                let pointer = if i == at { "❯" } else { " " };
                rows.push(format!("{pointer} {:>2}. {}", i + 1, fit(item)));
            }
            rows.push(String::new());
            rows.push("↑/↓ or a number to choose · Enter to resume · Esc to leave".into());
            frame.draw(&rows)?;
            // A resize lays the question out again, at the new width.
            let Some(key) = crate::inline::read_key(&mut frame)? else { continue };
            match key.code {
                KeyCode::Up => at = at.saturating_sub(1),
                KeyCode::Down => at = (at + 1).min(items.len() - 1),
                KeyCode::Char(d @ '1'..='9') => {
                    let n = d as usize - '1' as usize;
                    if n < items.len() {
                        at = n;
                    }
                }
                KeyCode::Enter => return Ok(Some(at)),
                KeyCode::Esc => return Ok(None),
                KeyCode::Char('c') | KeyCode::Char('d') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                    return Ok(None);
                }
                _ => {}
            }
        }
    })();
    terminal::disable_raw_mode()?;
    write!(out, "\r\n")?;
    result
}
