//! Issue 51: names rein does not know yet (a newer Claude Code's hook event, settings
//! key, permission mode, a rule it cannot read) never stop a session: each is named with
//! its file and line and skipped, failing closed — an allow rule rein cannot read is set
//! aside (the call is asked), a deny or ask rule it cannot read denies its whole tool.

use serde_json::json;

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};

#[test]
fn a_settings_file_from_a_newer_claude_code_still_starts_a_session() {
    let env = Env::new();
    env.trust();
    env.write("notes.txt", "hello\n");
    let settings = json!({
        "someFutureKey": {"x": 1},
        "permissions": {
            "allow": ["Read(//[)", "Glob"],
            "deny": ["Grep(//[)"],
            "defaultMode": "delegate",
            "someFuturePermissionKey": true
        },
        "hooks": {"SomeFutureEvent": [{"hooks": [{"type": "command", "command": "true"}]}]}
    });
    let text_of = serde_json::to_string_pretty(&settings).unwrap();
    let path = env.write(".claude/settings.json", &text_of);
    let line = |needle: &str| text_of.lines().position(|l| l.contains(needle)).unwrap() + 1;
    let server = serve(Scenario::new([
        reply([tool_use_with_id("r", "Read", json!({"file_path": env.cwd().join("notes.txt")}))]),
        reply([text("done")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "go"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let at = |needle: &str| format!("{}:{}", path.display(), line(needle));
    for (needle, words) in [
        ("Read(//[)", "such calls are asked"),
        ("Grep(//[)", "Grep is denied outright"),
        ("delegate", "not a mode rein knows"),
        ("SomeFutureEvent", "skipped"),
        ("someFutureKey", "someFutureKey"),
        ("someFuturePermissionKey", "permissions.someFuturePermissionKey"),
    ] {
        assert!(
            stderr.lines().any(|l| l.contains(&at(needle)) && l.contains(words)),
            "no warning naming {needle} at {} with {words:?}:\n{stderr}",
            at(needle)
        );
    }
    let first = &server.requests()[0].body;
    let tools: Vec<&str> = first["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(!tools.contains(&"Grep"), "an unreadable deny rule did not deny its tool: {tools:?}");
    assert!(tools.contains(&"Glob"));
    // The read the unreadable allow rule meant is asked (headless: refused), not allowed.
    let last = server.requests().last().unwrap().body["messages"].as_array().unwrap().clone();
    let (result, is_error) = tool_result(&last, "r");
    assert!(!is_error, "reading inside the workspace needs no rule: {result}");
}

/// A rule that names no tool at all does not parse: rein stops with its file and line.
#[test]
fn a_rule_that_names_no_tool_stops_rein() {
    let env = Env::new();
    let path = env.write(".claude/settings.json", "{\"permissions\": {\"deny\": [\"(oops\"]}}");
    let server = serve(Scenario::new([reply([text("hi")])]));
    let out = env.rein_at(&server).args(["-p", "go"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains(&format!("{}:1", path.display())), "{stderr}");
    assert!(server.requests().is_empty());
}

/// Headless in a folder nobody trusted, the folder's own allow rules, extra directories
/// and environment wait for its trust (as in Claude Code), said on stderr; its deny rules
/// hold at once. Trusted, they apply.
#[test]
fn an_untrusted_folder_s_allow_rules_wait_for_its_trust() {
    let env = Env::new();
    env.write(
        ".claude/settings.json",
        &json!({"permissions": {"allow": ["Bash(touch *)"], "deny": ["WebFetch"]}, "env": {"FROM_PROJECT": "1"}})
            .to_string(),
    );
    let run = || {
        let server = serve(Scenario::new([
            reply([tool_use_with_id("t", "Bash", json!({"command": "touch made.txt; echo ${FROM_PROJECT:-unset}"}))]),
            reply([text("done")]),
        ]));
        let out = env.rein_at(&server).args(["-p", "go"]).env("REIN_SANDBOX_TIER", "C").output().unwrap();
        let last = server.requests().last().unwrap().body["messages"].as_array().unwrap().clone();
        let tools = server.requests()[0].body["tools"].to_string();
        (String::from_utf8_lossy(&out.stderr).into_owned(), tool_result(&last, "t"), tools)
    };
    let (stderr, (result, is_error), tools) = run();
    assert!(is_error && !env.cwd().join("made.txt").exists(), "an untrusted folder's allow rule applied: {result}");
    assert!(stderr.contains("not trusted") && stderr.contains("allow") && stderr.contains("env"), "{stderr}");
    assert!(!tools.contains("\"WebFetch\""), "the deny rule holds at once");
    env.trust();
    let (stderr, (result, is_error), _) = run();
    assert!(!is_error && env.cwd().join("made.txt").exists(), "{result}\n{stderr}");
    assert!(result.contains('1'), "the trusted folder's env applies: {result}");
}

/// Headless waits for the configured MCP servers before its first request (bounded by
/// MCP_TIMEOUT), as Claude Code does: the model sees their tools from the start.
#[test]
fn headless_waits_for_its_mcp_servers_before_the_first_request() {
    let Some(py) = crate::mcp_python::python() else { return };
    let env = Env::new();
    let markers = tempfile::tempdir().unwrap();
    let config = json!({"mcpServers": {"probe": {"command": py, "args": [crate::mcp_python::probe(), markers.path(), "stdio"]}}});
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).args(["-p", "go", "--mcp-config", &config.to_string()]).assert().success();
    let tools = server.requests()[0].body["tools"].to_string();
    assert!(tools.contains("mcp__probe__approve"), "the first request lacks the server's tools: {tools}");
}

/// Rules in subfolders of `rules/` are read, the person's and the project's.
#[test]
fn rules_in_subfolders_are_read() {
    let env = Env::new();
    std::fs::create_dir_all(env.home.path().join(".claude/rules/team")).unwrap();
    std::fs::write(env.home.path().join(".claude/rules/team/style.md"), "USER-NESTED-RULE\n").unwrap();
    env.write(".claude/rules/frontend/react/hooks.md", "PROJECT-NESTED-RULE\n");
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    let req = &server.requests()[0];
    let all = req.body.to_string();
    assert!(all.contains("USER-NESTED-RULE") && all.contains("PROJECT-NESTED-RULE"), "a nested rule was not read");
}

/// Front matter Claude Code reads leniently (an unindented `<example>` block after the
/// description, as some of Anthropic's own plugin agents have) is read, not dropped.
#[test]
fn an_agent_with_loose_front_matter_is_offered() {
    let env = Env::new();
    env.write(
        ".claude/agents/test-writer.md",
        "---\nname: test-writer\ndescription: Use this agent when tests are needed.\n\nExamples:\n<example>\nContext: x\n\
         user: \"write tests\"\n</example>\nmodel: inherit\n---\nYou write tests.\n",
    );
    let server = serve(Scenario::new([reply([text("hi")])]));
    let out = env.rein_at(&server).args(["-p", "go"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("skipped"), "{stderr}");
    let tools = server.requests()[0].body["tools"].to_string();
    assert!(tools.contains("test-writer: Use this agent when tests are needed."), "{tools}");
}

/// Claude Code's subcommands rein has no counterpart for say what to do instead; none
/// reaches the model as a prompt.
#[test]
fn claude_code_subcommands_rein_lacks_say_what_to_do() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("never")])]));
    for (word, says) in
        [("update", "does not install or update"), ("install", "install"), ("auth", "ANTHROPIC_API_KEY")]
    {
        let out = env.rein_at(&server).arg(word).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{word}: {stderr}");
        assert!(stderr.contains(says), "{word}: {stderr}");
    }
    assert!(server.requests().is_empty(), "a subcommand was sent to the model");
}

/// A switching user's history comes along: `rein -c` continues a session Claude Code
/// recorded for the folder (in its own file there), and Claude Code finds rein's
/// sessions in its folder.
#[test]
fn sessions_cross_over_between_claude_code_and_rein() {
    let env = Env::new();
    std::fs::create_dir_all(env.home.path().join(".claude")).unwrap();
    let server = serve(Scenario::new([reply([text("one")]), reply([text("two")])]));
    env.rein_at(&server).args(["-p", "FIRST-PROMPT"]).assert().success();
    let find = |root: &std::path::Path| -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for dir in std::fs::read_dir(root.join("projects")).into_iter().flatten().flatten() {
            out.extend(std::fs::read_dir(dir.path()).into_iter().flatten().flatten().map(|e| e.path()));
        }
        out.into_iter().filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect()
    };
    let claude = env.home.path().join(".claude");
    let linked = find(&claude);
    assert_eq!(linked.len(), 1, "Claude Code's folder has no way to rein's session");
    assert!(std::fs::read_to_string(&linked[0]).unwrap().contains("FIRST-PROMPT"));
    // Now make it Claude Code's own: a file of its folder, rein's copy gone.
    let text = std::fs::read_to_string(&linked[0]).unwrap();
    let own = std::fs::read_link(&linked[0]).unwrap();
    std::fs::remove_file(&linked[0]).unwrap();
    std::fs::remove_file(&own).unwrap();
    std::fs::write(&linked[0], text).unwrap();
    env.rein_at(&server).args(["-p", "SECOND-PROMPT", "-c"]).assert().success();
    let second = server.requests()[1].body["messages"].to_string();
    assert!(second.contains("FIRST-PROMPT"), "Claude Code's session was not continued: {second}");
    let after = std::fs::read_to_string(&linked[0]).unwrap();
    assert!(after.contains("SECOND-PROMPT"), "the session did not go on in Claude Code's file");
}

/// `--bare`: the same result on every machine — nothing of the project's or the
/// person's configuration is read (memory, hooks, subagents), what the command line gives
/// still is.
#[test]
fn bare_reads_nothing_of_the_folder_or_the_person() {
    let env = Env::new();
    env.trust();
    env.write("CLAUDE.md", "BARE-MEMORY-MARK\n");
    let marker = env.cwd().join("hook-ran");
    let hook = format!("touch '{}'", marker.display());
    env.write(
        ".claude/settings.json",
        &json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": hook}]}]}}).to_string(),
    );
    env.write(".claude/agents/bare-agent.md", "---\nname: bare-agent\ndescription: d\n---\nx\n");
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).args(["-p", "go", "--bare", "--append-system-prompt", "FROM-THE-FLAG"]).assert().success();
    let body = server.requests()[0].body.to_string();
    assert!(!body.contains("BARE-MEMORY-MARK") && !body.contains("bare-agent"), "the folder's configuration was read");
    assert!(!marker.exists(), "a hook of the folder ran");
    assert!(body.contains("FROM-THE-FLAG"));
}

/// Each class of the schema, through the binary: an honoured key is not named, one not
/// supported yet is named at start (and by `rein doctor`), one meaningless here is named
/// by `rein doctor` only.
#[test]
fn each_class_of_settings_key_is_said_where_it_belongs() {
    let env = Env::new();
    let path = env.write(
        ".claude/settings.json",
        &serde_json::to_string_pretty(&json!({"model": "sonnet", "fastMode": true, "autoUpdatesChannel": "stable"}))
            .unwrap(),
    );
    let server = serve(Scenario::new([reply([text("hi")])]));
    let out = env.rein_at(&server).args(["-p", "go"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let note = stderr.lines().find(|l| l.contains("settings rein ignores")).unwrap_or_default();
    assert!(note.contains("fastMode") && note.contains(&path.display().to_string()), "{stderr}");
    assert!(!note.contains("autoUpdatesChannel") && !note.contains("model"), "{note}");
    let doctor = env.rein().arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(text.contains("`fastMode` is not supported by rein yet"), "{text}");
    assert!(text.contains("`autoUpdatesChannel` has no meaning in rein"), "{text}");
    assert!(!text.contains("`model`"), "{text}");
}
