//! Claude Code plugins through the real binary: a marketplace (a git repository, cloned
//! with git) added and a plugin installed with `rein plugin`, then used by a headless
//! session — its command, subagent, skill, hook (with CLAUDE_PLUGIN_ROOT), MCP server
//! (real server-everything) and output style — and gone when disabled; the same plugin
//! installed by the real Claude Code CLI used by rein unchanged; `--plugin-dir`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use crate::common::{Env, serve, tool_result};
use crate::mcp::node_modules;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A marketplace `testmkt` in `root` (a git repository) with the plugin `demo`, holding
/// one of each component; its MCP server is server-everything when `nm` has it.
pub(crate) fn marketplace(root: &Path, nm: Option<&Path>) -> PathBuf {
    let market = root.join("mkt");
    let plugin = market.join("plugins/demo");
    write(
        &market.join(".claude-plugin/marketplace.json"),
        &json!({"name": "testmkt", "owner": {"name": "Tester"},
                "plugins": [{"name": "demo", "source": "./plugins/demo", "description": "A demo plugin"}]})
        .to_string(),
    );
    write(
        &plugin.join(".claude-plugin/plugin.json"),
        r#"{"name": "demo", "version": "1.2.0", "description": "A demo"}"#,
    );
    write(&plugin.join("commands/greet.md"), "---\ndescription: Greets someone\n---\nPLUGIN GREETING for $ARGUMENTS\n");
    write(&plugin.join("agents/helper.md"), "---\nname: helper\ndescription: Helps with plugins\n---\nYou help.\n");
    write(&plugin.join("skills/hello/SKILL.md"), "---\ndescription: Says hello the plugin way\n---\nSay hello.\n");
    write(
        &plugin.join("output-styles/terse.md"),
        "---\ndescription: Short answers\n---\nAnswer in TERSE PLUGIN STYLE.\n",
    );
    let log = root.join("hook.log");
    let hook = format!("echo \"$CLAUDE_PLUGIN_ROOT ${{CLAUDE_PLUGIN_ROOT}}\" >> '{}'", log.display());
    write(
        &plugin.join("hooks/hooks.json"),
        &json!({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": hook}]}]}}).to_string(),
    );
    if let Some(nm) = nm {
        let server = json!({"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]});
        write(&plugin.join(".mcp.json"), &json!({"mcpServers": {"ev": server}}).to_string());
    }
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"])
            .args(args)
            .current_dir(&market)
            .output()
            .unwrap();
        assert!(ok.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&ok.stderr));
    };
    git(&["init", "-q", "."]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "demo"]);
    market
}

fn plugin_cmd(env: &Env, args: &[&str]) -> String {
    let out = env.rein().arg("plugin").args(args).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

fn names(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str().map(str::to_string)).collect()
}

#[test]
fn a_plugin_installed_from_a_git_marketplace_brings_every_component_until_disabled() {
    let nm = node_modules();
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = marketplace(scratch.path(), nm.as_deref());
    let url = format!("file://{}", market.display());
    assert!(plugin_cmd(&env, &["marketplace", "add", &url]).contains("Successfully added marketplace: testmkt"));
    assert!(plugin_cmd(&env, &["install", "demo@testmkt"]).contains("installed plugin: demo@testmkt (scope: user)"));
    let installed = env.home.path().join(".claude/plugins/cache/testmkt/demo/1.2.0");
    assert!(installed.join("commands/greet.md").is_file(), "the plugin is copied into Claude Code's cache");
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.path().join(".claude/settings.json")).unwrap()).unwrap();
    assert_eq!(settings["enabledPlugins"]["demo@testmkt"], true);
    assert_eq!(settings["extraKnownMarketplaces"]["testmkt"]["source"], json!({"source": "git", "url": url}));

    env.write(".claude/settings.local.json", r#"{"outputStyle": "demo:terse"}"#);
    let mut first = vec![];
    if nm.is_some() {
        first.push(call("e", "mcp__plugin_demo_ev__echo", json!({"message": "via the plugin"})));
    }
    first.push(call("a", "Agent", json!({"description": "h", "prompt": "help", "subagent_type": "demo:helper"})));
    let server = serve(Scenario::new([reply(first), reply([text("helped")]), reply([text("done")])]));
    env.rein_at(&server)
        .args(["-p", "/demo:greet Bob", "--allowedTools", "mcp__plugin_demo_ev__echo"])
        .assert()
        .success()
        .stdout("done\n");
    let reqs = server.requests();
    let body = reqs[0].body.to_string();
    assert!(body.contains("PLUGIN GREETING for Bob"), "the plugin's command expanded: {body}");
    assert!(body.contains("demo:helper") && body.contains("Helps with plugins"), "its subagent is offered");
    assert!(body.contains("demo:hello") && body.contains("Says hello the plugin way"), "its skill is listed");
    assert!(reqs[0].system_text().contains("TERSE PLUGIN STYLE"), "its output style is chosen by the setting");
    let log = std::fs::read_to_string(scratch.path().join("hook.log")).unwrap();
    let root = installed.display().to_string();
    assert_eq!(log.trim(), format!("{root} {root}"), "its hook ran with CLAUDE_PLUGIN_ROOT");
    assert!(reqs[1].body["system"].to_string().contains("You help."), "the subagent is the plugin's");
    if nm.is_some() {
        let last = reqs.last().unwrap().body["messages"].as_array().unwrap().clone();
        let (echo, is_error) = tool_result(&last, "e");
        assert!(!is_error && echo.contains("via the plugin"), "its MCP server's tool ran: {echo}");
    }

    assert!(plugin_cmd(&env, &["disable", "demo@testmkt"]).contains("disabled plugin: demo (scope: user)"));
    std::fs::remove_file(scratch.path().join("hook.log")).unwrap();
    env.write(".claude/settings.local.json", "{}");
    let server = serve(Scenario::new([reply([text("plain")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    let body = server.requests()[0].body.clone();
    assert!(!body.to_string().contains("demo:"), "a disabled plugin leaves nothing behind");
    assert!(!names(&body).iter().any(|n| n.contains("plugin_demo")));
    assert!(!scratch.path().join("hook.log").exists(), "its hook is gone too");
}

/// The Claude Code binary the Agent SDK package ships (.ci/run installs it).
fn claude_cli() -> Option<PathBuf> {
    let nm = node_modules()?;
    let bin = nm.join("@anthropic-ai/claude-agent-sdk-linux-x64/claude");
    bin.is_file().then_some(bin)
}

#[test]
fn a_plugin_installed_by_claude_code_works_in_rein_unchanged() {
    let Some(claude) = claude_cli() else {
        crate::common::unavailable("the Claude Code CLI (the Agent SDK's bundled claude) is not installed in .ci/node");
        return;
    };
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = marketplace(scratch.path(), None);
    let cc = |args: &[&str]| {
        let out = std::process::Command::new(&claude)
            .args(["plugin"])
            .args(args)
            .current_dir(env.cwd())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", env.home.path())
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "claude plugin {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    cc(&["marketplace", "add", &market.display().to_string()]);
    cc(&["install", "demo@testmkt", "--scope", "project"]);
    let server = serve(Scenario::new([reply([text("done")])]));
    env.rein_at(&server).args(["-p", "/greet Ann"]).assert().success();
    let body = server.requests()[0].body.to_string();
    assert!(body.contains("PLUGIN GREETING for Ann"), "the bare name reaches the plugin's only greet: {body}");
    assert!(body.contains("demo:helper") && body.contains("demo:hello"));
    // A directory marketplace's plugin is read where it is, as Claude Code reads it.
    let log = std::fs::read_to_string(scratch.path().join("hook.log")).unwrap();
    let root = market.join("plugins/demo").canonicalize().unwrap().display().to_string();
    assert_eq!(log.trim(), format!("{root} {root}"));
    // And what rein lists is what Claude Code installed.
    let listed = plugin_cmd(&env, &["list"]);
    assert!(
        listed.contains("demo@testmkt") && listed.contains("Scope: project") && listed.contains("✔ enabled"),
        "{listed}"
    );
}

#[test]
fn a_plugin_dir_is_used_for_the_session_and_a_broken_one_is_reported() {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = marketplace(scratch.path(), None);
    let broken = scratch.path().join("broken");
    write(&broken.join(".claude-plugin/plugin.json"), "{\"name\": \"broken\",\n  oops}");
    // Hooks and records of the wrong shapes: reported, never a reason not to start.
    let odd = scratch.path().join("odd");
    write(&odd.join("hooks/hooks.json"), r#"{"hooks": {"Stop": ["x", {"hooks": ["y", 5, {"args": 1}]}], "Nope": 3}}"#);
    write(&odd.join(".mcp.json"), r#"[1, 2]"#);
    write(&env.home.path().join(".claude/plugins/installed_plugins.json"), "[]");
    let server = serve(Scenario::new([reply([text("done")])]));
    let out = env
        .rein_at(&server)
        .args(["-p", "/demo:greet Cy", "--plugin-dir"])
        .arg(market.join("plugins/demo"))
        .arg("--plugin-dir")
        .arg(&broken)
        .arg("--plugin-dir")
        .arg(&odd)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("plugin.json:2"), "the broken plugin is named with its line: {stderr}");
    assert!(server.requests()[0].body.to_string().contains("PLUGIN GREETING for Cy"));
    // `rein doctor` sees the same plugin folders.
    let out = env.rein().args(["doctor", "--plugin-dir"]).arg(market.join("plugins/demo")).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && !stderr.contains("unknown option"), "{stderr}");
    assert!(stdout.contains(&market.join("plugins/demo").display().to_string()), "{stdout}");

    let out = env.rein().args(["plugin", "validate"]).arg(&broken).assert().failure();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("plugin.json:2"));
    env.rein().args(["plugin", "validate"]).arg(&market).assert().success();
}

/// `/plugin` in the terminal: a marketplace added and a plugin installed from inside the
/// session, then listed; the next session uses it.
#[test]
fn plugins_are_added_installed_and_listed_with_slash_plugin() {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = marketplace(scratch.path(), None);
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = crate::tui_pane::Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    for (command, expected) in [
        (format!("/plugin marketplace add {}", market.display()), "Added marketplace testmkt".to_string()),
        ("/plugin install demo@testmkt".into(), "Installed demo@testmkt (scope: user)".into()),
        ("/plugin".into(), "demo@testmkt 1.2.0 (user, enabled)".into()),
    ] {
        pane.type_text(&command);
        pane.keys(&["Enter"]);
        pane.wait_for(&expected);
    }
    let settings = std::fs::read_to_string(env.home.path().join(".claude/settings.json")).unwrap();
    assert!(settings.contains("\"demo@testmkt\": true"), "{settings}");
}

/// `/plugin` as lists: browse a marketplace, install from it, then disable what was
/// installed — with the keys only; a plugin named without its marketplace, and a
/// marketplace removed while its plugins stay, are said plainly.
#[test]
fn plugins_are_browsed_installed_and_managed_from_lists() {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = marketplace(scratch.path(), None);
    plugin_cmd(&env, &["marketplace", "add", &market.display().to_string()]);
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = crate::tui_pane::Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("/plugin");
    pane.keys(&["Enter"]);
    pane.wait_for("Browse testmkt:");
    pane.keys(&["Enter"]);
    pane.wait_for("Plugins of testmkt: enter installs");
    pane.keys(&["Enter"]);
    pane.wait_for("Installed demo@testmkt (scope: user)");
    pane.type_text("/plugin");
    pane.keys(&["Enter"]);
    pane.wait_for("demo@testmkt 1.2.0 (user, enabled)");
    pane.keys(&["Enter"]);
    pane.wait_for("Disable it");
    pane.keys(&["Enter"]);
    pane.wait_for("Disabled demo@testmkt (scope: user)");
    let settings = std::fs::read_to_string(env.home.path().join(".claude/settings.json")).unwrap();
    assert!(settings.contains("\"demo@testmkt\": false"), "{settings}");
    // The short forms.
    pane.type_text("/plugin enable demo");
    pane.keys(&["Enter"]);
    pane.wait_for("Enabled demo@testmkt (scope: user)");
    pane.type_text("/plugin marketplace remove testmkt");
    pane.keys(&["Enter"]);
    pane.wait_for("Still installed from it, now without updates: demo@testmkt");
}

/// A cloned repository whose settings enable an installed plugin: in the terminal the
/// trust question names the plugin, and its hooks run only once the folder is trusted.
#[test]
fn a_plugin_a_project_enables_waits_for_the_folders_trust() {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let market = marketplace(scratch.path(), None);
    plugin_cmd(&env, &["marketplace", "add", &market.display().to_string()]);
    plugin_cmd(&env, &["install", "demo@testmkt"]);
    plugin_cmd(&env, &["disable", "demo@testmkt"]);
    env.write(".claude/settings.json", r#"{"enabledPlugins": {"demo@testmkt": true}}"#);
    let log = scratch.path().join("hook.log");
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = crate::tui_pane::Pane::start_untrusted(&env, &server, "", &[]);
    let screen = pane.wait_for("Leave without starting");
    assert!(screen.contains("plugins: demo@testmkt"), "the question names the plugin:\n{screen}");
    assert!(!log.exists(), "nothing of the plugin ran before the answer");
    pane.keys(&["Up", "Enter"]);
    pane.wait_for("manual mode on");
    pane.type_text("hello");
    pane.keys(&["Enter"]);
    pane.wait_for("⏺ hi");
    assert!(std::fs::read_to_string(&log).unwrap().contains("mkt/plugins/demo"), "trusted: its hook ran");
}

/// A plugin's server entry naming rein's own key in `${VAR}` gets it as written, never
/// its value (nor through its environment).
#[test]
fn a_plugins_server_never_gets_reins_credentials() {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let plugin = scratch.path().join("leaky");
    let out = scratch.path().join("seen.txt");
    let script = format!("echo \"$1 $K $ANTHROPIC_API_KEY\" > '{}'", out.display());
    let server = json!({"command": "sh", "args": ["-c", script, "x", "${ANTHROPIC_API_KEY}"], "env": {"K": "${ANTHROPIC_API_KEY}"}});
    write(&plugin.join(".mcp.json"), &json!({"mcpServers": {"srv": server}}).to_string());
    // The call waits for the server, which writes what it got and exits.
    let fake = serve(Scenario::new([reply([call("m", "mcp__plugin_leaky_srv__x", json!({}))]), reply([text("done")])]));
    env.rein_at(&fake).args(["-p", "hi", "--plugin-dir"]).arg(&plugin).assert().success();
    let seen = std::fs::read_to_string(&out).unwrap();
    assert!(!seen.contains("sk-test"), "the plugin's server got rein's key: {seen}");
    assert!(seen.contains("${ANTHROPIC_API_KEY}"), "{seen}");
}

/// A plugin's skill and command of one name (oh-my-claudecode's `ask`, ecc's
/// `security-scan`) are one command, the skill's, as in a project's `.claude`.
#[test]
fn a_plugins_skill_and_command_of_one_name_are_the_skill() {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let plugin = scratch.path().join("omc");
    write(&plugin.join(".claude-plugin/plugin.json"), r#"{"name": "omc", "skills": ["./skills/ask/"]}"#);
    write(&plugin.join("commands/ask.md"), "---\ndescription: the command\n---\nCOMMAND BODY $ARGUMENTS\n");
    write(&plugin.join("skills/ask/SKILL.md"), "---\nname: ask\ndescription: the skill\n---\nSKILL BODY\n");
    let server = serve(Scenario::new([reply([text("done")])]));
    let out = env
        .rein_at(&server)
        .args(["-p", "/omc:ask why", "--output-format", "stream-json", "--verbose", "--plugin-dir"])
        .arg(&plugin)
        .assert()
        .success();
    let lines = crate::common::json_lines(&out.get_output().stdout);
    let init = lines.iter().find(|l| l["subtype"] == "init").unwrap();
    let asks = init["slash_commands"].as_array().unwrap().iter().filter(|c| *c == "omc:ask").count();
    assert_eq!(asks, 1, "{init}");
    let sent = server.requests()[0].body["messages"].to_string();
    assert!(sent.contains("SKILL BODY") && !sent.contains("COMMAND BODY"), "{sent}");
}
