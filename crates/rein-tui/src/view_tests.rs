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

pub(crate) fn app() -> App {
    let (tx, _rx) = mpsc::unbounded_channel();
    let policy = SharedPolicy::new(Policy::allow_all(PathBuf::from("/w")));
    policy.set_mode(PermissionMode::Default, "test");
    let mut app = App::new(PathBuf::from("/w"), PathBuf::from("/w"), "claude-test".into(), policy, tx);
    // Keys answer at once here (the pause before an answer has its own tmux test).
    app.answer_pause = std::time::Duration::ZERO;
    app
}

pub(crate) fn screen(app: &mut App, width: u16) -> String {
    screen_sized(app, width, 14)
}

/// A question about `call`, asked for `reason`; its answer goes to `reply`.
pub(crate) fn question(call: ToolUse, reason: &str, reply: oneshot::Sender<rein_session::events::Answer>) -> Question {
    Question {
        call,
        decision: Decision::new(Behavior::Ask, reason, "default"),
        remember: Vec::new(),
        edits: false,
        progress: Vec::new(),
        ticked: Vec::new(),
        checked: Vec::new(),
        undone: Vec::new(),
        network: false,
        reply,
    }
}

pub(crate) fn bash(command: &str) -> ToolUse {
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
        let reason = "This command needs approval: no rule allows `npm test`.";
        let remember = vec!["Bash(npm test *)".into()];
        a.on_question(Question { remember, ..question(bash("npm test"), reason, reply) });
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

pub(crate) fn screen_sized(app: &mut App, width: u16, rows: u16) -> String {
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

/// A long prompt wraps at word boundaries in the input box, the cursor where it is.
#[test]
fn the_prompt_wraps_at_words() {
    let mut a = app();
    a.composer.insert("please make sure the parser handles an eighty column terminal width nicely");
    let s = screen_sized(&mut a, 40, 12);
    assert!(s.contains("❯ please make sure the parser handles an\n  eighty column terminal width nicely"), "{s}");
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
