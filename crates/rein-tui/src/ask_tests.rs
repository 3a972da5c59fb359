//! The model's questions (AskUserQuestion) drawn and answered: several questions, ticks
//! and answers kept going back and forth.

use rein_protocol::ToolUse;
use serde_json::json;
use tokio::sync::oneshot;

use crate::dialog_tests::press;
use crate::view_tests::{app, question, screen_sized};

#[test]
fn ask_user_question_takes_several_answers_and_goes_back() {
    let mut a = app();
    let (reply, answer) = oneshot::channel();
    let input = json!({"questions": [
        {"question": "Which colour do you want for the new theme? It is a long question that wraps.", "header": "Colour", "multiSelect": false,
         "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]},
        {"question": "Which platforms?", "header": "Platforms", "multiSelect": true,
         "options": [{"label": "Linux"}, {"label": "macOS"}, {"label": "Windows"}]}]});
    a.on_question(question(ToolUse { id: "q".into(), name: "AskUserQuestion".into(), input }, "", reply));
    insta::assert_snapshot!("ask_first_40", screen_sized(&mut a, 40, 24));
    let key = |c| ratatui::crossterm::event::KeyEvent::from(c);
    use ratatui::crossterm::event::KeyCode;
    a.on_key(key(KeyCode::Char('1')));
    a.on_key(key(KeyCode::Left));
    assert!(screen_sized(&mut a, 80, 24).contains("Which colour"), "back to the first question");
    a.on_key(key(KeyCode::Char('2')));
    a.on_key(key(KeyCode::Char('1')));
    a.on_key(key(KeyCode::Down));
    a.on_key(key(KeyCode::Down));
    a.on_key(key(KeyCode::Char(' ')));
    insta::assert_snapshot!("ask_multi_80", screen_sized(&mut a, 80, 24));
    a.on_key(key(KeyCode::Enter));
    let got = answer.blocking_recv().unwrap();
    let answers = &got.updated_input.unwrap()["answers"];
    assert_eq!(answers["Which colour do you want for the new theme? It is a long question that wraps."], "Blue");
    assert_eq!(answers["Which platforms?"], "Linux, Windows");
}

/// AskUserQuestion: going back to the question before and forth again keeps the ticks
/// already made on either.
#[test]
fn ask_user_question_keeps_ticks_going_back_and_forth() {
    let mut a = app();
    let (reply, answer) = oneshot::channel();
    let input = json!({"questions": [
        {"question": "Which tools?", "header": "Tools", "multiSelect": true,
         "options": [{"label": "cargo"}, {"label": "npm"}, {"label": "pip"}]},
        {"question": "Which platforms?", "header": "Platforms", "multiSelect": true,
         "options": [{"label": "Linux"}, {"label": "macOS"}, {"label": "Windows"}]}]});
    a.on_question(question(ToolUse { id: "q".into(), name: "AskUserQuestion".into(), input }, "", reply));
    let key = |c| ratatui::crossterm::event::KeyEvent::from(c);
    use ratatui::crossterm::event::KeyCode;
    // Tools: cargo and pip ticked, answered; Platforms: macOS ticked; back; forth.
    screen_sized(&mut a, 80, 24);
    a.on_key(key(KeyCode::Char('1')));
    a.on_key(key(KeyCode::Char('3')));
    a.on_key(key(KeyCode::Enter));
    screen_sized(&mut a, 80, 24);
    a.on_key(key(KeyCode::Char('2')));
    a.on_key(key(KeyCode::Left));
    let first = screen_sized(&mut a, 80, 24);
    assert!(first.contains("1. [✔] cargo") && first.contains("3. [✔] pip"), "{first}");
    a.on_key(key(KeyCode::Enter));
    let second = screen_sized(&mut a, 80, 24);
    assert!(second.contains("2. [✔] macOS"), "{second}");
    a.on_key(key(KeyCode::Enter));
    let got = answer.blocking_recv().unwrap();
    let answers = &got.updated_input.unwrap()["answers"];
    assert_eq!(answers["Which tools?"], "cargo, pip");
    assert_eq!(answers["Which platforms?"], "macOS");
}

/// AskUserQuestion: ← back to an answered question shows it answered with the pointer on
/// the answer; → goes on with that answer; a changed answer replaces only its own.
#[test]
fn ask_user_question_goes_back_and_forth_keeping_answers() {
    use ratatui::crossterm::event::KeyCode;
    let mut a = app();
    let (reply, answer) = oneshot::channel();
    let input = json!({"questions": [
        {"question": "How bright?", "header": "Light", "multiSelect": false,
         "options": [{"label": "Dim"}, {"label": "Bright"}]},
        {"question": "Which extras?", "header": "Extras", "multiSelect": true,
         "options": [{"label": "Shadow"}, {"label": "Gradient"}]},
        {"question": "Which font?", "header": "Font", "multiSelect": false,
         "options": [{"label": "Serif"}, {"label": "Sans"}]}]});
    a.on_question(question(ToolUse { id: "q".into(), name: "AskUserQuestion".into(), input }, "", reply));
    screen_sized(&mut a, 80, 24);
    press(&mut a, KeyCode::Char('2'));
    press(&mut a, KeyCode::Char('1'));
    press(&mut a, KeyCode::Char('2'));
    press(&mut a, KeyCode::Enter);
    assert!(screen_sized(&mut a, 80, 24).contains("Which font?"));
    press(&mut a, KeyCode::Left);
    press(&mut a, KeyCode::Left);
    let s = screen_sized(&mut a, 80, 24);
    assert!(s.contains("How bright?") && s.contains("❯ 2. Bright"), "the pointer is on the answer:\n{s}");
    assert!(s.contains("☒ Light") && s.contains("☒ Extras"), "still answered:\n{s}");
    press(&mut a, KeyCode::Right);
    let s = screen_sized(&mut a, 80, 24);
    assert!(s.contains("Which extras?") && s.contains("[✔] Shadow") && s.contains("[✔] Gradient"), "{s}");
    press(&mut a, KeyCode::Right);
    assert!(screen_sized(&mut a, 80, 24).contains("Which font?"));
    press(&mut a, KeyCode::Char('1'));
    let got = answer.blocking_recv().unwrap();
    let answers = &got.updated_input.unwrap()["answers"];
    assert_eq!(answers["How bright?"], "Bright");
    assert_eq!(answers["Which extras?"], "Shadow, Gradient");
    assert_eq!(answers["Which font?"], "Serif");
}

/// Ctrl+C on the model's question leaves it unanswered (never picks its third option).
#[test]
fn ctrl_c_on_the_models_question_answers_nothing() {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mut a = app();
    let (reply, mut answer) = oneshot::channel();
    let input = json!({"questions": [{"question": "Where to?", "header": "Target", "multiSelect": false,
        "options": [{"label": "Stop here"}, {"label": "Dry run"}, {"label": "Deploy to production now"}]}]});
    a.on_question(question(ToolUse { id: "q".into(), name: "AskUserQuestion".into(), input }, "", reply));
    screen_sized(&mut a, 80, 24);
    a.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    let got = answer.try_recv().expect("answered");
    assert!(!got.allow && got.updated_input.is_none(), "{got:?}");
}
