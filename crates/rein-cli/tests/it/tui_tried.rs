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
