//! Permission updates through the policy's one door (`SharedPolicy::apply`): a rule added
//! for the session decides the next call, one for the local settings is also written
//! there, the mode changes, and a rule that does not parse is refused with its text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rein_policy::{
    Behavior, Call, Change, Destination, Effects, ListKind, PermissionMode, PermissionUpdate, Policy, PolicyInputs,
    SettingsFiles, SharedPolicy,
};
use rein_tools::{Registry, register_builtins};
use serde_json::json;

#[test]
fn updates_change_the_session_and_are_written_where_they_say() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let mut registry = Registry::new();
    register_builtins(&mut registry).unwrap();
    let policy = Policy::new(&PolicyInputs { cwd: root.clone(), tools: registry.rule_kinds(), ..Default::default() });
    let shared = SharedPolicy::from(std::sync::Arc::new(policy.unwrap()));
    let files = SettingsFiles { project_root: root.clone(), user_dir: None };
    let input = json!({"command": "npm run lint"});
    let effects = Effects::running(rein_effects::ShellCommand::new("npm run lint", &root, None));
    let decide = || shared.get().decide(&Call { tool: "Bash", input: &input, effects: &effects }).behavior;
    assert_ne!(decide(), Behavior::Allow);

    let add = |destination| PermissionUpdate {
        change: Change::AddRules(ListKind::Allow, vec!["Bash(npm run lint)".into()]),
        destination,
    };
    assert_eq!(shared.apply(&add(Destination::Session), &files).unwrap(), None);
    assert_eq!(decide(), Behavior::Allow, "the session's rule decides the next call");
    assert!(!root.join(".claude/settings.local.json").exists(), "a session rule is not written");

    let written = shared.apply(&add(Destination::LocalSettings), &files).unwrap().unwrap();
    assert_eq!(written, root.join(".claude/settings.local.json"));
    assert!(std::fs::read_to_string(&written).unwrap().contains("Bash(npm run lint)"));

    let mode =
        PermissionUpdate { change: Change::SetMode(PermissionMode::AcceptEdits), destination: Destination::Session };
    shared.apply(&mode, &files).unwrap();
    assert_eq!(shared.get().mode, PermissionMode::AcceptEdits);

    let bad = PermissionUpdate {
        change: Change::AddRules(ListKind::Allow, vec!["Bash(unclosed".into()]),
        destination: Destination::Session,
    };
    let err = shared.apply(&bad, &files).unwrap_err().to_string();
    assert!(err.contains("Bash(unclosed"), "{err}");
}

/// "Don't ask again" never offers more than was asked: a program's subcommand as a
/// prefix, otherwise the command exactly; nothing when a rule cannot spell it exactly.
#[test]
fn suggested_rules_are_never_wider_than_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let mut registry = Registry::new();
    register_builtins(&mut registry).unwrap();
    let policy = Policy::new(&PolicyInputs { cwd: root.clone(), tools: registry.rule_kinds(), ..Default::default() });
    let policy = policy.unwrap();
    let suggest = |command: &str| {
        let input = json!({"command": command});
        let effects = Effects::running(rein_effects::ShellCommand::new(command, &root, None));
        policy.suggested_rules(&Call { tool: "Bash", input: &input, effects: &effects })
    };
    assert_eq!(suggest("rm -rf build"), ["Bash(rm -rf build)"]);
    assert_eq!(suggest("npm test -- --watch"), ["Bash(npm test *)"]);
    // git push is not modelled: no rule would ever allow it, so none is offered.
    assert_eq!(suggest("git push origin main && rm -rf dist"), ["Bash(rm -rf dist)"]);
    assert_eq!(suggest("cargo build --release"), ["Bash(cargo build *)"]);
    // A runner takes any command after it: only the exact command is offered.
    for runner in ["uv run pytest -q", "pnpm exec vitest", "npx tsc", "go run ./cmd/x"] {
        for rule in suggest(runner) {
            assert!(!rule.ends_with(" *)") || !rule.contains(" run") && !rule.contains(" exec"), "{runner}: {rule}");
            assert!(rule == format!("Bash({runner})") || !rule.ends_with(" *)"), "{runner}: {rule}");
        }
    }
    assert!(suggest("rm \"a b\"").is_empty(), "a rule would also allow `rm a b`");
    assert!(suggest("rm $TARGET").is_empty(), "only known when it runs");
    // A script of many commands: all of them remembered, or none (never the first few,
    // which would leave the same script asking again).
    let script = |n: usize| (1..=n).map(|i| format!("rm -f out{i:02}.txt")).collect::<Vec<_>>().join("\n");
    assert_eq!(suggest(&script(8)).len(), 8);
    assert!(suggest(&script(17)).is_empty());
}
