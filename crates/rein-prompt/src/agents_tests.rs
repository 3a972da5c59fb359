//! Tests of `agents.rs`, kept beside it so the code file stays small.

use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn definitions_are_read_nearest_first_with_every_field() {
    let d = tempfile::tempdir().unwrap();
    let cwd = d.path().join("repo/sub");
    write(
        &cwd.join(".claude/agents/reviewer.md"),
        "---\nname: code-reviewer\ndescription: Reviews diffs\ntools: Read, Grep, Bash\ndisallowedTools: [Bash]\n\
         model: haiku\npermissionMode: plan\nmaxTurns: 3\nskills:\n  - pdf\ncolor: blue\neffort: low\n\
         hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: 'true'}]\n---\nYou review code.\n",
    );
    write(&d.path().join("repo/.claude/agents/other.md"), "---\nname: code-reviewer\ndescription: shadowed\n---\nx");
    let loaded = load_agents(&cwd, None);
    let a = &loaded.agents[0];
    assert_eq!((a.name.as_str(), a.description.as_str()), ("code-reviewer", "Reviews diffs"));
    assert_eq!(a.tools.as_deref(), Some(&["Read".to_string(), "Grep".to_string(), "Bash".to_string()][..]));
    assert!(a.offers("Read") && !a.offers("Bash") && !a.offers("Write"));
    assert_eq!((a.model.as_deref(), a.permission_mode.as_deref(), a.max_turns), (Some("haiku"), Some("plan"), Some(3)));
    assert_eq!(
        (a.skills.clone(), a.color.as_deref(), a.effort.as_deref()),
        (vec!["pdf".to_string()], Some("blue"), Some("low"))
    );
    assert!(a.hooks.as_ref().is_some_and(|h| h["PreToolUse"][0]["matcher"] == "Bash"));
    assert!(!a.prompt.is_loaded(), "the prompt is read when the subagent first runs");
    assert_eq!((&*a.prompt.text().unwrap(), a.source), ("You review code.", AgentSource::Project));
    assert_eq!(loaded.agents.iter().filter(|a| a.name == "code-reviewer").count(), 1);
    assert!(loaded.skipped.is_empty(), "{:?}", loaded.skipped);
}

#[test]
fn the_built_in_types_are_there_and_a_definition_replaces_one() {
    let d = tempfile::tempdir().unwrap();
    let names: Vec<String> = load_agents(d.path(), None).agents.into_iter().map(|a| a.name).collect();
    assert_eq!(names, ["general-purpose", "Explore", "Plan"]);
    let explore = builtin_agents_named("Explore");
    assert!(explore.offers("Grep") && explore.offers("Bash") && !explore.offers("Edit") && !explore.offers("Agent"));
    assert_eq!(explore.model.as_deref(), Some("haiku"));
    write(&d.path().join(".claude/agents/e.md"), "---\nname: Explore\ndescription: mine\n---\nMine.");
    let loaded = load_agents(d.path(), None);
    let mine: Vec<&AgentDef> = loaded.agents.iter().filter(|a| a.name == "Explore").collect();
    assert_eq!((mine.len(), mine[0].description.as_str()), (1, "mine"));
}

fn builtin_agents_named(name: &str) -> AgentDef {
    crate::builtin_agents::builtin_agents().into_iter().find(|a| a.name == name).unwrap()
}

#[test]
fn files_that_are_no_definition_are_skipped_with_a_reason_and_the_rest_load() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join(".claude/agents");
    write(&dir.join("README.md"), "# My agents\n\nInstall them with cp.\n");
    write(&dir.join("noname.md"), "---\ndescription: no name\n---\nbody");
    write(&dir.join("nodesc.md"), "---\nname: quiet\n---\nbody");
    write(&dir.join("broken.md"), "---\nname: x\n  : [\n---\nbody");
    write(&dir.join("good.md"), "---\nname: good\ndescription: fine\ntools: \"*\"\n---\nGood.");
    let loaded = load_agents(d.path(), None);
    assert!(loaded.agents.iter().any(|a| a.name == "good" && a.tools.is_none()));
    let mut why: Vec<(String, usize)> =
        loaded.skipped.iter().map(|s| (s.path.file_name().unwrap().to_string_lossy().into_owned(), s.line)).collect();
    why.sort();
    assert_eq!(why.len(), 4, "{:?}", loaded.skipped);
    assert_eq!(why[0].0, "README.md");
    assert!(loaded.skipped.iter().any(|s| s.reason.contains("`description`")));
}

#[test]
fn json_definitions_take_the_same_fields() {
    let v = serde_json::json!({"description": "d", "prompt": "P", "tools": ["Read"], "disallowedTools": ["Bash"],
        "model": "inherit", "permissionMode": "acceptEdits", "maxTurns": 2});
    let a = AgentDef::from_json("w", &v);
    assert_eq!((&*a.prompt.text().unwrap(), a.model.as_deref(), a.max_turns), ("P", None, Some(2)));
    assert_eq!((a.permission_mode.as_deref(), a.source), (Some("acceptEdits"), AgentSource::Flag));
    assert!(a.offers("Read") && !a.offers("Bash"));
}

#[test]
fn a_tool_entry_covers_its_family() {
    let v = serde_json::json!({"description": "d", "prompt": "P", "disallowedTools": ["Edit", "mcp__github"]});
    let a = AgentDef::from_json("w", &v);
    assert!(!a.offers("Edit") && !a.offers("MultiEdit"), "Edit covers MultiEdit");
    assert!(!a.offers("mcp__github__create_issue") && a.offers("mcp__gitlab__x"), "a server's tools go together");
    assert!(a.offers("Write") && a.offers("Read"));
    let only = AgentDef::from_json("o", &serde_json::json!({"description": "d", "tools": "Read, mcp__db"}));
    assert!(only.offers("mcp__db__query") && only.offers("Read") && !only.offers("mcp__dbx__query"));
}
