//! The dialogs of the tools that need the person: ExitPlanMode (the plan, and the mode to
//! go on in: accept edits, approve each, or keep planning) and AskUserQuestion (each
//! question in turn as a tab, its options — several ticked when it takes several —, an
//! "other" answer typed after Tab, and going back to the question before).

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use rein_policy::{PermissionMode, SharedPolicy};
use rein_session::events::Answer;
use serde_json::{Map, Value, json};

use crate::approver::Question;

pub(crate) fn is_user_tool(q: &Question) -> bool {
    matches!(q.call.name.as_str(), "ExitPlanMode" | "AskUserQuestion")
}

/// The question of AskUserQuestion being answered (the next unanswered one).
fn current(q: &Question) -> Option<&Value> {
    q.call.input.get("questions")?.as_array()?.get(q.progress.len())
}

pub(crate) fn options(q: &Question) -> Vec<(char, String)> {
    if q.call.name == "ExitPlanMode" {
        return vec![
            ('1', "Yes, and auto-accept edits".into()),
            ('2', "Yes, and manually approve edits".into()),
            ('3', "No, keep planning (esc)".into()),
        ];
    }
    let options = current(q).and_then(|c| c.get("options")?.as_array().cloned()).unwrap_or_default();
    let labels = options.iter().filter_map(|o| o.get("label").and_then(Value::as_str).map(str::to_string));
    let mut out: Vec<(char, String)> = labels.take(8).enumerate().map(|(i, l)| ((b'1' + i as u8) as char, l)).collect();
    out.push(('o', "Other: select it, Tab, type your answer, Enter".into()));
    out
}

/// Whether the question being answered takes several options.
pub(crate) fn multi(q: &Question) -> bool {
    current(q).and_then(|c| c.get("multiSelect")).and_then(Value::as_bool).unwrap_or(false)
}

/// The dialog's parts at `width` columns: the plan, or the questions as tabs (answered
/// ones ticked), the question being answered and its options (with boxes to tick when
/// it takes several).
pub(crate) fn parts(q: &Question, selected: usize, width: usize) -> crate::dialog_parts::Parts {
    let bold = Style::default().add_modifier(Modifier::BOLD).fg(crate::theme::palette().warning);
    let dim = Style::default().add_modifier(Modifier::DIM);
    let mut subject = Vec::new();
    let mut fixed = Vec::new();
    let title;
    if q.call.name == "ExitPlanMode" {
        title = Line::from(Span::styled("Ready to code? Here is the plan:", bold));
        let plan = q.call.input.get("plan").and_then(Value::as_str).unwrap_or_default();
        subject = crate::markdown::render(plan, width);
        fixed.push(Line::from("Would you like to proceed?"));
    } else {
        let questions = q.call.input.get("questions").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut tabs = vec![Span::styled("← ", dim)];
        for (i, c) in questions.iter().enumerate() {
            let header = c.get("header").and_then(Value::as_str).unwrap_or("Question");
            // Answered, or answered before and being looked at again.
            let answered = i < q.progress.len() || i - q.progress.len() < q.undone.len();
            let mark = if answered { "☒ " } else { "☐ " };
            let style = if i == q.progress.len() { Style::default().add_modifier(Modifier::REVERSED) } else { dim };
            tabs.push(Span::styled(format!(" {mark}{header} "), style));
        }
        tabs.push(Span::styled(" →", dim));
        title = Line::from(Span::styled(
            format!("Question {} of {}", (q.progress.len() + 1).min(questions.len().max(1)), questions.len().max(1)),
            bold,
        ));
        // The question first; where the others stand, above its options.
        if let Some(c) = current(q) {
            let text = c.get("question").and_then(Value::as_str).unwrap_or_default();
            subject.extend(text.lines().flat_map(|l| crate::wrap::wrap(&Line::from(l.to_string()), width)));
        }
        if questions.len() > 1 {
            fixed.extend(crate::wrap::wrap(&Line::from(tabs), width));
        }
    }
    let opts = options(q);
    let described: Vec<Option<String>> = current(q)
        .and_then(|c| c.get("options")?.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(|o| o.get("description").and_then(Value::as_str).map(str::to_string))
        .collect();
    let many = multi(q);
    let mut rows = Vec::new();
    for (i, (key, label)) in opts.iter().enumerate() {
        let marker = if i == selected { "❯ " } else { "  " };
        let style = if i == selected { Style::default().fg(crate::theme::palette().accent) } else { Style::default() };
        let tick = match (many, *key == 'o') {
            (true, false) if q.checked.contains(&i) => "[✔] ",
            (true, false) => "[ ] ",
            _ => "",
        };
        let mut spans = vec![Span::styled(format!("{marker}{key}. {tick}{label}"), style)];
        rows.push(Line::from(spans.clone()));
        if let Some(Some(d)) = described.get(i).filter(|_| q.call.name == "AskUserQuestion") {
            spans.push(Span::styled(format!(" — {d}"), dim));
        }
        fixed.extend(crate::wrap::wrap_indent(&Line::from(spans), width, 5, None));
    }
    let compact = crate::dialog_parts::one_row_each(&rows, width);
    if q.call.name == "AskUserQuestion" {
        let keys = if many {
            "space or number: tick · enter: done · ←: previous question · esc: no answer"
        } else {
            "number or enter: choose · ←: previous question · esc: no answer"
        };
        let next = if q.undone.is_empty() { "" } else { " · →: next, as answered" };
        fixed.extend(crate::wrap::wrap(&Line::from(Span::styled(format!("{keys}{next}"), dim)), width));
    }
    crate::dialog_parts::Parts { title, subject, reason: Vec::new(), fixed, compact }
}

/// Left on AskUserQuestion: back to the question before, its answer undone and what
/// was ticked on it ticked again.
pub(crate) fn back(q: &mut Question) {
    let now = q.progress.len();
    *ticks(q, now) = std::mem::take(&mut q.checked);
    if let Some(answer) = q.progress.pop() {
        q.undone.push(answer);
    }
    q.checked = ticks(q, now.saturating_sub(1)).clone();
}

/// Right on AskUserQuestion: on to the next question, the answer given before given
/// again. Whether there was one.
pub(crate) fn forth(q: &mut Question) -> bool {
    let Some(answer) = q.undone.pop() else { return false };
    let now = q.progress.len();
    *ticks(q, now) = std::mem::take(&mut q.checked);
    q.progress.push(answer);
    q.checked = ticks(q, now + 1).clone();
    true
}

/// Where the pointer goes on the question now shown: on the answer given before, when
/// it was one of the options.
fn pointer(q: &Question) -> usize {
    let given = q.undone.last();
    options(q).iter().position(|(_, label)| Some(label) == given).unwrap_or(0)
}

/// What is ticked on question `i` (kept as the person goes back and forth).
fn ticks(q: &mut Question, i: usize) -> &mut Vec<usize> {
    if q.ticked.len() <= i {
        q.ticked.resize(i + 1, Vec::new());
    }
    &mut q.ticked[i]
}

/// The person chose `choice` (with `typed` text after Tab). `Some(answer)` ends the
/// dialog; `None` moves on to the next question.
pub(crate) fn answer(q: &mut Question, choice: char, typed: Option<String>, policy: &SharedPolicy) -> Option<Answer> {
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
        // Enter on a question that takes several: the ticked ones (or the one selected).
        '\n' => {
            let mut picked: Vec<usize> = q.checked.clone();
            picked.sort_unstable();
            let labels: Vec<String> = picked.iter().filter_map(|i| opts.get(*i)).map(|(_, l)| l.clone()).collect();
            if labels.is_empty() {
                return None;
            }
            labels.join(", ")
        }
        c => opts.iter().find(|(k, _)| *k == c).map(|(_, l)| l.clone())?,
    };
    let now = q.progress.len();
    *ticks(q, now) = std::mem::take(&mut q.checked);
    q.progress.push(chosen);
    // This answer replaces the one given before here; those to the later questions stay.
    q.undone.pop();
    q.checked = ticks(q, now + 1).clone();
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

/// What a key did on AskUserQuestion beyond choosing one option.
pub(crate) enum Step {
    /// Moved back, or ticked: nothing more to do.
    Handled,
    /// Enter on a question that takes several: answer with the ticked ones.
    Done,
}

/// Left goes back to the question before; on a question that takes several, Space or
/// an option's number ticks it and Enter answers with those ticked.
pub(crate) fn ask_user_key(q: &mut crate::approver::Question, selected: &mut usize, key: KeyEvent) -> Option<Step> {
    if q.call.name != "AskUserQuestion" {
        return None;
    }
    if key.code == KeyCode::Left && !q.progress.is_empty() {
        back(q);
        *selected = pointer(q);
        return Some(Step::Handled);
    }
    if key.code == KeyCode::Right && forth(q) {
        *selected = pointer(q);
        return Some(Step::Handled);
    }
    if !crate::user_dialog::multi(q) {
        return None;
    }
    let options = crate::user_dialog::options(q);
    let tick = match key.code {
        KeyCode::Char(' ') => Some(*selected),
        KeyCode::Char(c) if c.is_ascii_digit() => options.iter().position(|o| o.0 == c),
        _ => None,
    };
    if let Some(i) = tick.filter(|i| options.get(*i).is_some_and(|o| o.0 != 'o')) {
        match q.checked.iter().position(|c| *c == i) {
            Some(at) => {
                q.checked.remove(at);
            }
            None => q.checked.push(i),
        }
        *selected = i;
        return Some(Step::Handled);
    }
    if key.code == KeyCode::Enter && options.get(*selected).is_some_and(|o| o.0 != 'o') {
        if q.checked.is_empty() {
            q.checked.push(*selected);
        }
        return Some(Step::Done);
    }
    None
}
