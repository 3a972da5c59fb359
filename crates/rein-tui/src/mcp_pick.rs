//! The question before an interactive session about the project's new MCP servers: a
//! multi-select in the terminal (Space toggles, Enter confirms, Esc rejects all), drawn
//! inline below what is on the screen.

use std::io::Write;

use crossterm::event::KeyCode;
use crossterm::terminal;

/// The multi-select: which of `names` to enable (all preselected).
pub fn pick_mcp_servers(names: &[String]) -> std::io::Result<Vec<bool>> {
    let mut chosen = vec![true; names.len()];
    let mut at = 0usize;
    let mut out = std::io::stdout();
    let mut frame = crate::inline::Inline::default();
    terminal::enable_raw_mode()?;
    let result = (|| -> std::io::Result<Vec<bool>> {
        loop {
            let plural = if names.len() == 1 { "" } else { "s" };
            let intro = [
                format!(
                    "This project's .mcp.json names {} MCP server{plural} rein has not started here yet.",
                    names.len()
                ),
                "Each one is a program of the project's that runs on this machine; rein asks before any of its \
                 tools is used."
                    .to_string(),
                "Tick the ones to start.".to_string(),
                String::new(),
            ];
            let mut rows = crate::inline::wrap_rows(&intro, crate::inline::width());
            for (i, (n, c)) in names.iter().zip(&chosen).enumerate() {
                let pointer = if i == at { "❯" } else { " " };
                let mark = if *c { "✔" } else { " " };
                rows.push(format!("{pointer} [{mark}] {n}"));
            }
            let pointer = if at == names.len() { "❯" } else { " " };
            rows.push(format!("{pointer}    Enable selected"));
            rows.push("Space to select · Enter to confirm · Esc to reject all".to_string());
            frame.draw(&rows)?;
            // A resize lays the question out again, at the new width.
            let Some(key) = crate::inline::read_key(&mut frame)? else { continue };
            match key.code {
                KeyCode::Up => at = at.saturating_sub(1),
                KeyCode::Down => at = (at + 1).min(names.len()),
                KeyCode::Char(' ') if at < names.len() => chosen[at] = !chosen[at],
                KeyCode::Enter => return Ok(chosen),
                KeyCode::Esc => return Ok(vec![false; names.len()]),
                _ => {}
            }
        }
    })();
    terminal::disable_raw_mode()?;
    write!(out, "\r\n")?;
    result
}
