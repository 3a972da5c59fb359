//! `rein doctor` through the binary: every finding with its file and line, and nothing
//! of the folder's runs while it reads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::Env;
use serde_json::json;

#[test]
fn doctor_names_every_finding_with_its_file_and_line() {
    let env = Env::new();
    let settings = env.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&json!({
            "model": "sonnet",
            "spinnerVerbs": ["Pondering"],
            "permissions": {"allow": ["Read"], "someFutureKey": true},
            "hooks": {
                "SessionStart": [{"hooks": [{"type": "command", "command": "touch ran"}]}],
                "TeammateWander": [{"matcher": "x", "hooks": [{"type": "command", "command": "touch ran"}]}]
            }
        }))
        .unwrap(),
    );
    let readme = env.write(".claude/agents/README.md", "# agents\n");
    env.write(".claude/agents/ok.md", "---\nname: ok\ndescription: fine\n---\nOk.");
    env.write(".mcp.json", &json!({"mcpServers": {"db": {"command": "touch", "args": ["mcp-ran"]}}}).to_string());
    let out = env.rein().arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = settings.display();
    let written = std::fs::read_to_string(&settings).unwrap();
    let line = |key: &str| written.lines().position(|l| l.contains(&format!("\"{key}\""))).unwrap() + 1;
    for expected in [
        "not trusted yet".to_string(),
        format!("{file}:{}: `spinnerVerbs`", line("spinnerVerbs")) + " is not supported by rein yet",
        format!("{file}:{}: `permissions.someFutureKey`", line("someFutureKey")) + " is not a settings key rein knows",
        format!("{file}:{}: hook event `TeammateWander` is not one rein knows", line("TeammateWander")),
        format!("{}:1: skipped: no front matter", readme.display()),
        "ok (".to_string(),
        "Explore (".to_string(),
        "db (project): waits for approval".to_string(),
        "Sandbox".to_string(),
    ] {
        assert!(text.contains(&expected), "{expected:?} missing from:\n{text}");
    }
    assert!(!text.contains("`model`"), "model is supported:\n{text}");
    assert!(!env.cwd().join("ran").exists() && !env.cwd().join("mcp-ran").exists(), "doctor ran the folder's code");
    env.trust();
    let out = env.rein().arg("doctor").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("trusted (in "));
}

/// An output style whose front matter does not read is named with why, not dropped
/// in silence.
#[test]
fn a_broken_output_style_is_listed_as_skipped() {
    let env = Env::new();
    env.write(".claude/output-styles/pirate.md", "---\nname: Pirate\ndescription: arr\n\nTalk like a pirate.\n");
    let out = env.rein().arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("pirate.md:1: skipped: the front matter is not closed"), "{text}");
}
