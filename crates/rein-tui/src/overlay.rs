//! The Ctrl+O view: the whole session log, tool outputs in full, on the alternate
//! screen (the scrollback is left as it is), wrapped to the window. Up/Down, PgUp/PgDn, Home/End scroll; q,
//! Esc or Ctrl+O close it.

use std::collections::VecDeque;
use std::io;

use futures::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{Event, EventStream, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::{Terminal, TerminalOptions, Viewport};

/// Show `log` until the person closes the view.
pub(crate) async fn show(log: &VecDeque<Line<'static>>, events: &mut EventStream) -> io::Result<()> {
    execute!(io::stdout(), EnterAlternateScreen)?;
    let result = browse(log, events).await;
    execute!(io::stdout(), LeaveAlternateScreen)?;
    result
}

async fn browse(log: &VecDeque<Line<'static>>, events: &mut EventStream) -> io::Result<()> {
    let mut term = Terminal::with_options(
        CrosstermBackend::new(io::stdout()),
        TerminalOptions { viewport: Viewport::Fullscreen },
    )?;
    // How many lines up from the end the view is scrolled.
    let mut back: usize = 0;
    // The log wrapped to the window (long lines kept whole, tabs expanded).
    let mut wrapped: (u16, VecDeque<Line<'static>>) = (0, VecDeque::new());
    loop {
        let width = term.size()?.width;
        if wrapped.0 != width {
            wrapped = (width, log.iter().flat_map(|l| crate::wrap::wrap(l, width as usize)).collect());
        }
        let log = &wrapped.1;
        term.draw(|f| {
            let area = f.area();
            let rows = area.height.saturating_sub(1) as usize;
            back = back.min(log.len().saturating_sub(rows));
            let end = log.len() - back;
            let start = end.saturating_sub(rows);
            let mut lines: Vec<Line<'static>> = log.range(start..end).cloned().collect();
            lines.push(Line::from(Span::styled(
                format!(
                    "transcript: lines {}–{} of {} · ↑↓ PgUp PgDn to scroll · q or esc to close",
                    start + 1,
                    end,
                    log.len()
                ),
                Style::default().add_modifier(Modifier::REVERSED),
            )));
            f.render_widget(Paragraph::new(lines), area);
        })?;
        let page = term.size()?.height.saturating_sub(2) as usize;
        match events.next().await {
            Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => match k.code {
                KeyCode::Char('q') | KeyCode::Esc => return Ok(()),
                KeyCode::Char('o') if k.modifiers.contains(KeyModifiers::CONTROL) => return Ok(()),
                KeyCode::Up => back += 1,
                KeyCode::Down => back = back.saturating_sub(1),
                KeyCode::PageUp => back += page,
                KeyCode::PageDown => back = back.saturating_sub(page),
                KeyCode::Home => back = usize::MAX / 2,
                KeyCode::End => back = 0,
                _ => {}
            },
            Some(Ok(Event::Resize(..))) => term.autoresize()?,
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e),
            None => return Ok(()),
        }
    }
}
