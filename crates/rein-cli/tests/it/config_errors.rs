//! Configuration that does not parse stops rein at start, naming the file and line,
//! before any request is made (a hook's `if` rule); names rein does not know (a newer
//! Claude Code's hook event) and definitions it cannot read are named and skipped.

use crate::common::{Env, serve};
use rein_testkit::{FakeServer, Scenario, reply, text};
use serde_json::json;

/// Run a prompt; (exit code, stderr).
fn run(env: &Env, server: &FakeServer) -> (Option<i32>, String) {
    let out = env.rein_at(server).args(["-p", "go"]).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn hook(command: &str) -> serde_json::Value {
    json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}])
}

/// A hook event rein does not know (a newer Claude Code's) is named with its file and
/// line and skipped; rein starts, and the other hooks still run.
#[test]
fn an_unknown_hook_event_is_named_and_skipped() {
    let env = Env::new();
    let marker = env.cwd().join("started.txt");
    let start = json!([{"hooks": [{"type": "command", "command": format!("touch '{}'", marker.display())}]}]);
    let settings =
        serde_json::to_string_pretty(&json!({"hooks": {"PreToolUsee": hook("true"), "SessionStart": start}})).unwrap();
    let path = env.write(".claude/settings.json", &settings);
    let line = settings.lines().position(|l| l.contains("PreToolUsee")).unwrap() + 1;
    let server = serve(Scenario::new([reply([text("hi")])]));
    let (code, stderr) = run(&env, &server);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains(&format!("{}:{line}", path.display())), "{stderr}");
    assert!(stderr.contains("`PreToolUsee`") && stderr.contains("skipped"), "{stderr}");
    assert!(stderr.contains("nearest rein knows is PreToolUse"), "{stderr}");
    assert_eq!(server.requests().len(), 1);
    assert!(marker.exists(), "the known hooks did not run");
}

#[test]
fn claude_codes_other_events_are_accepted() {
    let env = Env::new();
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"PostCompact": hook("true"), "CwdChanged": hook("true")}}).to_string(),
    );
    let server = serve(Scenario::new([reply([text("hi")])]));
    let (code, stderr) = run(&env, &server);
    assert_eq!(code, Some(0), "{stderr}");
}

#[test]
fn a_hook_if_rule_that_does_not_parse_stops_rein() {
    let env = Env::new();
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "if": "Bash(git *"}]}]});
    let settings = serde_json::to_string_pretty(&json!({"hooks": hooks})).unwrap();
    let path = env.write(".claude/settings.json", &settings);
    let line = settings.lines().position(|l| l.contains("Bash(git *")).unwrap() + 1;
    let server = serve(Scenario::new([reply([text("hi")])]));
    let (code, stderr) = run(&env, &server);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains(&format!("{}:{line}", path.display())), "{stderr}");
    assert!(stderr.contains("Bash(git *"), "{stderr}");
    assert!(server.requests().is_empty());
}

#[test]
fn an_agent_definition_that_does_not_parse_is_skipped_with_its_line_and_rein_starts() {
    let env = Env::new();
    let path =
        env.write(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription reviews code\n---\nYou review.\n");
    let readme = env.write(".claude/agents/README.md", "# Agents\n\nCopy these into ~/.claude/agents.\n");
    env.write(".claude/agents/ok.md", "---\nname: ok\ndescription: fine\n---\nFine.\n");
    let server = serve(Scenario::new([reply([text("hi")])]));
    let (code, stderr) = run(&env, &server);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains(&format!("{}:3: skipped", path.display())), "{stderr}");
    assert!(stderr.contains(&format!("{}:1: skipped: no front matter", readme.display())), "{stderr}");
    let tools = server.requests()[0].body["tools"].to_string();
    assert!(tools.contains("- ok: fine") && !tools.contains("reviewer"), "{tools}");
}
