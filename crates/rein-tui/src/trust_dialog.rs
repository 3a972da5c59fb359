//! The question before an interactive session in a folder nobody trusted yet (what
//! Claude Code asks there, in rein's words): the folder, what it configures that would
//! take effect, and two choices — "Trust this folder" and "Leave without starting",
//! where the pointer starts. Drawn inline below what is on the screen; nothing of the
//! folder's has run. Numbers, arrows, Enter and Esc answer; letters do not.

use std::io::Write;
use std::path::Path;

use crossterm::event::{KeyCode, KeyModifiers};
use crossterm::terminal;

/// Ask whether to trust `dir`; `configures` lists what it sets up. `true`: trusted.
pub fn ask_trust(dir: &Path, configures: &[String]) -> std::io::Result<bool> {
    let mut out = std::io::stdout();
    let mut text = vec![
        "rein has not worked in this folder before:".to_string(),
        String::new(),
        format!("  {}", dir.display()),
        String::new(),
        "Trust it only if you know where its files come from — your own work, your team's, a project you \
         know. A folder from elsewhere can carry settings and scripts that run as soon as rein starts; look \
         through it first when in doubt."
            .to_string(),
        String::new(),
        "Once trusted, rein reads, changes and runs files here as you allow.".to_string(),
    ];
    if !configures.is_empty() {
        text.push(String::new());
        text.push("Trusting it also turns on what the folder sets up for itself:".to_string());
        text.extend(configures.iter().map(|c| format!("  • {c}")));
    }
    text.push(String::new());
    let choices = ["Trust this folder and start", "Leave without starting"];
    let mut at = 1usize;
    terminal::enable_raw_mode()?;
    let mut frame = crate::inline::Inline::default();
    let result = (|| -> std::io::Result<bool> {
        let draw = |at: usize, frame: &mut crate::inline::Inline| {
            // Word-wrapped to the terminal's width, so that a redraw knows the rows it
            // starts at.
            let mut rows = crate::inline::wrap_rows(&text, crate::inline::width());
            for (i, c) in choices.iter().enumerate() {
                let pointer = if i == at { "❯" } else { " " };
                rows.push(format!("{pointer} {}. {c}", i + 1));
            }
            rows.push(String::new());
            rows.push("Enter to confirm · Esc to exit".into());
            frame.draw(&rows)
        };
        loop {
            draw(at, &mut frame)?;
            // A resize lays the question out again, at the new width.
            let Some(key) = crate::inline::read_key(&mut frame)? else { continue };
            let trusted = match key.code {
                KeyCode::Up => {
                    at = 0;
                    continue;
                }
                KeyCode::Down => {
                    at = 1;
                    continue;
                }
                KeyCode::Char('1') => true,
                KeyCode::Char('2') | KeyCode::Esc => false,
                KeyCode::Char('c') | KeyCode::Char('d') if key.modifiers.contains(KeyModifiers::CONTROL) => false,
                KeyCode::Enter => at == 0,
                _ => continue,
            };
            // What stays in the scrollback points at the answer given.
            draw(if trusted { 0 } else { 1 }, &mut frame)?;
            return Ok(trusted);
        }
    })();
    terminal::disable_raw_mode()?;
    write!(out, "\r\n")?;
    result
}
