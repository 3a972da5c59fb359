//! `rein demo`: the offline main job.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, json_lines};

#[test]
fn demo_runs_offline_with_the_scripted_model_and_real_tools() {
    let env = Env::new();
    let out = env.rein().arg("demo").assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("The model is SCRIPTED"), "{stdout}");
    for call in ["⏺ Glob(", "⏺ Grep(", "⏺ Read(", "⏺ Edit(", "⏺ Bash("] {
        assert!(stdout.contains(call), "missing {call} in {stdout}");
    }
    // Real tool output, not canned text: the grep hit carries a real line number.
    assert!(stdout.contains("src/stockroom.py:15"), "{stdout}");
    // The fix was really applied and the real test suite (now 4 tests) passes.
    assert!(stdout.contains("Ran 4 tests") && stdout.contains("Fixed `Stockroom.remove`"), "{stdout}");
    // It tried to push, and the permission engine refused.
    assert!(stdout.contains("⏺ Bash(command: \"git push origin main\"") && stdout.contains("⊘  refused"), "{stdout}");
    assert!(stdout.contains("I did not push"), "{stdout}");
    assert!(stdout.contains("7 model turns, 8 tool calls"), "{stdout}");
    // The summary tells what the tools returned: the four files Glob listed and the two
    // TODOs Grep found.
    assert!(stdout.contains("The project has 4 files."), "{stdout}");
    assert!(stdout.contains("`src/stockroom.py:15`") && stdout.contains("`src/report.py:"), "{stdout}");
    assert!(!stdout.contains("- none"), "{stdout}");
}

#[test]
fn demo_speaks_stream_json_too() {
    let env = Env::new();
    let out = env.rein().args(["demo", "--output-format", "stream-json"]).assert().success();
    let lines = json_lines(&out.get_output().stdout);
    assert_eq!(lines.first().unwrap()["subtype"], "init");
    assert_eq!(lines.first().unwrap()["model"], "rein-scripted-demo");
    let result = lines.last().unwrap();
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["num_turns"], 7);
    assert_eq!(result["permission_denials"][0]["tool_input"]["command"], "git push origin main");
}
