//! The lists and the search line on the modal stack: `/resume` (pick an earlier
//! session), Esc Esc (pick a prompt to go back to: code and conversation, `c` the
//! conversation only, `f` the code only) and Ctrl+R (search earlier prompts: Ctrl+R
//! again for an older match, Enter sends it, Tab or Esc puts it in the input box).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::modal::{Flow, Modal, Place};
use crate::worker::ToEngine;
use crate::{summary, wrap};

fn row(i: usize, selected: usize, text: &str, width: usize) -> Line<'static> {
    let marker = if i == selected { "❯ " } else { "  " };
    let style = if i == selected { Style::default().fg(crate::theme::palette().accent) } else { Style::default() };
    Line::from(Span::styled(summary::one_line(&format!("{marker}{}. {text}", i + 1), width.saturating_sub(1)), style))
}

/// Up/Down move `selected` within `len`: whether the key did.
fn moved(key: &KeyEvent, selected: &mut usize, len: usize) -> bool {
    match key.code {
        KeyCode::Up => *selected = selected.saturating_sub(1),
        KeyCode::Down => *selected = (*selected + 1).min(len.saturating_sub(1)),
        _ => return false,
    }
    true
}

fn title(text: &str, width: usize) -> Vec<Line<'static>> {
    wrap::wrap(&Line::from(Span::styled(text.to_string(), Style::default().fg(crate::theme::palette().warning))), width)
}

/// `/resume`: earlier sessions (id, label).
pub(crate) struct Sessions {
    pub list: Vec<(String, String)>,
    pub selected: usize,
}

impl Modal<App> for Sessions {
    fn place(&self) -> Place {
        Place::Above
    }

    fn key(&mut self, key: KeyEvent, app: &mut App) -> Flow {
        if moved(&key, &mut self.selected, self.list.len()) {
            return Flow::Keep;
        }
        match key.code {
            KeyCode::Enter => {
                app.resume_to = self.list.get(self.selected).map(|(id, _)| id.clone());
                app.quit = true;
                return Flow::Close;
            }
            KeyCode::Esc => return Flow::Close,
            _ => {}
        }
        Flow::Keep
    }

    fn lines(&mut self, _: &App, width: usize, _: usize) -> Vec<Line<'static>> {
        let mut out = title("Resume which session? (enter, esc)", width);
        let start = (self.selected + 1).saturating_sub(10);
        out.extend(
            self.list.iter().enumerate().skip(start).take(10).map(|(i, (_, l))| row(i, self.selected, l, width)),
        );
        out
    }
}

/// Esc Esc: the prompts of the conversation.
pub(crate) struct Prompts {
    pub list: Vec<String>,
    pub selected: usize,
}

impl Modal<App> for Prompts {
    fn place(&self) -> Place {
        Place::Above
    }

    fn key(&mut self, key: KeyEvent, app: &mut App) -> Flow {
        if moved(&key, &mut self.selected, self.list.len()) {
            return Flow::Keep;
        }
        match key.code {
            // Enter: the code (what rein's file tools changed) and the conversation;
            // c: the conversation only; f: the code only.
            KeyCode::Enter | KeyCode::Char('c') | KeyCode::Char('f') => {
                let n = self.selected;
                let text = self.list.get(n).cloned().unwrap_or_default();
                let (files, conversation) = match key.code {
                    KeyCode::Char('c') => (false, true),
                    KeyCode::Char('f') => (true, false),
                    _ => (true, true),
                };
                app.ask_engine(ToEngine::Command(rein_session::Command::Rewind {
                    prompt: n,
                    files,
                    conversation,
                    force: false,
                }));
                if conversation {
                    app.composer.set_text(&text);
                }
                return Flow::Close;
            }
            KeyCode::Esc => return Flow::Close,
            _ => {}
        }
        Flow::Keep
    }

    fn lines(&mut self, _: &App, width: usize, _: usize) -> Vec<Line<'static>> {
        let mut out = title(
            "Go back to before which prompt? (enter: code and conversation · c: conversation · f: code · esc)",
            width,
        );
        let start = self.list.len().saturating_sub(8).min(self.selected);
        out.extend(self.list.iter().enumerate().skip(start).take(8).map(|(i, p)| row(i, self.selected, p, width)));
        out
    }
}

/// Ctrl+R: the query and the history entry it found.
#[derive(Default)]
pub(crate) struct Search {
    pub query: String,
    pub found: Option<usize>,
}

impl Modal<App> for Search {
    fn place(&self) -> Place {
        Place::Input
    }

    fn key(&mut self, key: KeyEvent, app: &mut App) -> Flow {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let entries = app.composer.history();
        match key.code {
            KeyCode::Char('r') if ctrl => {
                let from = self.found.unwrap_or(entries.len());
                self.found = crate::history::search(entries, &self.query, from).or(self.found);
            }
            KeyCode::Char('c') if ctrl => return Flow::Close,
            KeyCode::Char(c) if !ctrl => {
                self.query.push(c);
                self.found = crate::history::search(entries, &self.query, entries.len());
            }
            KeyCode::Backspace => {
                self.query.pop();
                self.found = crate::history::search(entries, &self.query, entries.len());
            }
            KeyCode::Enter | KeyCode::Tab | KeyCode::Esc => {
                let text = self.found.and_then(|i| entries.get(i)).cloned();
                if let Some(text) = text {
                    if key.code == KeyCode::Enter {
                        app.composer.clear();
                        app.submit(text);
                    } else {
                        app.composer.set_text(&text);
                    }
                }
                return Flow::Close;
            }
            _ => {}
        }
        Flow::Keep
    }

    fn lines(&mut self, app: &App, width: usize, _: usize) -> Vec<Line<'static>> {
        let text = self.found.and_then(|i| app.composer.history().get(i)).map(String::as_str).unwrap_or("");
        let line = format!("(reverse-i-search)`{}': {}", self.query, text.lines().next().unwrap_or_default());
        wrap::wrap(&Line::from(line), width)
    }
}

impl App {
    /// Ctrl+R: search the prompt history.
    pub(crate) fn search_history(&mut self) {
        self.open(Box::<Search>::default());
    }
}

/// A list of choices, each a slash command to run when taken (`/output-style` without
/// a name, `/plugin`): ↑/↓ or its number, Enter takes it, Esc leaves.
pub(crate) struct Choose {
    pub title: String,
    /// What is shown, and what taking it does.
    pub items: Vec<(String, Pick)>,
    pub selected: usize,
}

/// What taking a choice does.
#[derive(Debug, Clone)]
pub(crate) enum Pick {
    /// Run this slash command (without its `/`).
    Run(String),
    /// Put this in the input box, for the person to finish.
    Draft(String),
}

impl Modal<App> for Choose {
    fn place(&self) -> Place {
        Place::Above
    }

    fn key(&mut self, key: KeyEvent, app: &mut App) -> Flow {
        if moved(&key, &mut self.selected, self.items.len()) {
            return Flow::Keep;
        }
        match key.code {
            KeyCode::Char(d @ '1'..='9') if (d as usize - '1' as usize) < self.items.len() => {
                self.selected = d as usize - '1' as usize;
                Flow::Keep
            }
            KeyCode::Enter => {
                match self.items.get(self.selected).map(|(_, pick)| pick.clone()) {
                    Some(Pick::Run(command)) => app.submit(format!("/{command}")),
                    Some(Pick::Draft(text)) => app.composer.set_text(&text),
                    None => {}
                }
                Flow::Close
            }
            KeyCode::Esc => Flow::Close,
            _ => Flow::Keep,
        }
    }

    fn lines(&mut self, _: &App, width: usize, rows: usize) -> Vec<Line<'static>> {
        let mut out = title(&format!("{} (↑↓ enter, esc)", self.title), width);
        // The chosen item whole, under the list, when its row cuts it.
        let chosen = self.items.get(self.selected).map(|(l, _)| l.as_str()).unwrap_or_default();
        let cut = format!("❯ {}. {chosen}", self.selected + 1).chars().count() >= width;
        let whole = if cut {
            let dim = Style::default().add_modifier(ratatui::style::Modifier::DIM);
            wrap::wrap(&Line::from(Span::styled(format!("  {chosen}"), dim)), width)
        } else {
            Vec::new()
        };
        let room = rows.saturating_sub(out.len() + whole.len() + 5).max(3);
        let start = (self.selected + 1).saturating_sub(room);
        out.extend(
            self.items.iter().enumerate().skip(start).take(room).map(|(i, (l, _))| row(i, self.selected, l, width)),
        );
        if self.items.len() > room {
            let dim = Style::default().add_modifier(ratatui::style::Modifier::DIM);
            out.push(Line::from(Span::styled(format!("  {} of {}", self.selected + 1, self.items.len()), dim)));
        }
        out.extend(whole);
        out
    }
}
