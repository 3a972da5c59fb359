//! The Python Agent SDK's own example programs (from its source distribution, unpacked by
//! scripts/prepare), and programs on the TypeScript SDK written as its documentation shows
//! (fixtures/sdk_examples/ts_examples.mjs), run unchanged with rein as their CLI against the fake model server,
//! print what they print with Claude Code: each case's output is compared with the
//! recording scripts/record-claude-code-sdk made of the real Claude Code running the same
//! program on the same scripted answers (fixtures/sdk_examples/claude_code/), after ids,
//! costs, durations, paths and versions are normalised; the number of model requests
//! (session titles apart) must match too. What differs because rein offers something
//! else (its commands, tools, built-in agents) is listed, with why, in differences.json.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::common::serve;
use rein_testkit::Scenario;
use serde_json::Value;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/sdk_examples")
}

/// Run `name` of cases.json with rein; what it printed, as the recording keeps it.
fn run_with_rein(name: &str) -> Option<String> {
    let python = crate::sdk_python::python()?;
    if name.starts_with("ts.") {
        crate::sdk_typescript::sdk_entry()?;
    }
    let examples = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/sdk-examples");
    if !examples.is_dir() {
        crate::common::unavailable("the Python Agent SDK's examples are not in .ci/sdk-examples");
        return None;
    }
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(fixtures().join("cases.json")).unwrap()).unwrap();
    let case = &cases[name];
    let work = tempfile::tempdir().unwrap();
    let work_path = work.path().canonicalize().unwrap();
    let run = work_path.join("run");
    std::fs::create_dir(&run).unwrap();
    let routed = case.get("routed").cloned().unwrap_or_else(|| serde_json::json!([]));
    let scenario = serde_json::json!({"steps": case["steps"], "routed": routed});
    let scenario = scenario.to_string().replace("{cwd}", run.join("project").to_str().unwrap());
    let server = serve(Scenario::from_json(&scenario).unwrap());
    let out = std::process::Command::new(python)
        .arg(fixtures().join("run.py"))
        .args([name, assert_cmd::cargo::cargo_bin("rein").to_str().unwrap(), &server.url()])
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success(), "run.py {name} failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(format!("requests: {}\n{}", server.requests().len(), String::from_utf8_lossy(&out.stdout)))
}

/// Run `name` with rein and compare: every line that differs from Claude Code's
/// recording must be one differences.json accepts for this case, with its reason (what
/// rein offers differs: its commands, tools, built-in agents), and every accepted line
/// must still differ (a difference that went away is taken off the list).
fn same_as_claude_code(name: &str) {
    let Some(rein) = run_with_rein(name) else { return };
    let recorded = std::fs::read_to_string(fixtures().join("claude_code").join(format!("{name}.txt"))).unwrap();
    let accepted: Value =
        serde_json::from_str(&std::fs::read_to_string(fixtures().join("differences.json")).unwrap()).unwrap();
    let entries = |key: &str| -> Vec<&str> {
        accepted[name]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|d| d[key].as_array().into_iter().flatten().filter_map(Value::as_str))
            .collect()
    };
    // Exact lines, or (for a line that lists all rein offers, which grows with it) the
    // start of one.
    let (lines, starts) = (entries("lines"), entries("starts"));
    let explained = |l: &str| lines.contains(&l) || starts.iter().any(|s| l.starts_with(s));
    let diff = diff_lines(&recorded, &rein);
    let unexplained: Vec<&str> = diff.iter().map(String::as_str).filter(|l| !explained(l)).collect();
    let gone: Vec<&&str> = lines.iter().chain(&starts).filter(|a| !diff.iter().any(|l| l.starts_with(**a))).collect();
    assert!(
        unexplained.is_empty() && gone.is_empty(),
        "{name} prints differently with rein (- Claude Code, + rein):\n{}\n\naccepted in differences.json but no \
         longer different:\n{gone:#?}\n\nrein's whole output:\n{rein}",
        unexplained.join("\n")
    );
}

/// The lines of `a` and `b` that differ, in order (a plain longest-common-subsequence diff).
fn diff_lines(a: &str, b: &str) -> Vec<String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let mut common = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i][j] = if a[i] == b[j] { common[i + 1][j + 1] + 1 } else { common[i + 1][j].max(common[i][j + 1]) };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            (i, j) = (i + 1, j + 1);
        } else if j < b.len() && (i == a.len() || common[i][j + 1] >= common[i + 1][j]) {
            out.push(format!("+ {}", b[j]));
            j += 1;
        } else {
            out.push(format!("- {}", a[i]));
            i += 1;
        }
    }
    out
}

macro_rules! examples {
    ($($test:ident => $case:literal,)*) => {$(
        #[test]
        fn $test() {
            same_as_claude_code($case);
        }
    )*};
}

examples! {
    quick_start => "quick_start",
    system_prompt => "system_prompt",
    tools_option => "tools_option",
    max_budget_usd => "max_budget_usd",
    stderr_callback => "stderr_callback",
    plugin_example => "plugin_example",
    agents => "agents",
    filesystem_agents => "filesystem_agents",
    include_partial_messages => "include_partial_messages",
    mcp_calculator => "mcp_calculator",
    tool_permission_callback => "tool_permission_callback",
    streaming_mode_trio => "streaming_mode_trio",
    streaming_basic => "streaming_mode.basic_streaming",
    streaming_multi_turn => "streaming_mode.multi_turn_conversation",
    streaming_concurrent => "streaming_mode.concurrent_responses",
    streaming_with_interrupt => "streaming_mode.with_interrupt",
    streaming_manual_handling => "streaming_mode.manual_message_handling",
    streaming_with_options => "streaming_mode.with_options",
    streaming_async_iterable_prompt => "streaming_mode.async_iterable_prompt",
    streaming_bash_command => "streaming_mode.bash_command",
    streaming_control_protocol => "streaming_mode.control_protocol",
    streaming_error_handling => "streaming_mode.error_handling",
    setting_sources_default => "setting_sources.default",
    setting_sources_disable_all => "setting_sources.disable_all",
    setting_sources_user_only => "setting_sources.user_only",
    setting_sources_project_and_user => "setting_sources.project_and_user",
    hooks_pre_tool_use => "hooks.PreToolUse",
    hooks_user_prompt_submit => "hooks.UserPromptSubmit",
    hooks_post_tool_use => "hooks.PostToolUse",
    hooks_decision_fields => "hooks.DecisionFields",
    hooks_continue_control => "hooks.ContinueControl",
    ts_one_shot => "ts.one_shot",
    ts_conversation => "ts.conversation",
    ts_permissions => "ts.permissions",
    ts_hooks => "ts.hooks",
    ts_sdk_mcp => "ts.sdk_mcp",
    ts_partial => "ts.partial",
}
