//! The completion menus under the input box: `/` lists every command with what it does,
//! filtered as you type; `@` lists the project's files matching what follows it. Up and
//! Down choose (never touching the prompt history), Tab or Enter take the choice, Esc
//! closes the menu.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::summary;

/// Rows a menu shows at most in a window `rows` tall: about half of what is left
/// beside the input box, between 3 and 15.
fn shown_rows(rows: usize) -> usize {
    (rows.saturating_sub(8) / 2).clamp(3, 15)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Commands,
    Files,
}

/// The menu for what is typed now (empty when none applies).
pub(crate) struct Menu {
    pub kind: Kind,
    /// (what is inserted, what is shown beside it)
    pub items: Vec<(String, String)>,
    pub selected: usize,
}

impl Menu {
    pub(crate) fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Its lines in a window `width` wide and `rows` tall.
    pub(crate) fn lines(&self, width: usize, rows: usize) -> Vec<Line<'static>> {
        let shown_rows = shown_rows(rows);
        let start = (self.selected + 1).saturating_sub(shown_rows);
        // The name as shown (after its `/` or `@`), then two spaces.
        let name_width = self.items.iter().map(|(n, _)| n.chars().count() + 1).max().unwrap_or(0).min(29) + 2;
        let mut out: Vec<Line<'static>> = Vec::new();
        for (i, (name, about)) in self.items.iter().enumerate().skip(start).take(shown_rows) {
            let chosen = i == self.selected;
            let style = if chosen { Style::default().fg(crate::theme::palette().accent) } else { Style::default() };
            let shown = match self.kind {
                Kind::Commands => format!("/{name}"),
                Kind::Files => format!("@{name}"),
            };
            let mut spans =
                vec![Span::styled(format!("{}{shown:<name_width$}", if chosen { "❯ " } else { "  " }), style)];
            if !about.is_empty() {
                spans.push(Span::styled(about.clone(), Style::default().add_modifier(Modifier::DIM)));
            }
            let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
            if text.chars().count() > width {
                let cut = summary::one_line(&text, width.saturating_sub(1));
                out.push(Line::from(Span::styled(cut, style)));
            } else {
                out.push(Line::from(spans));
            }
        }
        if self.items.len() > shown_rows {
            let more = format!("  {} of {} · ↑↓ to choose · tab to take", self.selected + 1, self.items.len());
            out.push(Line::from(Span::styled(more, Style::default().add_modifier(Modifier::DIM))));
        }
        out
    }
}

impl App {
    /// The menu the input box shows now.
    pub(crate) fn menu(&mut self) -> Menu {
        let text = self.composer.text().to_string();
        if self.menu_closed.as_deref() == Some(text.as_str()) {
            return Menu { kind: Kind::Commands, items: Vec::new(), selected: 0 };
        }
        if self.menu_for != text {
            self.menu_for = text.clone();
            self.menu_selected = 0;
            self.menu_closed = None;
        }
        let (kind, items) = if let Some(typed) = text.strip_prefix('/').filter(|t| !t.contains(char::is_whitespace)) {
            (Kind::Commands, self.command_items(typed))
        } else if crate::mentions::current(&text).is_some() {
            (Kind::Files, self.mention_candidates().into_iter().map(|f| (f, String::new())).collect())
        } else {
            (Kind::Commands, Vec::new())
        };
        let selected = self.menu_selected.min(items.len().saturating_sub(1));
        Menu { kind, items, selected }
    }

    /// Every command whose name starts with `typed`, then those that contain it.
    fn command_items(&self, typed: &str) -> Vec<(String, String)> {
        let mut all: Vec<(String, String)> =
            rein_session::slash::BUILTIN.iter().map(|b| (b.name.to_string(), b.description.to_string())).collect();
        all.extend(self.commands.iter().cloned());
        let typed = typed.to_lowercase();
        let mut out: Vec<(String, String)> =
            all.iter().filter(|(n, _)| n.to_lowercase().starts_with(&typed)).cloned().collect();
        out.extend(
            all.iter()
                .filter(|(n, _)| !n.to_lowercase().starts_with(&typed) && n.to_lowercase().contains(&typed))
                .cloned(),
        );
        out
    }

    /// A key while a menu shows: `true` when the menu took it.
    pub(crate) fn menu_key(&mut self, key: KeyEvent) -> bool {
        let menu = self.menu();
        if menu.is_empty() {
            return false;
        }
        let n = menu.items.len();
        match key.code {
            KeyCode::Up => self.menu_selected = (menu.selected + n - 1) % n,
            KeyCode::Down => self.menu_selected = (menu.selected + 1) % n,
            KeyCode::Esc => self.menu_closed = Some(self.composer.text().to_string()),
            KeyCode::Tab | KeyCode::Enter => {
                let Some((name, _)) = menu.items.get(menu.selected).cloned() else { return false };
                match menu.kind {
                    Kind::Commands if key.code == KeyCode::Enter => {
                        self.composer.clear();
                        if let Some(h) = &self.history {
                            h.append(&format!("/{name}"));
                        }
                        self.submit(format!("/{name}"));
                    }
                    Kind::Commands => self.composer.set_text(&format!("/{name} ")),
                    Kind::Files => {
                        let text = self.composer.text().to_string();
                        let Some((start, _)) = crate::mentions::current(&text) else { return false };
                        let rest = text[start..].find(char::is_whitespace).map(|i| &text[start + i..]).unwrap_or("");
                        let rest = rest.trim_start().to_string();
                        self.composer.set_text(&format!("{}@{name} {rest}", &text[..start]));
                    }
                }
            }
            _ => return false,
        }
        true
    }
}
