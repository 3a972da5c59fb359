//! `setting_sources` (Python) / `settingSources` (TypeScript) through the real Agent
//! SDKs driving the real rein binary (issue 51). One project holds one thing of each
//! kind from each source — the person's `~/.claude` (memory, settings with a deny rule
//! and a hook, a subagent, a skill, a command), the project's (memory and a rule, a
//! subfolder's memory read late, settings with a model, a deny rule and a hook, a
//! subagent, a skill, a command, a command and a rule of a folder above it, a
//! `.mcp.json` server) and the local ones (`CLAUDE.local.md`, `settings.local.json` with
//! a hook) — and each test asserts, from what reached the fake model, from the SDK's
//! `system/init` and from the hooks' marker files, that exactly the sources asked for
//! were read, as Claude Code reads them. Both SDKs leave the option out by default, and
//! then send no `--setting-sources`: every source is read (the CLI's default); `[]`
//! sends an empty `--setting-sources=`: none is. Python's `skills` option, without
//! `setting_sources`, sends `user,project`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::common::{Env, serve};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

/// The sources read, as the test expects them.
#[derive(Clone, Copy)]
struct Read {
    user: bool,
    project: bool,
    local: bool,
}

const ALL: Read = Read { user: true, project: true, local: true };
const NONE: Read = Read { user: false, project: false, local: false };

/// The folder the SDK runs in (below `env.cwd()`, which holds a `.claude` of its own).
fn app(env: &Env) -> PathBuf {
    env.cwd().join("app")
}

fn marks(env: &Env) -> PathBuf {
    env.cwd().join("marks")
}

fn hook(env: &Env, mark: &str) -> Value {
    let touch = format!("touch '{}'", marks(env).join(mark).display());
    json!({"UserPromptSubmit": [{"hooks": [{"type": "command", "command": touch}]}]})
}

fn definition(name: &str, what: &str) -> String {
    format!("---\nname: {name}\ndescription: {what}\n---\nDo the {what}.\n")
}

/// A stdio MCP server with one tool, `ping`.
pub(crate) const MCP_SERVER: &str = r#"import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    r = {}
    if m["method"] == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "prj", "version": "1"}}
    elif m["method"] == "tools/list":
        r = {"tools": [{"name": "ping", "description": "Pings", "inputSchema": {"type": "object"}}]}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"#;

/// Write every source's files.
fn configure(env: &Env) {
    std::fs::create_dir_all(marks(env)).unwrap();
    let home = env.home.path().join(".claude");
    let put = |path: PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    put(home.join("CLAUDE.md"), "USER-MEMORY-MARK\n");
    put(
        home.join("settings.json"),
        &json!({"permissions": {"deny": ["Grep"]}, "hooks": hook(env, "user")}).to_string(),
    );
    put(home.join("agents/user-agent.md"), &definition("user-agent", "person's agent"));
    put(home.join("skills/user-skill/SKILL.md"), &definition("user-skill", "person's skill"));
    put(home.join("commands/user-cmd.md"), "---\ndescription: person's command\n---\nx\n");
    let app = app(env);
    put(env.cwd().join(".claude/commands/above-cmd.md"), "---\ndescription: command above the project\n---\nx\n");
    put(env.cwd().join(".claude/rules/above.md"), "ABOVE-RULE-MARK\n");
    put(app.join("CLAUDE.md"), "PROJECT-MEMORY-MARK\n");
    put(app.join(".claude/rules/style.md"), "PROJECT-RULE-MARK\n");
    put(app.join("sub/CLAUDE.md"), "NESTED-PROJECT-MARK\n");
    put(app.join("sub/notes.txt"), "the notes\n");
    let settings =
        json!({"model": "claude-haiku-4-5", "permissions": {"deny": ["Glob"]}, "hooks": hook(env, "project")});
    put(app.join(".claude/settings.json"), &settings.to_string());
    put(app.join(".claude/agents/prj-agent.md"), &definition("prj-agent", "project's agent"));
    put(app.join(".claude/skills/prj-skill/SKILL.md"), &definition("prj-skill", "project's skill"));
    put(app.join(".claude/commands/prj-cmd.md"), "---\ndescription: project's command\n---\nx\n");
    put(env.cwd().join("mcp_server.py"), MCP_SERVER);
    let server = json!({"command": "python3", "args": [env.cwd().join("mcp_server.py")]});
    put(app.join(".mcp.json"), &json!({"mcpServers": {"prj": server}}).to_string());
    put(app.join("CLAUDE.local.md"), "LOCAL-MEMORY-MARK\n");
    put(app.join(".claude/settings.local.json"), &json!({"hooks": hook(env, "local")}).to_string());
}

/// The model reads a file of the subfolder (its memory arrives then), then answers.
fn model(env: &Env) -> FakeServer {
    let notes = app(env).join("sub/notes.txt");
    serve(Scenario::new([reply([tool_use_with_id("r1", "Read", json!({"file_path": notes}))]), reply([text("read")])]))
}

/// Run `program` (the SDK's driver) in the project; what the user code received.
fn run(env: &Env, mut program: std::process::Command) -> Value {
    let out =
        program.current_dir(app(env)).env("HOME", env.home.path()).env_remove("ANTHROPIC_API_KEY").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the SDK program failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap()
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures").join(name)
}

fn rein() -> PathBuf {
    assert_cmd::cargo::cargo_bin("rein")
}

/// Python: `sources` is the `setting_sources` list as JSON, `default` (left out) or
/// `skills` (left out, with `skills="all"`).
fn python(env: &Env, server: &FakeServer, sources: &str) -> Option<Value> {
    let py = crate::sdk_python::python()?;
    let mut c = std::process::Command::new(py);
    c.arg(fixture("sdk_sources.py")).arg(rein()).args([&server.url(), sources]);
    Some(run(env, c))
}

/// TypeScript: `sources` is the `settingSources` list as JSON, or `default` (left out).
fn typescript(env: &Env, server: &FakeServer, sources: &str) -> Option<Value> {
    let entry = crate::sdk_typescript::sdk_entry()?;
    let mut c = std::process::Command::new("node");
    c.arg(fixture("sdk_sources.mjs")).arg(format!("file://{}", entry.display()));
    c.arg(rein()).args([&server.url(), sources]);
    Some(run(env, c))
}

fn names(list: &Value) -> Vec<String> {
    list.as_array().map(|l| l.iter().filter_map(|n| n.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

/// Assert that exactly the sources in `read` were read.
fn assert_read(env: &Env, server: &FakeServer, out: &Value, read: Read) {
    assert_eq!(out["result"]["subtype"], "success", "{out}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the Read call and the answer");
    let (first, later) = (requests[0].body.to_string(), requests[1].body.to_string());
    let tools: Vec<String> =
        requests[0].body["tools"].as_array().unwrap().iter().map(|t| t["name"].to_string()).collect();
    let has_tool = |name: &str| tools.contains(&format!("\"{name}\""));
    let init = &out["init"];
    let (commands, agents) = (names(&init["slash_commands"]), names(&init["agents"]));
    let marked = |name: &str| marks(env).join(name).exists();
    let check = |what: &str, seen: bool, wanted: bool| {
        assert_eq!(
            seen,
            wanted,
            "{what}: expected {}\nfirst request: {first}\ninit: {init}",
            match wanted {
                true => "read",
                false => "left out",
            }
        );
    };
    // The person's.
    check("~/.claude/CLAUDE.md", first.contains("USER-MEMORY-MARK"), read.user);
    check("the person's subagent", agents.contains(&"user-agent".into()) && first.contains("user-agent"), read.user);
    check("the person's skill", commands.contains(&"user-skill".into()) && first.contains("user-skill"), read.user);
    check("the person's command", commands.contains(&"user-cmd".into()), read.user);
    check("the person's deny rule (Grep)", !has_tool("Grep"), read.user);
    check("the person's hook", marked("user"), read.user);
    // The project's.
    check("the project's CLAUDE.md", first.contains("PROJECT-MEMORY-MARK"), read.project);
    check("the project's rule", first.contains("PROJECT-RULE-MARK"), read.project);
    check("the rule of the folder above", first.contains("ABOVE-RULE-MARK"), read.project);
    check("a subfolder's CLAUDE.md", later.contains("NESTED-PROJECT-MARK"), read.project);
    check("the project's subagent", agents.contains(&"prj-agent".into()) && first.contains("prj-agent"), read.project);
    check("the project's skill", commands.contains(&"prj-skill".into()) && first.contains("prj-skill"), read.project);
    check("the project's command", commands.contains(&"prj-cmd".into()), read.project);
    check("the command of the folder above", commands.contains(&"above-cmd".into()), read.project);
    check("the .mcp.json server", has_tool("mcp__prj__ping"), read.project);
    check("the project's deny rule (Glob)", !has_tool("Glob"), read.project);
    check("the project's model", requests[0].body["model"] == "claude-haiku-4-5", read.project);
    check("the project's hook", marked("project"), read.project);
    // The local ones.
    check("CLAUDE.local.md", first.contains("LOCAL-MEMORY-MARK"), read.local);
    check("the local hook", marked("local"), read.local);
    assert!(has_tool("Read") && later.contains("the notes"), "the Read call ran: {later}");
}

fn case(sdk: fn(&Env, &FakeServer, &str) -> Option<Value>, sources: &str, read: Read) {
    let env = Env::new();
    configure(&env);
    let server = model(&env);
    let Some(out) = sdk(&env, &server, sources) else { return };
    assert_read(&env, &server, &out, read);
}

#[test]
fn python_setting_sources_user_reads_only_the_persons_files() {
    case(python, r#"["user"]"#, Read { user: true, ..NONE });
}

#[test]
fn python_setting_sources_project_reads_only_the_projects_files() {
    case(python, r#"["project"]"#, Read { project: true, ..NONE });
}

#[test]
fn python_setting_sources_left_out_reads_every_source() {
    case(python, "default", ALL);
}

#[test]
fn python_setting_sources_empty_reads_none() {
    case(python, "[]", NONE);
}

#[test]
fn python_skills_without_setting_sources_read_the_person_and_the_project() {
    case(python, "skills", Read { local: false, ..ALL });
}

#[test]
fn typescript_setting_sources_user_reads_only_the_persons_files() {
    case(typescript, r#"["user"]"#, Read { user: true, ..NONE });
}

#[test]
fn typescript_setting_sources_project_reads_only_the_projects_files() {
    case(typescript, r#"["project"]"#, Read { project: true, ..NONE });
}

#[test]
fn typescript_setting_sources_left_out_reads_every_source() {
    case(typescript, "default", ALL);
}

#[test]
fn typescript_setting_sources_empty_reads_none() {
    case(typescript, "[]", NONE);
}
