//! The permission dialog: what the call is, `Do you want to proceed?`, and the options —
//! `1. Yes`, `2. Yes, and don't ask again for …` (rules written to the project's
//! `.claude/settings.local.json`) or, for edits, `Yes, allow all edits during this
//! session`, `a. Yes, and switch to auto mode` (outside auto mode), and `3. No, and tell
//! rein what to do differently (esc)`.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::approver::Question;
use crate::summary;

/// The options of a question, in order: (key, text).
pub fn options(q: &Question, project: &str, offer_auto: bool) -> Vec<(char, String)> {
    if crate::user_dialog::is_user_tool(q) {
        return crate::user_dialog::options(q);
    }
    let mut out = vec![('1', "Yes".to_string())];
    if q.edits {
        out.push(('2', "Yes, allow all edits during this session (shift+tab)".to_string()));
    } else if !q.remember.is_empty() {
        out.push(('2', format!("Yes, and don't ask again for {} in {project}", q.remember.join(", "))));
    }
    if offer_auto {
        out.push(('a', "Yes, and switch to auto mode".to_string()));
    }
    out.push(('3', "No, and tell rein what to do differently (esc)".to_string()));
    out
}

/// The dialog's lines, with `selected` (an index into [`options`]) marked.
pub fn lines(q: &Question, project: &str, selected: usize, width: usize, offer_auto: bool) -> Vec<Line<'static>> {
    if crate::user_dialog::is_user_tool(q) {
        return crate::user_dialog::lines(q, selected, width);
    }
    let title = match q.call.name.as_str() {
        "Bash" => "Bash command".to_string(),
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => "Edit file".to_string(),
        "WebFetch" => "Fetch".to_string(),
        other => other.to_string(),
    };
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let mut out = vec![Line::from(Span::styled(title, bold.fg(Color::Yellow)))];
    let s = |k: &str| q.call.input.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let shown = match q.call.name.as_str() {
        "Bash" => {
            let mut v: Vec<String> = s("command").lines().take(4).map(|l| format!("  {l}")).collect();
            let d = s("description");
            if !d.is_empty() {
                v.push(format!("  {d}"));
            }
            v
        }
        "WebFetch" => vec![format!("  {}", s("url"))],
        _ => vec![format!("  {}", summary::header(&q.call, std::path::Path::new(project)))],
    };
    out.extend(shown.into_iter().map(|l| Line::from(summary::one_line(&l, width.saturating_sub(2)))));
    if matches!(q.call.name.as_str(), "Edit" | "MultiEdit") {
        out.extend(summary::summary(&q.call, "", false).into_iter().skip(1).take(6));
    }
    out.push(Line::from(Span::styled(
        summary::one_line(&q.decision.reason, width.saturating_sub(2)),
        Style::default().add_modifier(Modifier::DIM),
    )));
    out.push(Line::from("Do you want to proceed?"));
    for (i, (key, text)) in options(q, project, offer_auto).into_iter().enumerate() {
        let marker = if i == selected { "❯ " } else { "  " };
        let style = if i == selected { Style::default().fg(Color::Cyan) } else { Style::default() };
        out.push(Line::from(Span::styled(summary::one_line(&format!("{marker}{key}. {text}"), width), style)));
    }
    out
}
