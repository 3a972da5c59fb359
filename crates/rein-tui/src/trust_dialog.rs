//! The question before an interactive session in a folder nobody trusted yet (Claude
//! Code's trust dialog): the folder, what it configures that would take effect, and two
//! choices — "Yes, I trust this folder" and "No, exit", which is where the pointer
//! starts. Drawn inline below what is on the screen; nothing of the folder's has run.

use std::io::Write;
use std::path::Path;

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, terminal};

/// Ask whether to trust `dir`; `configures` lists what it sets up. `true`: trusted.
pub fn ask_trust(dir: &Path, configures: &[String]) -> std::io::Result<bool> {
    let mut out = std::io::stdout();
    let mut text = vec![
        "Accessing workspace:".to_string(),
        String::new(),
        format!("  {}", dir.display()),
        String::new(),
        "Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known \
         open source project, or work from your team.) If not, take a moment to review what's in this folder first."
            .to_string(),
        String::new(),
        "rein will be able to read, edit, and execute files here.".to_string(),
    ];
    if !configures.is_empty() {
        text.push(String::new());
        text.push("Once trusted, this folder's own configuration takes effect:".to_string());
        text.extend(configures.iter().map(|c| format!("  • {c}")));
    }
    text.push(String::new());
    let choices = ["Yes, I trust this folder", "No, exit"];
    let mut at = 1usize;
    terminal::enable_raw_mode()?;
    // Word-wrapped to the terminal's width, so that a redraw knows the rows it starts at.
    let width = terminal::size().map_or(80, |(w, _)| w.max(1) as usize);
    let text: Vec<String> = text
        .iter()
        .flat_map(|l| crate::wrap::wrap(&ratatui::text::Line::from(l.as_str()), width))
        .map(|row| row.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    let lines = text.len() + choices.len() + 1;
    let result = (|| -> std::io::Result<bool> {
        let mut first = true;
        loop {
            if !first {
                execute!(out, cursor::MoveUp(lines as u16), terminal::Clear(terminal::ClearType::FromCursorDown))?;
            }
            first = false;
            for l in &text {
                write!(out, "{l}\r\n")?;
            }
            for (i, c) in choices.iter().enumerate() {
                let pointer = if i == at { "❯" } else { " " };
                write!(out, "{pointer} {}. {c}\r\n", i + 1)?;
            }
            write!(out, "\r\nEnter to confirm · Esc to exit")?;
            out.flush()?;
            let Event::Key(key) = event::read()? else { continue };
            if key.kind != KeyEventKind::Press {
                continue;
            }
            match key.code {
                KeyCode::Up => at = 0,
                KeyCode::Down => at = 1,
                KeyCode::Char('1') | KeyCode::Char('y') => return Ok(true),
                KeyCode::Char('2') | KeyCode::Char('n') | KeyCode::Esc => return Ok(false),
                KeyCode::Char('c') | KeyCode::Char('d') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                    return Ok(false);
                }
                KeyCode::Enter => return Ok(at == 0),
                _ => {}
            }
        }
    })();
    terminal::disable_raw_mode()?;
    write!(out, "\r\n")?;
    result
}
