//! The permission dialog: what the call is — the whole command, the whole diff numbered
//! by file line, a Write's whole content —, why it is asked, `Do you want to proceed?`,
//! and the options: `1. Yes`, `2. Yes, and don't ask again for …` (rules written to the
//! project's `.claude/settings.local.json`) or, for edits, `Yes, allow all edits during
//! this session`, `3. No, and tell rein what to do differently (esc)`, and `4. Yes, and
//! switch to auto mode` (outside auto mode). Letters choose nothing. The subject scrolls
//! when it is taller than the window; the question and every option always show.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::approver::Question;
use crate::{summary, wrap};

pub(crate) use crate::dialog_parts::Parts;

/// The options of a question, in order: (key, text).
pub(crate) fn options(q: &Question, project: &str, offer_auto: bool) -> Vec<(char, String)> {
    if crate::user_dialog::is_user_tool(q) {
        return crate::user_dialog::options(q);
    }
    let mut out = vec![('1', "Yes".to_string())];
    if q.edits {
        out.push(('2', "Yes, allow all edits during this session (shift+tab)".to_string()));
    } else if !q.remember.is_empty() {
        // A few rules by name; more are counted (all of them are remembered).
        let named = match q.remember.len() {
            n if n > 3 => format!("{} and {} more", q.remember[..3].join(", "), n - 3),
            _ => q.remember.join(", "),
        };
        out.push(('2', format!("Yes, and don't ask again for {named} in {project}")));
    }
    out.push(('3', "No, and tell rein what to do differently (esc)".to_string()));
    // Last, so that 3 is "no" in every dialog; a number, as letters answer nothing.
    if offer_auto {
        out.push(('4', "Yes, and switch to auto mode".to_string()));
    }
    out
}

/// The options as lines, `selected` marked, wrapped under their text.
pub(crate) fn option_lines(options: &[(char, String)], selected: usize, width: usize) -> Vec<Line<'static>> {
    option_rows(options, selected).iter().flat_map(|line| wrap::wrap_indent(line, width, 5, None)).collect()
}

/// Each option as one unwrapped line, the chosen one marked.
fn option_rows(options: &[(char, String)], selected: usize) -> Vec<Line<'static>> {
    options
        .iter()
        .enumerate()
        .map(|(i, (key, text))| {
            let marker = if i == selected { "❯ " } else { "  " };
            let style =
                if i == selected { Style::default().fg(crate::theme::palette().accent) } else { Style::default() };
            Line::from(Span::styled(format!("{marker}{key}. {text}"), style))
        })
        .collect()
}

/// What the call would do, wrapped to `width`: read once per width by the view (an
/// edit's diff reads the file), not once a frame.
pub(crate) fn subject_lines(q: &Question, width: usize) -> Vec<Line<'static>> {
    if crate::user_dialog::is_user_tool(q) { Vec::new() } else { wrap::wrap_all(subject(q), width) }
}

/// The dialog's parts at `width` columns inside its border, around `subject` (from
/// [`subject_lines`]; user dialogs draw their own).
pub(crate) fn parts(
    q: &Question,
    project: &str,
    selected: usize,
    width: usize,
    offer_auto: bool,
    subject: Vec<Line<'static>>,
) -> Parts {
    if crate::user_dialog::is_user_tool(q) {
        return crate::user_dialog::parts(q, selected, width);
    }
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let path = |k: &str| q.call.input.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let title = match q.call.name.as_str() {
        "Bash" => "Bash command".to_string(),
        "Edit" | "MultiEdit" | "NotebookEdit" => format!("Edit file {}", relative(&path("file_path"), project)),
        "Write" => format!("Write file {}", relative(&path("file_path"), project)),
        "WebFetch" => "Fetch".to_string(),
        other => other.to_string(),
    };
    let dim = Style::default().add_modifier(Modifier::DIM);
    let mut fixed = Vec::new();
    let mut reason = Vec::new();
    if !q.decision.reason.is_empty() {
        reason.extend(wrap::wrap(&Line::from(Span::styled(q.decision.reason.clone(), dim)), width));
    }
    let question = match q.call.name.as_str() {
        "Edit" | "MultiEdit" | "NotebookEdit" => {
            format!("Do you want to make this edit to {}?", relative(&path("file_path"), project))
        }
        "Write" if !std::path::Path::new(&path("file_path")).exists() => {
            format!("Do you want to create {}?", relative(&path("file_path"), project))
        }
        _ => "Do you want to proceed?".to_string(),
    };
    fixed.extend(wrap::wrap(&Line::from(question), width));
    let offered = options(q, project, offer_auto);
    fixed.extend(option_lines(&offered, selected, width));
    let compact = crate::dialog_parts::one_row_each(&option_rows(&offered, selected), width);
    Parts {
        title: Line::from(Span::styled(title, bold.fg(crate::theme::palette().warning))),
        subject,
        reason,
        fixed,
        compact,
    }
}

fn relative(path: &str, project: &str) -> String {
    std::path::Path::new(path)
        .strip_prefix(project)
        .map(|r| r.display().to_string())
        .unwrap_or_else(|_| path.to_string())
}

/// What the call would do, in full, before wrapping.
fn subject(q: &Question) -> Vec<Line<'static>> {
    let s = |k: &str| q.call.input.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let dim = Style::default().add_modifier(Modifier::DIM);
    match q.call.name.as_str() {
        "Bash" => {
            let mut v: Vec<Line<'static>> = s("command").lines().map(|l| Line::from(format!("  {l}"))).collect();
            let d = s("description");
            if !d.is_empty() {
                v.push(Line::from(Span::styled(format!("  {d}"), dim)));
            }
            if let Some(tried) = &q.decision.tried {
                v.push(Line::default());
                v.push(Line::from(Span::styled("Tried where it could change nothing, it made these changes:", dim)));
                v.extend(tried.lines().map(change_line));
            }
            v
        }
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => summary::proposed_change(&q.call),
        "WebFetch" => {
            let mut v = vec![Line::from(format!("  {}", s("url")))];
            let prompt = s("prompt");
            if !prompt.is_empty() {
                v.push(Line::from(Span::styled(format!("  {prompt}"), dim)));
            }
            v
        }
        _ => {
            // The title names the tool; every argument follows, whole.
            let mut v = Vec::new();
            if let Some(map) = q.call.input.as_object() {
                for (k, value) in map {
                    let text = match value {
                        Value::String(t) => t.clone(),
                        other => serde_json::to_string_pretty(other).unwrap_or_default(),
                    };
                    for (i, l) in text.lines().enumerate() {
                        let lead = if i == 0 { format!("  {k}: ") } else { "    ".to_string() };
                        v.push(Line::from(vec![Span::styled(lead, dim), Span::raw(l.to_string())]));
                    }
                }
            }
            v
        }
    }
}

/// One line of a tried command's changes: additions green, removals red, hunks cyan.
fn change_line(line: &str) -> Line<'static> {
    let color = match line.as_bytes() {
        [b'+', b'+', b'+', ..] | [b'-', b'-', b'-', ..] => None,
        [b'+', ..] => Some(crate::theme::palette().success),
        [b'-', ..] => Some(crate::theme::palette().error),
        [b'@', b'@', ..] => Some(crate::theme::palette().accent),
        _ => None,
    };
    let text = format!("  {line}");
    match color {
        Some(c) => Line::from(Span::styled(text, Style::default().fg(c))),
        None => Line::from(text),
    }
}
