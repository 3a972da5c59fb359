//! Hooks read the session's live facts (issue 26): the permission mode as it is when the
//! hook runs (an approved ExitPlanMode in print mode, Shift+Tab in the terminal) and, after
//! `/clear`, the new session's id — in SessionStart (source `clear`) and every hook
//! after it. Real command hooks write their stdin to a file the test reads.

use serde_json::{Value, json};

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};

/// Project settings with a command hook on each of `events` that appends its input to
/// `hook-inputs.jsonl`.
fn record_hooks(env: &Env, events: &[&str]) {
    let hook =
        json!([{"hooks": [{"type": "command", "command": "cat >> hook-inputs.jsonl; echo >> hook-inputs.jsonl"}]}]);
    let hooks: serde_json::Map<String, Value> = events.iter().map(|e| (e.to_string(), hook.clone())).collect();
    env.write(".claude/settings.json", &json!({"hooks": hooks}).to_string());
}

fn inputs(env: &Env) -> Vec<Value> {
    let text = std::fs::read_to_string(env.cwd().join("hook-inputs.jsonl")).unwrap_or_default();
    text.lines().filter(|l| !l.trim().is_empty()).filter_map(|l| serde_json::from_str(l).ok()).collect()
}

fn facts(inputs: &[Value]) -> Vec<(String, String)> {
    inputs
        .iter()
        .map(|i| {
            let event = i["hook_event_name"].as_str().unwrap_or_default();
            let tool = i["tool_name"].as_str().map(|t| format!(" {t}")).unwrap_or_default();
            (format!("{event}{tool}"), i["permission_mode"].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
fn in_print_mode_hooks_see_the_mode_an_approved_plan_left() {
    let env = Env::new();
    record_hooks(&env, &["UserPromptSubmit", "PreToolUse"]);
    env.write("notes.txt", "plan notes\n");
    let server = serve(Scenario::new([
        reply([call("p", "ExitPlanMode", json!({"plan": "read the notes"}))]),
        reply([call("r", "Read", json!({"file_path": env.cwd().join("notes.txt")}))]),
        reply([text("read them")]),
    ]));
    // The plan is approved by a permission prompt tool (a real MCP server).
    let Some(py) = crate::mcp_python::python() else { return };
    let markers = tempfile::tempdir().unwrap();
    let probe = crate::mcp_python::probe();
    let config = json!({"mcpServers": {"probe": {"command": py, "args": [probe, markers.path(), "stdio"]}}});
    let out = env
        .rein_at(&server)
        .args(["-p", "plan then read", "--permission-mode", "plan", "--mcp-config", &config.to_string()])
        .args(["--permission-prompt-tool", "mcp__probe__approve"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = facts(&inputs(&env));
    let want = [("UserPromptSubmit", "plan"), ("PreToolUse ExitPlanMode", "plan"), ("PreToolUse Read", "default")];
    let want: Vec<(String, String)> = want.iter().map(|(e, m)| (e.to_string(), m.to_string())).collect();
    assert_eq!(seen, want);
}

#[test]
fn in_the_terminal_hooks_see_shift_tab_and_clear_gives_them_the_new_session() {
    let env = Env::new();
    record_hooks(&env, &["SessionStart", "UserPromptSubmit"]);
    let server = serve(Scenario::new([reply([text("One.")]), reply([text("Two.")]), reply([text("Three.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("first");
    pane.keys(&["Enter"]);
    pane.wait_for("One.");
    pane.keys(&["BTab"]);
    pane.wait_for("accept edits on");
    pane.type_text("second");
    pane.keys(&["Enter"]);
    pane.wait_for("Two.");
    pane.type_text("/clear");
    pane.keys(&["Enter"]);
    pane.wait_for("Started a new session");
    pane.type_text("third");
    pane.keys(&["Enter"]);
    pane.wait_for("Three.");
    let all = inputs(&env);
    let seen = facts(&all);
    let want = [
        ("SessionStart", "default"),
        ("UserPromptSubmit", "default"),
        ("UserPromptSubmit", "acceptEdits"),
        ("SessionStart", "acceptEdits"),
        ("UserPromptSubmit", "acceptEdits"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(e, m)| (e.to_string(), m.to_string())).collect();
    assert_eq!(seen, want, "{all:?}");
    assert_eq!(all[3]["source"], "clear");
    let (first, cleared) = (&all[0]["session_id"], &all[3]["session_id"]);
    assert_eq!(all[1]["session_id"], *first);
    assert_eq!(all[2]["session_id"], *first);
    assert_ne!(cleared, first, "SessionStart after /clear carries the new session's id");
    assert_eq!(all[4]["session_id"], *cleared, "the hooks after it too");
    assert!(all[4]["transcript_path"].as_str().unwrap().contains(cleared.as_str().unwrap()), "{:?}", all[4]);
}
