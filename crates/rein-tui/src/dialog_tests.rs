//! The questions rein asks, drawn and answered: long subjects at every size, the
//! model's questions, questions that wait their turn, and keys that reach a question
//! only on purpose.

use rein_protocol::ToolUse;
use rein_session::events::EngineEvent;
use serde_json::json;
use tokio::sync::oneshot;

use crate::app::App;
use crate::approver::Question;
use crate::view_tests::{app, bash, question, screen_sized};
use crate::worker::FromEngine;

fn ask(a: &mut App, call: ToolUse, remember: Vec<String>, edits: bool) {
    let (reply, _answer) = oneshot::channel();
    std::mem::forget(_answer);
    a.on_question(Question { remember, edits, ..question(call, "No rule allows it.", reply) });
}

/// A subject taller than the window: the box shows its first lines with the position,
/// and the question and every option below; PgDn shows the rest.
#[test]
fn dialogs_with_long_subjects_show_every_option() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.rs");
    let old: String = (1..=80).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&file, &old).unwrap();
    let old_part: String = (11..=40).map(|i| format!("line {i}\n")).collect();
    let new_part: String = (11..=40).map(|i| format!("changed {i}\n")).collect();
    let heredoc =
        format!("cat > notes.txt <<'EOF'\n{}EOF", (1..=60).map(|i| format!("note {i}\n")).collect::<String>());
    let plan: String =
        (1..=40).map(|i| format!("{i}. step number {i} of a long plan that wraps at narrow widths\n")).collect();
    let cases: Vec<(&str, ToolUse, bool)> = vec![
        ("heredoc", bash(&heredoc), false),
        (
            "diff",
            ToolUse {
                id: "e".into(),
                name: "Edit".into(),
                input: json!({"file_path": file.display().to_string(), "old_string": old_part, "new_string": new_part}),
            },
            true,
        ),
        (
            "write",
            ToolUse {
                id: "w".into(),
                name: "Write".into(),
                input: json!({"file_path": dir.path().join("new.md").display().to_string(), "content": "# Title\n".repeat(40)}),
            },
            true,
        ),
        ("plan", ToolUse { id: "p".into(), name: "ExitPlanMode".into(), input: json!({"plan": plan}) }, false),
    ];
    for (name, call, edits) in cases {
        for width in [40u16, 80, 120] {
            let mut a = app();
            a.project_root = dir.path().to_path_buf();
            ask(&mut a, call.clone(), vec!["Bash(cat > notes.txt)".into()], edits);
            let s = screen_sized(&mut a, width, 24);
            let no = if name == "plan" { "No, keep planning" } else { "3. No" };
            assert!(s.contains(no) && s.contains("1. Yes"), "{name} at {width}: every option shows\n{s}");
            assert!(s.contains("↓ lines 1–"), "{name} at {width}: the position shows\n{s}");
            assert!(s.lines().count() <= 24);
            let s = s.replace(&dir.path().display().to_string(), "/tmp/x");
            insta::assert_snapshot!(format!("long_{name}_{width}"), s);
        }
        // Scrolled to the end, the last line of the subject shows.
        let mut a = app();
        ask(&mut a, call.clone(), Vec::new(), edits);
        for _ in 0..20 {
            a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::PageDown));
        }
        let s = screen_sized(&mut a, 80, 24);
        let last = match name {
            "heredoc" => "EOF",
            "diff" => "changed 40",
            "write" => "  40 + # Title",
            _ => "40. step number 40",
        };
        assert!(s.contains(last), "{name}: PgDn reaches the end\n{s}");
    }
}

/// Two questions at once (parallel calls): the second waits its turn instead of
/// replacing the first, and each gets the person's own answer.
#[test]
fn a_second_question_waits_for_the_first() {
    let mut a = app();
    let (first_reply, mut first) = oneshot::channel();
    let (second_reply, mut second) = oneshot::channel();
    for (command, reply) in [("touch one", first_reply), ("touch two", second_reply)] {
        a.on_question(question(bash(command), "ask", reply));
    }
    let s = screen_sized(&mut a, 80, 24);
    assert!(s.contains("touch one") && !s.contains("touch two"), "{s}");
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('1')));
    assert!(first.try_recv().unwrap().allow);
    assert!(second.try_recv().is_err(), "not answered yet");
    let s = screen_sized(&mut a, 80, 24);
    assert!(s.contains("touch two"), "{s}");
    // A letter answers nothing — it is typing, and a number right after it is typing
    // too; once the person turns to the question (an arrow), a number answers.
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('y')));
    assert!(second.try_recv().is_err(), "a letter answered");
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('1')));
    assert!(second.try_recv().is_err(), "a digit typed after a letter answered");
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Up));
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('1')));
    assert!(second.try_recv().unwrap().allow);
    assert_eq!(a.composer.text(), "y1", "what was typed is in the draft");
}

/// A fetch and an MCP tool's call show what they would do, every option in view.
#[test]
fn fetch_and_mcp_dialogs_at_three_widths() {
    let fetch = ToolUse {
        id: "f".into(),
        name: "WebFetch".into(),
        input: json!({"url": "https://docs.rs/ratatui/latest/ratatui/struct.Terminal.html", "prompt": "How is an inline viewport resized?"}),
    };
    let mcp = ToolUse {
        id: "m".into(),
        name: "mcp__github__create_issue".into(),
        input: json!({"owner": "acme", "repo": "rocket", "title": "Launch fails at T-10", "body": "Steps:\n1. fuel\n2. count down\n3. it stops at ten"}),
    };
    for (name, call, remember) in
        [("fetch", fetch, "WebFetch(domain:docs.rs)"), ("mcp", mcp, "mcp__github__create_issue")]
    {
        for width in [40u16, 80, 120] {
            let mut a = app();
            ask(&mut a, call.clone(), vec![remember.into()], false);
            let s = screen_sized(&mut a, width, 30);
            assert!(s.contains("1. Yes") && s.contains("3. No"), "{name} at {width}\n{s}");
            insta::assert_snapshot!(format!("{name}_{width}"), s);
        }
    }
}

/// At 60×20 the dialog shows a few lines of a long command: paging down then up brings
/// every one of them into view (a page is what the window shows, not a fixed 10).
#[test]
fn every_line_of_a_long_subject_can_be_paged_into_view_at_60_by_20() {
    let script: String = (1..=45).map(|i| format!("echo step-{i:02}\n")).collect();
    let mut a = app();
    ask(&mut a, bash(&script), Vec::new(), false);
    let mut seen = std::collections::BTreeSet::new();
    let page_down = ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::PageDown);
    for _ in 0..45 {
        let s = screen_sized(&mut a, 60, 20);
        for i in 1..=45 {
            if s.contains(&format!("echo step-{i:02}")) {
                seen.insert(i);
            }
        }
        a.on_key(page_down);
    }
    let missing: Vec<i32> = (1..=45).filter(|i| !seen.contains(i)).collect();
    assert!(missing.is_empty(), "lines never shown: {missing:?}");
}

/// A call's time leaves out the time its question waited for an answer.
#[test]
fn a_calls_time_leaves_out_its_question() {
    let mut a = app();
    let call = bash("make deploy");
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolStarted(call.clone()))));
    // The question has waited five seconds.
    a.running[0].since = std::time::Instant::now() - std::time::Duration::from_secs(5);
    ask(&mut a, call, Vec::new(), false);
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('1')));
    assert!(a.running[0].since.elapsed() < std::time::Duration::from_secs(1), "the clock kept the wait");
}

/// At 40×12 a question still shows every option, and paging reaches every line of what
/// is asked about.
#[test]
fn at_40_by_12_every_option_shows_and_every_line_is_reachable() {
    let script: String = (1..=17).map(|i| format!("echo line-{i:02}\n")).collect();
    let mut a = app();
    ask(&mut a, bash(&script), vec!["Bash(echo:*)".into()], false);
    let s = screen_sized(&mut a, 40, 12);
    assert!(s.contains("1. Yes") && s.contains("3. No"), "{s}");
    assert!(s.contains("Bash command") && s.contains("echo line-01"), "the title and the subject show:\n{s}");
    assert!(s.lines().next().is_some_and(|l| l.starts_with('╭')), "the box's top is on screen:\n{s}");
    let mut seen = std::collections::BTreeSet::new();
    let page_down = ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::PageDown);
    for _ in 0..20 {
        let s = screen_sized(&mut a, 40, 12);
        assert!(s.contains("1. Yes"), "an option went out of view:\n{s}");
        for i in 1..=17 {
            if s.contains(&format!("echo line-{i:02}")) {
                seen.insert(i);
            }
        }
        a.on_key(page_down);
    }
    let missing: Vec<i32> = (1..=17).filter(|i| !seen.contains(i)).collect();
    assert!(missing.is_empty(), "lines never shown at 40×12: {missing:?}");
}

/// At 60×20 every line of an 81-line diff can be paged into view.
#[test]
fn every_line_of_an_81_line_diff_can_be_paged_into_view_at_60_by_20() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.txt");
    let old: String = (1..=81).map(|i| format!("old {i:02}\n")).collect();
    std::fs::write(&file, &old).unwrap();
    let new: String = (1..=81).map(|i| format!("new {i:02}\n")).collect();
    let edit = ToolUse {
        id: "e".into(),
        name: "Edit".into(),
        input: json!({"file_path": file.display().to_string(), "old_string": old, "new_string": new}),
    };
    let mut a = app();
    a.project_root = dir.path().to_path_buf();
    ask(&mut a, edit, Vec::new(), true);
    let mut seen = std::collections::BTreeSet::new();
    let page_down = ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::PageDown);
    for _ in 0..80 {
        let s = screen_sized(&mut a, 60, 20);
        for i in 1..=81 {
            if s.contains(&format!("new {i:02}")) {
                seen.insert(i);
            }
        }
        a.on_key(page_down);
    }
    let missing: Vec<i32> = (1..=81).filter(|i| !seen.contains(i)).collect();
    assert!(missing.is_empty(), "diff lines never shown at 60×20: {missing:?}");
}

/// A question with its answer channel, for tests that read the answer.
fn ask_bash(a: &mut App, command: &str) -> oneshot::Receiver<rein_session::events::Answer> {
    let (reply, answer) = oneshot::channel();
    a.on_question(question(bash(command), "No rule allows it.", reply));
    answer
}

pub(crate) fn press(a: &mut App, code: ratatui::crossterm::event::KeyCode) {
    a.on_key(ratatui::crossterm::event::KeyEvent::from(code));
}

/// A subject taller than its box reads like a page: ↓ scrolls it before it moves the
/// choice, ↑ moves the choice back and then scrolls, and Enter turns the page until the
/// last line has been on screen — only then does it answer.
#[test]
fn enter_cannot_approve_lines_never_shown_and_the_arrows_scroll() {
    use ratatui::crossterm::event::KeyCode;
    let script: String = (1..=30).map(|i| format!("echo step-{i:02}\n")).collect();
    let mut a = app();
    let mut answer = ask_bash(&mut a, &script);
    let first = screen_sized(&mut a, 60, 20);
    assert!(first.contains("step-01") && !first.contains("step-30"), "{first}");
    // ↓ scrolls by a line; ↑ (the choice is the first) scrolls back.
    press(&mut a, KeyCode::Down);
    let s = screen_sized(&mut a, 60, 20);
    assert!(!s.contains("step-01") && s.contains("step-02") && s.contains("❯ 1. Yes"), "{s}");
    press(&mut a, KeyCode::Up);
    assert!(screen_sized(&mut a, 60, 20).contains("step-01"));
    // Enter turns pages; the answer comes only after the last line was shown.
    let mut seen = std::collections::BTreeSet::new();
    let mut answered = false;
    for _ in 0..30 {
        let s = screen_sized(&mut a, 60, 20);
        seen.extend((1..=30).filter(|i| s.contains(&format!("step-{i:02}"))));
        press(&mut a, KeyCode::Enter);
        if let Ok(got) = answer.try_recv() {
            assert!(got.allow);
            answered = true;
            break;
        }
        assert!(a.modals.asking(), "the question closed without an answer");
    }
    assert!(answered, "Enter never answered");
    let missing: Vec<usize> = (1..=30).filter(|i| !seen.contains(i)).collect();
    assert!(missing.is_empty(), "approved with lines never shown: {missing:?}");
}

/// Past the subject's end ↓ moves the choice; Enter then takes it.
#[test]
fn the_arrows_reach_the_options_after_the_subject() {
    use ratatui::crossterm::event::KeyCode;
    let script: String = (1..=30).map(|i| format!("echo step-{i:02}\n")).collect();
    let mut a = app();
    let mut answer = ask_bash(&mut a, &script);
    // Down to the subject's last line (its description), the choice unmoved.
    for _ in 0..40 {
        let s = screen_sized(&mut a, 60, 20);
        if s.contains("Run the tests") {
            break;
        }
        assert!(s.contains("❯ 1. Yes"), "{s}");
        press(&mut a, KeyCode::Down);
    }
    press(&mut a, KeyCode::Down);
    let s = screen_sized(&mut a, 60, 20);
    assert!(s.contains("step-30") && s.contains("❯ 3. No"), "{s}");
    press(&mut a, KeyCode::Enter);
    assert!(!answer.try_recv().expect("answered").allow);
}

/// Keys typed on while a question appears answer nothing: they go to the draft under
/// it, and the question says so. After a pause the person's key answers.
#[test]
fn keys_typed_as_a_question_appears_go_to_the_draft() {
    use ratatui::crossterm::event::KeyCode;
    let mut a = app();
    a.answer_pause = std::time::Duration::from_secs(30);
    a.composer.insert("fix ");
    let mut answer = ask_bash(&mut a, "rm -rf build");
    for c in "y1a".chars() {
        press(&mut a, KeyCode::Char(c));
    }
    press(&mut a, KeyCode::Enter);
    assert!(answer.try_recv().is_err(), "a typed-on key answered the question");
    assert!(a.modals.asking());
    assert_eq!(a.composer.text(), "fix y1a");
    assert_eq!(a.policy.get().mode, rein_policy::PermissionMode::Default, "`a` switched the mode");
    let s = screen_sized(&mut a, 80, 24);
    assert!(s.contains("4 keys typed as this appeared went to your draft"), "{s}");
    // Esc refuses at once, whatever the timing.
    press(&mut a, KeyCode::Esc);
    assert!(!answer.try_recv().expect("refused").allow);
}

/// At 40×12, keys held back as the question appeared are said, and every option and a
/// line of the subject still show; a one-line command shows whole.
#[test]
fn at_40_by_12_the_held_back_keys_are_said_and_nothing_is_pushed_out() {
    use ratatui::crossterm::event::KeyCode;
    let mut a = app();
    a.answer_pause = std::time::Duration::from_secs(30);
    let _answer = ask_bash(&mut a, "touch z.txt");
    press(&mut a, KeyCode::Char('y'));
    press(&mut a, KeyCode::Enter);
    let s = screen_sized(&mut a, 40, 12);
    assert!(s.contains("touch z.txt") && s.contains("Bash command"), "{s}");
    assert!(s.contains("1. Yes") && s.contains("3. No") && s.contains("4. Yes"), "{s}");
    assert!(s.contains("typed as this"), "{s}");
    assert!(s.lines().count() <= 12);
}

/// A note says which option Enter sends it with; a note on "No" refuses with it.
#[test]
fn a_note_names_the_option_it_goes_with() {
    use ratatui::crossterm::event::KeyCode;
    let mut a = app();
    let mut answer = ask_bash(&mut a, "npm install");
    screen_sized(&mut a, 100, 24);
    press(&mut a, KeyCode::Down);
    press(&mut a, KeyCode::Tab);
    for c in "use npm ci".chars() {
        press(&mut a, KeyCode::Char(c));
    }
    let s = screen_sized(&mut a, 100, 24);
    assert!(s.contains("✎ use npm ci▏  (enter: 3. No"), "{s}");
    press(&mut a, KeyCode::Enter);
    let got = answer.try_recv().expect("answered");
    assert!(!got.allow);
    assert_eq!(got.message.as_deref(), Some("use npm ci"));
}
