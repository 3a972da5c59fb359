//! Snapshots of the live area, drawn into ratatui's `TestBackend` from engine events, at
//! 40 and 80 columns: the input box and footer, the spinner with a running call, the
//! permission dialog, the accept-edits footer.

use std::path::PathBuf;

use ratatui::backend::TestBackend;
use ratatui::{Terminal, TerminalOptions, Viewport};
use rein_policy::{Behavior, Decision, PermissionMode, Policy, SharedPolicy};
use rein_protocol::ToolUse;
use rein_session::events::EngineEvent;
use serde_json::json;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::app::App;
use crate::approver::Question;
use crate::view;
use crate::worker::FromEngine;

fn app() -> App {
    let (tx, _rx) = mpsc::unbounded_channel();
    let policy = SharedPolicy::new(Policy::allow_all(PathBuf::from("/w")));
    policy.set_mode(PermissionMode::Default, "test");
    let mut app = App::new(PathBuf::from("/w"), PathBuf::from("/w"), "claude-test".into(), policy, tx);
    // Keys answer at once here (the pause before an answer has its own tmux test).
    app.answer_pause = std::time::Duration::ZERO;
    app
}

fn screen(app: &mut App, width: u16) -> String {
    screen_sized(app, width, 14)
}

fn bash(command: &str) -> ToolUse {
    ToolUse { id: "b".into(), name: "Bash".into(), input: json!({"command": command, "description": "Run the tests"}) }
}

#[test]
fn idle_input_box_and_footer() {
    let mut a = app();
    a.composer.insert("fix the failing test");
    insta::assert_snapshot!("idle_80", screen(&mut a, 80));
    a.policy.set_mode(PermissionMode::AcceptEdits, "test");
    insta::assert_snapshot!("accept_edits_40", screen(&mut a, 40));
}

#[test]
fn a_running_call_shows_with_the_spinner() {
    let mut a = app();
    a.on_engine(FromEngine::Started(CancellationToken::new()));
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolStarted(bash("npm test")))));
    let s = screen(&mut a, 80);
    assert!(s.contains("⏺ Bash(npm test) (0s)"), "{s}");
    assert!(s.contains("Working… (0s · ↓ 0 tokens)"), "{s}");
    assert!(s.contains("esc to interrupt"), "{s}");
}

#[test]
fn the_permission_dialog() {
    for width in [80u16, 40] {
        let mut a = app();
        let (reply, _answer) = oneshot::channel();
        a.on_question(Question {
            call: bash("npm test"),
            decision: Decision::new(
                Behavior::Ask,
                "This command needs approval: no rule allows `npm test`.",
                "default",
            ),
            remember: vec!["Bash(npm test *)".into()],
            edits: false,
            progress: Vec::new(),
            ticked: Vec::new(),
            checked: Vec::new(),
            network: false,
            reply,
        });
        insta::assert_snapshot!(format!("dialog_{width}"), screen(&mut a, width));
    }
}

/// The history lines a sequence of engine events produces, as text.
fn history(a: &mut App) -> String {
    a.pending
        .take()
        .into_iter()
        .filter(|(_, to)| *to != crate::out::Where::Log)
        .map(|(l, _)| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

fn finished(a: &mut App, call: ToolUse, output: &str, is_error: bool) {
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolStarted(call.clone()))));
    let result = rein_protocol::ContentBlock::tool_result(&call.id, output, is_error);
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolFinished { call, result, saved: None })));
}

#[test]
fn a_streamed_answer_with_code() {
    let mut a = app();
    for delta in ["# Plan\nRun `cargo test` first", ".\n```rust\nfn main() {\n", "    println!(\"hi\");\n}\n```\nDone."]
    {
        a.on_engine(FromEngine::Event(Box::new(EngineEvent::Stream(rein_session::events::StreamDelta::Text {
            index: 0,
            text: delta.into(),
        }))));
    }
    a.on_engine(FromEngine::Finished(Box::new(outcome())));
    insta::assert_snapshot!("streamed_answer", history(&mut a));
}

fn outcome() -> rein_session::events::Outcome {
    rein_session::events::Outcome {
        end: rein_session::events::End::Completed,
        num_turns: 1,
        usage: Default::default(),
        cost_usd: 0.0,
        api_duration: Default::default(),
        result_text: String::new(),
        stop_reason: None,
        permission_denials: Vec::new(),
    }
}

#[test]
fn tool_summaries() {
    let mut a = app();
    let t = |name: &str, input: serde_json::Value| ToolUse { id: name.into(), name: name.into(), input };
    finished(&mut a, t("Read", json!({"file_path": "/w/src/lib.rs"})), "     1\tuse x;\n     2\tfn a() {}\n", false);
    finished(&mut a, t("Write", json!({"file_path": "/w/notes.md", "content": "a\nb\nc\n"})), "Created", false);
    finished(
        &mut a,
        t("Grep", json!({"pattern": "TODO", "output_mode": "content"})),
        "a.rs:1:TODO\nb.rs:9:TODO",
        false,
    );
    finished(&mut a, t("Glob", json!({"pattern": "**/*.rs"})), "/w/a.rs\n/w/b.rs\n/w/c.rs", false);
    finished(&mut a, t("Bash", json!({"command": "false"})), "Exit code 1", true);
    let todos = json!({"todos": [
        {"content": "Fix the parser", "status": "completed", "activeForm": "Fixing"},
        {"content": "Add a test", "status": "in_progress", "activeForm": "Adding"},
        {"content": "Update docs", "status": "pending", "activeForm": "Updating"}]});
    finished(&mut a, t("TodoWrite", todos), "ok", false);
    insta::assert_snapshot!("tool_summaries", history(&mut a));
}

#[test]
fn slash_command_outputs() {
    let mut a = app();
    for command in ["/help", "/status", "/cost", "/model", "/nope"] {
        a.submit(command.to_string());
    }
    insta::assert_snapshot!("slash_outputs", history(&mut a));
}

fn screen_sized(app: &mut App, width: u16, rows: u16) -> String {
    let backend = TestBackend::new(width, rows);
    let mut term = Terminal::with_options(
        backend,
        TerminalOptions { viewport: Viewport::Fixed(ratatui::layout::Rect::new(0, 0, width, rows)) },
    )
    .unwrap();
    term.draw(|f| view::draw(app, f)).unwrap();
    let buf = term.backend().buffer().clone();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>().trim_end().to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ask(a: &mut App, call: ToolUse, remember: Vec<String>, edits: bool) {
    let (reply, _answer) = oneshot::channel();
    std::mem::forget(_answer);
    a.on_question(Question {
        call,
        decision: Decision::new(Behavior::Ask, "No rule allows it.", "default"),
        remember,
        edits,
        progress: Vec::new(),
        ticked: Vec::new(),
        checked: Vec::new(),
        network: false,
        reply,
    });
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
            assert!(s.contains("pgup/pgdn"), "{name} at {width}: the position shows\n{s}");
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

#[test]
fn ask_user_question_takes_several_answers_and_goes_back() {
    let mut a = app();
    let (reply, answer) = oneshot::channel();
    let input = json!({"questions": [
        {"question": "Which colour do you want for the new theme? It is a long question that wraps.", "header": "Colour", "multiSelect": false,
         "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]},
        {"question": "Which platforms?", "header": "Platforms", "multiSelect": true,
         "options": [{"label": "Linux"}, {"label": "macOS"}, {"label": "Windows"}]}]});
    a.on_question(Question {
        call: ToolUse { id: "q".into(), name: "AskUserQuestion".into(), input },
        decision: Decision::new(Behavior::Ask, "", "default"),
        remember: Vec::new(),
        edits: false,
        progress: Vec::new(),
        ticked: Vec::new(),
        checked: Vec::new(),
        network: false,
        reply,
    });
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

/// A call of a parallel batch that finished stops its clock while its siblings run.
#[test]
fn a_finished_parallel_call_stops_ticking() {
    let mut a = app();
    a.on_engine(FromEngine::Started(CancellationToken::new()));
    let grep = ToolUse { id: "g".into(), name: "Grep".into(), input: json!({"pattern": "x"}) };
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolStarted(bash("sleep 5")))));
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolStarted(grep))));
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolDone { id: "g".into() })));
    let s = screen(&mut a, 80);
    assert!(s.contains("Search(pattern: \"x\") (done in 0.0s)"), "{s}");
    assert!(s.contains("Bash(sleep 5) (0s)"), "{s}");
}

/// The model's task list shows under the spinner while it works; Ctrl+T hides it.
#[test]
fn the_task_list_shows_while_working_and_ctrl_t_hides_it() {
    let mut a = app();
    a.on_engine(FromEngine::Started(CancellationToken::new()));
    let todos = json!({"todos": [
        {"content": "Fix the parser", "status": "completed", "activeForm": "Fixing"},
        {"content": "Add a test", "status": "in_progress", "activeForm": "Adding"}]});
    finished(&mut a, ToolUse { id: "t".into(), name: "TodoWrite".into(), input: todos }, "ok", false);
    let s = screen(&mut a, 80);
    assert!(s.contains("⎿  ☒ Fix the parser") && s.contains("☐ Add a test"), "{s}");
    a.on_key(ratatui::crossterm::event::KeyEvent::new(
        ratatui::crossterm::event::KeyCode::Char('t'),
        ratatui::crossterm::event::KeyModifiers::CONTROL,
    ));
    assert!(!screen(&mut a, 80).contains("Add a test"));
}

/// Two questions at once (parallel calls): the second waits its turn instead of
/// replacing the first, and each gets the person's own answer.
#[test]
fn a_second_question_waits_for_the_first() {
    let mut a = app();
    let (first_reply, mut first) = oneshot::channel();
    let (second_reply, mut second) = oneshot::channel();
    for (command, reply) in [("touch one", first_reply), ("touch two", second_reply)] {
        a.on_question(Question {
            call: bash(command),
            decision: Decision::new(Behavior::Ask, "ask", "default"),
            remember: Vec::new(),
            edits: false,
            progress: Vec::new(),
            ticked: Vec::new(),
            checked: Vec::new(),
            network: false,
            reply,
        });
    }
    let s = screen_sized(&mut a, 80, 24);
    assert!(s.contains("touch one") && !s.contains("touch two"), "{s}");
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('1')));
    assert!(first.try_recv().unwrap().allow);
    assert!(second.try_recv().is_err(), "not answered yet");
    let s = screen_sized(&mut a, 80, 24);
    assert!(s.contains("touch two"), "{s}");
    // A letter answers nothing; a number does.
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('y')));
    assert!(second.try_recv().is_err(), "a letter answered");
    a.on_key(ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Char('1')));
    assert!(second.try_recv().unwrap().allow);
}

/// A long prompt wraps at word boundaries in the input box, the cursor where it is.
#[test]
fn the_prompt_wraps_at_words() {
    let mut a = app();
    a.composer.insert("please make sure the parser handles an eighty column terminal width nicely");
    let s = screen_sized(&mut a, 40, 12);
    assert!(s.contains("❯ please make sure the parser handles an\n  eighty column terminal width nicely"), "{s}");
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

#[test]
fn a_saved_output_is_shown_whole_not_as_its_preview() {
    let mut a = app();
    let d = tempfile::tempdir().unwrap();
    let saved = d.path().join("saved.txt");
    std::fs::write(&saved, (1..=200_000).map(|i| format!("{i}\n")).collect::<String>()).unwrap();
    let call = bash("seq 1 200000");
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolStarted(call.clone()))));
    let preview = "1\n2\n…\n200000\n\n[Output too large for the context: 200000 lines …]";
    let result = rein_protocol::ContentBlock::tool_result(&call.id, preview, false);
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::ToolFinished { call, result, saved: Some(saved) })));
    let lines = a.pending.take();
    let text = |to: crate::out::Where| -> Vec<String> {
        lines
            .iter()
            .filter(|(_, w)| *w == to)
            .map(|(l, _)| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
            .collect()
    };
    let screen = text(crate::out::Where::Screen).join("\n");
    assert!(screen.contains("+199997 lines"), "{screen}");
    assert!(!screen.contains("too large"), "{screen}");
    let log = text(crate::out::Where::Log);
    assert_eq!(log.len(), 2_000, "the Ctrl+O view keeps the whole output's first 2 000 lines");
    assert_eq!(log[5].trim(), "6");
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

/// After compaction the footer shows the conversation's size now, and says so once.
#[test]
fn compaction_updates_the_footer_and_is_said_once() {
    let mut a = app();
    a.context = Some((150_000, 200_000, 180_000));
    a.on_engine(FromEngine::Event(Box::new(EngineEvent::Compacted {
        trigger: "manual".into(),
        pre_tokens: 150_000,
        post_tokens: 4_000,
    })));
    let s = screen(&mut a, 100);
    assert!(s.contains("2% context used (4.0k/200k)"), "{s}");
    assert!(!s.contains("75%"), "{s}");
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
    a.on_question(Question {
        call: ToolUse { id: "q".into(), name: "AskUserQuestion".into(), input },
        decision: Decision::new(Behavior::Ask, "", "default"),
        remember: Vec::new(),
        edits: false,
        progress: Vec::new(),
        ticked: Vec::new(),
        checked: Vec::new(),
        network: false,
        reply,
    });
    let key = |c| ratatui::crossterm::event::KeyEvent::from(c);
    use ratatui::crossterm::event::KeyCode;
    // Tools: cargo and pip ticked, answered; Platforms: macOS ticked; back; forth.
    a.on_key(key(KeyCode::Char('1')));
    a.on_key(key(KeyCode::Char('3')));
    a.on_key(key(KeyCode::Enter));
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

/// Edit and Write results name a file of the working directory relative to it.
#[test]
fn edit_and_write_results_name_files_relative_to_the_folder() {
    let mut a = app();
    let write = ToolUse {
        id: "w".into(),
        name: "Write".into(),
        input: json!({"file_path": "/w/src/a.rs", "content": "x\ny\n"}),
    };
    finished(&mut a, write, "File written", false);
    let edit = ToolUse {
        id: "e".into(),
        name: "Edit".into(),
        input: json!({"file_path": "/w/src/b.rs", "old_string": "one", "new_string": "two"}),
    };
    finished(&mut a, edit, "ok", false);
    let shown = history(&mut a);
    assert!(shown.contains("Wrote 2 lines to src/a.rs") && shown.contains("Updated src/b.rs"), "{shown}");
    assert!(!shown.contains("/w/src"), "{shown}");
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
