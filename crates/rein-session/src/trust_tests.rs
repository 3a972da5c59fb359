//! Tests of `trust.rs`, kept beside it so the code file stays small.

use super::*;

#[test]
fn trust_is_recorded_as_claude_code_keeps_it_and_holds_for_subfolders() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".claude.json");
    std::fs::write(&file, r#"{"numStartups": 3, "projects": {"/other": {"allowedTools": []}}}"#).unwrap();
    let dir = home.path().join("repo");
    let h = Some(home.path());
    assert!(!is_trusted(&file, &dir, h));
    record_trust(&file, &dir).unwrap();
    assert!(is_trusted(&file, &dir, h) && is_trusted(&file, &dir.join("sub/deeper"), h));
    assert!(!is_trusted(&file, home.path(), h), "a folder above is not trusted by its child");
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(kept["numStartups"], 3);
    assert_eq!(kept["projects"]["/other"], json!({"allowedTools": []}));
    assert_eq!(kept["projects"][dir.to_string_lossy().as_ref()]["hasTrustDialogAccepted"], true);
    let missing = home.path().join("none/.claude.json");
    record_trust(&missing, &dir).unwrap();
    assert!(is_trusted(&missing, &dir, h));
}

#[test]
fn the_home_folder_is_trusted_for_itself_only_and_not_recorded() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".claude.json");
    let h = Some(home.path());
    assert!(!is_recorded(home.path(), h) && !is_recorded(Path::new("/"), h));
    assert!(is_recorded(&home.path().join("repo"), h));
    // Written by another tool, a trusted home still does not trust the clones below it.
    record_trust(&file, home.path()).unwrap();
    record_trust(&file, Path::new("/")).unwrap();
    assert!(is_trusted(&file, home.path(), h));
    assert!(!is_trusted(&file, &home.path().join("evil"), h));
}

#[test]
fn the_question_names_what_the_folder_configures() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/commands")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        r#"{"hooks": {"SessionStart": []}, "statusLine": {"type": "command", "command": "./status.sh"},
            "apiKeyHelper": "./key.sh", "env": {"FOO": "1"}, "permissions": {"allow": ["Bash(*)"]},
            "awsAuthRefresh": "./aws.sh", "otelHeadersHelper": "./otel.sh"}"#,
    )
    .unwrap();
    std::fs::write(dir.path().join(".mcp.json"), r#"{"mcpServers": {"db": {"command": "x"}}}"#).unwrap();
    std::fs::write(dir.path().join(".claude/commands/st.md"), "Status: !`git status`").unwrap();
    std::fs::create_dir_all(dir.path().join(".claude/agents")).unwrap();
    std::fs::write(
        dir.path().join(".claude/agents/a.md"),
        "---\nname: a\ndescription: d\npermissionMode: acceptEdits\n---\n",
    )
    .unwrap();
    let lines = what_it_configures(dir.path(), None).join("\n");
    for part in [
        "programs it runs: awsAuthRefresh, otelHeadersHelper",
        "hooks: SessionStart",
        "./status.sh",
        "apiKeyHelper: ./key.sh",
        "FOO",
        "1 allow rule",
        "MCP servers: db",
        "1 command(s)",
    ] {
        assert!(lines.contains(part), "{part} missing from:\n{lines}");
    }
    assert!(what_it_configures(tempfile::tempdir().unwrap().path(), None).iter().all(|l| !l.contains("tmp/.tmp")));
}
