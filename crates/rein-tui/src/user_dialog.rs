//! The dialogs of the tools that need the person: ExitPlanMode (the plan, and the mode to
//! go on in: accept edits, approve each, or keep planning) and AskUserQuestion (each
//! question in turn with its options and an "other" answer typed after Tab).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use rein_engine::Answer;
use rein_policy::{PermissionMode, SharedPolicy};
use serde_json::{Map, Value, json};

use crate::approver::Question;
use crate::summary;

pub fn is_user_tool(q: &Question) -> bool {
    matches!(q.call.name.as_str(), "ExitPlanMode" | "AskUserQuestion")
}

/// The question of AskUserQuestion being answered (the next unanswered one).
fn current(q: &Question) -> Option<&Value> {
    q.call.input.get("questions")?.as_array()?.get(q.progress.len())
}

pub fn options(q: &Question) -> Vec<(char, String)> {
    if q.call.name == "ExitPlanMode" {
        return vec![
            ('1', "Yes, and auto-accept edits".into()),
            ('2', "Yes, and manually approve edits".into()),
            ('3', "No, keep planning (esc)".into()),
        ];
    }
    let labels: Vec<String> = current(q)
        .and_then(|c| c.get("options")?.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|o| o.get("label").and_then(Value::as_str).map(str::to_string))
        .collect();
    let mut out: Vec<(char, String)> =
        labels.into_iter().take(8).enumerate().map(|(i, l)| ((b'1' + i as u8) as char, l)).collect();
    out.push(('o', "Other: select it, Tab, type your answer, Enter".into()));
    out
}

pub fn lines(q: &Question, selected: usize, width: usize) -> Vec<Line<'static>> {
    let bold = Style::default().add_modifier(Modifier::BOLD).fg(Color::Yellow);
    let mut out = Vec::new();
    if q.call.name == "ExitPlanMode" {
        out.push(Line::from(Span::styled("Ready to code? Here is the plan:", bold)));
        let plan = q.call.input.get("plan").and_then(Value::as_str).unwrap_or_default();
        out.extend(plan.lines().take(14).map(|l| Line::from(summary::one_line(&format!("  {l}"), width))));
        out.push(Line::from("Would you like to proceed?"));
    } else if let Some(c) = current(q) {
        let total = q.call.input.get("questions").and_then(Value::as_array).map_or(1, Vec::len);
        let header = c.get("header").and_then(Value::as_str).unwrap_or("Question");
        out.push(Line::from(Span::styled(format!("{header} ({}/{total})", q.progress.len() + 1), bold)));
        let text = c.get("question").and_then(Value::as_str).unwrap_or_default();
        out.push(Line::from(summary::one_line(text, width)));
    }
    let opts = options(q);
    let described: Vec<Option<String>> = current(q)
        .and_then(|c| c.get("options")?.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(|o| o.get("description").and_then(Value::as_str).map(str::to_string))
        .collect();
    for (i, (key, label)) in opts.into_iter().enumerate() {
        let marker = if i == selected { "❯ " } else { "  " };
        let style = if i == selected { Style::default().fg(Color::Cyan) } else { Style::default() };
        let mut line = format!("{marker}{key}. {label}");
        if let Some(Some(d)) = described.get(i).filter(|_| q.call.name == "AskUserQuestion") {
            line.push_str(&format!(" — {d}"));
        }
        out.push(Line::from(Span::styled(summary::one_line(&line, width), style)));
    }
    out
}

/// The person chose `choice` (with `typed` text after Tab). `Some(answer)` ends the
/// dialog; `None` moves on to the next question.
pub fn answer(q: &mut Question, choice: char, typed: Option<String>, policy: &SharedPolicy) -> Option<Answer> {
    if q.call.name == "ExitPlanMode" {
        return Some(match choice {
            '1' => {
                policy.set_mode(PermissionMode::AcceptEdits, "plan approved (auto-accept edits)");
                Answer::yes()
            }
            '2' => {
                policy.set_mode(PermissionMode::Default, "plan approved");
                Answer::yes()
            }
            _ => Answer { message: typed.or(Some("Keep planning.".into())), ..Answer::no() },
        });
    }
    let opts = options(q);
    let chosen = match choice {
        'o' => typed.filter(|t| !t.trim().is_empty())?,
        c => opts.iter().find(|(k, _)| *k == c).map(|(_, l)| l.clone())?,
    };
    q.progress.push(chosen);
    let questions = q.call.input.get("questions").and_then(Value::as_array).cloned().unwrap_or_default();
    if q.progress.len() < questions.len() {
        return None;
    }
    let mut answers = Map::new();
    for (question, a) in questions.iter().zip(&q.progress) {
        let text = question.get("question").and_then(Value::as_str).unwrap_or_default();
        answers.insert(text.to_string(), json!(a));
    }
    let mut input = q.call.input.clone();
    input["answers"] = Value::Object(answers);
    Some(Answer { updated_input: Some(input), ..Answer::yes() })
}
