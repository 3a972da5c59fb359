//! `/help`: every command with what it does, in two columns whose descriptions wrap
//! under themselves, then every key the input box knows — named as the person bound
//! them in `keybindings.json`.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::keybindings::Action;

/// The widest a command's name column gets; longer names push their description on.
const NAME_COLUMN_MAX: usize = 24;

/// `/help`'s lines at `width` columns.
pub(crate) fn lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let mut commands: Vec<(String, String)> =
        rein_session::slash::BUILTIN.iter().map(|b| (format!("/{}", b.name), b.description.to_string())).collect();
    commands.extend(app.commands.iter().map(|(c, d)| (format!("/{c}"), d.clone())));
    let mut out = vec![heading("Commands")];
    out.extend(two_columns(&commands, width));
    out.push(Line::default());
    out.push(heading("Keys"));
    out.extend(two_columns(&keys(app), width));
    out
}

fn heading(text: &str) -> Line<'static> {
    Line::from(Span::styled(format!("  {text}"), Style::default().add_modifier(Modifier::BOLD)))
}

/// Rows of `name  description`, the descriptions wrapped under their own column.
fn two_columns(rows: &[(String, String)], width: usize) -> Vec<Line<'static>> {
    let longest = rows.iter().map(|(n, _)| n.chars().count()).max().unwrap_or(0);
    let column = longest.min(NAME_COLUMN_MAX);
    let indent = 4 + column + 2;
    let dim = Style::default().add_modifier(Modifier::DIM);
    rows.iter()
        .flat_map(|(name, what)| {
            let line = Line::from(vec![Span::raw(format!("    {name:<column$}  ")), Span::styled(what.clone(), dim)]);
            crate::wrap::wrap_indent(&line, width, indent.min(width / 2), None)
        })
        .collect()
}

/// The keys, each as it is bound now.
fn keys(app: &App) -> Vec<(String, String)> {
    let bound = |action, default: &str| app.keybindings.key_name(action, default);
    let mut out = Vec::new();
    let mut key = |name: Option<String>, what: &str| {
        if let Some(name) = name {
            out.push((name, what.to_string()));
        }
    };
    key(bound(Action::Submit, "enter"), "send the prompt (while rein works: queue it)");
    key(Some("shift+enter".into()), "a new line in the prompt (also \\+enter or ctrl+j)");
    key(bound(Action::Cancel, "esc"), "interrupt rein; twice on an empty prompt: go back to an earlier one");
    key(bound(Action::CycleMode, "shift+tab"), "change the mode (manual, accept edits, plan, …)");
    key(bound(Action::ExternalEditor, "ctrl+g"), "edit the prompt in $VISUAL or $EDITOR");
    key(bound(Action::ImagePaste, "ctrl+v"), "attach the image in the clipboard");
    key(bound(Action::HistorySearch, "ctrl+r"), "search earlier prompts");
    key(Some("↑ ↓".into()), "earlier and later prompts");
    key(bound(Action::ToggleTranscript, "ctrl+o"), "the whole transcript, tool output too");
    key(bound(Action::ToggleTodos, "ctrl+t"), "show or hide the task list");
    key(Some("ctrl+b".into()), "move the running command to the background");
    key(bound(Action::Undo, "ctrl+_"), "undo the last edit of the prompt");
    key(bound(Action::Redraw, "ctrl+l"), "draw the screen again");
    key(Some("ctrl+z".into()), "suspend rein (`fg` brings it back)");
    key(bound(Action::Interrupt, "ctrl+c"), "interrupt; clear the prompt; twice: leave");
    key(bound(Action::Exit, "ctrl+d"), "twice on an empty prompt: leave");
    key(Some("@path".into()), "mention a file (tab completes)");
    key(Some("!command".into()), "run a shell command yourself; its output joins the conversation");
    key(Some("/".into()), "commands; tab completes");
    out
}
