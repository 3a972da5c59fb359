//! What a person trying rein in a terminal found (issue 53's "not yet tried" items):
//! each test is one thing they did, at the size they did it.

use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

use crate::common::{Env, serve};
use crate::tui_glance::wait_until;
use crate::tui_pane::Pane;

/// A status line that is long, coloured and two rows tall: its colours are drawn (no
/// `[32m` junk), it is cut with `…` to the window, and the mode stays in view below it,
/// changing as the mode changes.
#[test]
fn a_long_coloured_status_line_keeps_the_mode_in_view() {
    let env = Env::new();
    let long = "x".repeat(150);
    let script = format!("printf '\\033[32mGREEN\\033[0m {long}\\nsecond row\\n'");
    env.write(".claude/settings.json", &json!({"statusLine": {"type": "command", "command": script}}).to_string());
    env.trust();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start_untrusted_sized(&env, &server, "", &[], (60, 20));
    let screen = wait_until(&pane, "the status line's two rows", |s| s.contains("GREEN x") && s.contains("second row"));
    assert!(!screen.contains("[32m") && !screen.contains("[0m"), "escape junk:\n{screen}");
    assert!(screen.contains("manual mode on"), "the mode is hidden:\n{screen}");
    let row = screen.lines().find(|l| l.contains("GREEN")).unwrap_or_default();
    assert!(row.ends_with('…') && row.chars().count() <= 60, "not cut to the window: {row:?}");
    pane.keys(&["BTab"]);
    pane.wait_for("accept edits on");
}

/// While a subagent works, its calls show under the Agent call (named by its type),
/// and the finished call says how many it made.
#[test]
fn a_subagents_calls_show_while_it_works() {
    let env = Env::new();
    env.write(".claude/agents/scout.md", "---\nname: scout\ndescription: Looks around\n---\nYou look around.\n");
    env.write(".claude/settings.json", &json!({"permissions": {"allow": ["Bash(sleep 3)"]}}).to_string());
    let server = serve(Scenario::new([
        reply([call("a", "Agent", json!({"description": "survey", "prompt": "Look", "subagent_type": "scout"}))]),
        reply([call("g", "Glob", json!({"pattern": "**/*.toml"}))]),
        reply([call("s", "Bash", json!({"command": "sleep 3"}))]),
        reply([text("Nothing much.")]),
        reply([text("The scout found nothing.")]),
    ]));
    let pane = Pane::start(&env, &server, &["'look around'"]);
    let screen = wait_until(&pane, "the subagent's calls under its call", |s| {
        s.contains("scout(survey)") && s.contains("Search(pattern: \"**/*.toml\")") && s.contains("Bash(sleep 3)")
    });
    assert!(!screen.contains("The scout found nothing."), "{screen}");
    let screen = pane.wait_for("The scout found nothing.");
    assert!(screen.contains("scout(survey) (2 tool uses"), "{screen}");
}

/// Ctrl+G with an editor that fails says so and keeps the draft as it was.
#[test]
fn an_editor_that_fails_is_reported_and_the_draft_kept() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start_with(&env, &server, "EDITOR=false", &[]);
    pane.wait_for("manual mode on");
    pane.type_text("my draft");
    pane.keys(&["C-g"]);
    let screen = pane.wait_for("The editor (false) ended with");
    let draft = screen.lines().rev().find(|l| l.starts_with('❯')).unwrap_or_default();
    assert!(draft.contains("my draft"), "{screen}");
}

/// Ctrl+V without a clipboard tool: the whole message stays in the scrollback, saying
/// what to install.
#[test]
fn ctrl_v_without_a_clipboard_tool_says_what_to_install() {
    let env = Env::new();
    let bin = env.home.path().join("only-sh");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink("/bin/sh", bin.join("sh")).unwrap();
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.trust();
    let pane = Pane::start_untrusted_sized(&env, &server, &format!("PATH='{}'", bin.display()), &[], (60, 20));
    pane.wait_for("manual mode on");
    pane.keys(&["C-v"]);
    let screen = wait_until(&pane, "the whole message", |s| s.contains("wl-paste") && s.contains("xclip"));
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert_eq!(pane.screen(), screen, "the message went away");
}

/// A mode key rebound in keybindings.json: the hints name the new key, and the old one
/// no longer changes the mode.
#[test]
fn hints_name_the_key_the_person_bound() {
    let env = Env::new();
    let bindings =
        json!({"bindings": [{"context": "Chat", "bindings": {"ctrl+y": "chat:cycleMode", "shift+tab": null}}]});
    std::fs::create_dir_all(env.home.path().join(".claude")).unwrap();
    std::fs::write(env.home.path().join(".claude/keybindings.json"), bindings.to_string()).unwrap();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start(&env, &server, &[]);
    let screen = pane.wait_for("manual mode on");
    assert!(screen.contains("ctrl+y changes the mode") && screen.contains("(ctrl+y to cycle)"), "{screen}");
    assert!(!screen.contains("shift+tab"), "{screen}");
    pane.keys(&["BTab"]);
    pane.keys(&["C-y"]);
    let screen = pane.wait_for("accept edits on");
    assert!(!screen.contains("plan mode on"), "shift+tab still changed the mode:\n{screen}");
}

/// `/add-dir ~` adds the home folder with a warning; adding it again says it is already
/// in reach; `/status` lists it.
#[test]
fn add_dir_expands_the_home_folder_and_says_what_is_in_reach() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start_untrusted_sized(&env, &server, "", &[], (60, 20));
    pane.keys(&["1"]);
    pane.wait_for("manual mode on");
    let home = std::fs::canonicalize(env.home.path()).unwrap();
    pane.type_text("/add-dir ~");
    pane.keys(&["Enter"]);
    pane.wait_for("holds far more than a project");
    pane.type_text("/add-dir ~");
    pane.keys(&["Enter"]);
    pane.wait_for("already in reach");
    pane.type_text("/status");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Folders added:");
    assert!(screen.replace('\n', "").contains(&home.display().to_string()), "{screen}");
}

/// `/help` names every key, the descriptions wrapping under their own column.
#[test]
fn help_lists_the_keys_in_two_columns() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.trust();
    let pane = Pane::start_untrusted_sized(&env, &server, "", &[], (60, 20));
    pane.wait_for("manual mode on");
    pane.type_text("/help");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("suspend rein");
    for key in ["ctrl+g", "ctrl+v", "ctrl+r", "ctrl+o", "ctrl+t", "ctrl+l"] {
        assert!(screen.contains(key), "{key} is missing:\n{screen}");
    }
    // A wrapped description goes on under its column, not at the margin.
    let rows: Vec<&str> = screen.lines().collect();
    let at = rows.iter().position(|r| r.trim_start().starts_with("/output-style")).expect("/output-style listed");
    let name_end = rows[at].find("/output-style").unwrap_or(0) + "/output-style".len();
    let column = name_end + rows[at][name_end..].len() - rows[at][name_end..].trim_start().len();
    let next = rows[at + 1];
    let continues_in_its_column = next.starts_with(&" ".repeat(column)) && !next.trim().is_empty();
    assert!(continues_in_its_column || next.trim_start().starts_with('/'), "{screen}");
}

/// `/output-style` is a list to pick from; the choice is saved for the next sessions
/// and shown as such, and rein's own write to the settings is not reported back as a
/// change someone made.
#[test]
fn output_style_is_picked_from_a_list_and_its_write_is_not_a_surprise() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("First.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("/output-style");
    pane.keys(&["Enter"]);
    pane.wait_for("Output style (↑↓ enter, esc)");
    pane.keys(&["Down"]);
    pane.keys(&["Enter"]);
    pane.wait_for("Output style set to Explanatory");
    pane.type_text("hello");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("First.");
    assert!(!screen.contains("changed; rein reads settings"), "rein's own write was reported:\n{screen}");
    pane.type_text("/output-style");
    pane.keys(&["Enter"]);
    pane.wait_for("Explanatory (next sessions)");
}
