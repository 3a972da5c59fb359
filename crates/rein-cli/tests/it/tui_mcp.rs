//! In the interactive session, servers from the project's `.mcp.json` start only once
//! approved by settings the repository does not control.

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn project_mcp_servers_start_in_the_terminal_only_once_approved() {
    let Some(nm) = crate::mcp::node_modules() else { return };
    // (how it is approved, whether it then runs)
    for (how, runs) in [("settings", true), ("enter", true), ("esc", false)] {
        let env = Env::new();
        let entry = json!({"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]});
        env.write(".mcp.json", &json!({"mcpServers": {"proj": entry}}).to_string());
        // A repository cannot approve its own servers: this is ignored.
        env.write(
            ".claude/settings.json",
            r#"{"enabledMcpjsonServers": ["proj"], "permissions": {"allow": ["mcp__proj"]}}"#,
        );
        if how == "settings" {
            env.write(".claude/settings.local.json", r#"{"enabledMcpjsonServers": ["proj"]}"#);
        }
        let server = serve(Scenario::new([
            reply([call("e", "mcp__proj__echo", json!({"message": "from the project"}))]),
            reply([text("Over.")]),
        ]));
        let pane = Pane::start(&env, &server, &[]);
        if how != "settings" {
            // The list is drawn after the title: wait for it (not the title) to be there.
            let screen = pane.wait_for("[✔] proj");
            assert!(screen.contains("names 1 MCP server rein has not started here yet"), "{screen}");
            pane.keys(&[if how == "enter" { "Enter" } else { "Escape" }]);
        }
        pane.wait_for("manual mode on");
        pane.type_text("use it");
        pane.keys(&["Enter"]);
        pane.wait_for("Over.");
        let reqs = server.requests();
        let (out, err) = crate::common::tool_result(reqs[1].body["messages"].as_array().unwrap(), "e");
        if runs {
            assert!(!err && out.contains("Echo: from the project"), "{how}: {out}");
        } else {
            assert!(err && out.contains("No such tool"), "a refused project server must not start: {out}");
        }
        let local = std::fs::read_to_string(env.cwd().join(".claude/settings.local.json")).unwrap_or_default();
        let key = if runs { "enabledMcpjsonServers" } else { "disabledMcpjsonServers" };
        assert!(local.contains(key) && local.contains("proj"), "{how}: the choice is recorded: {local}");
    }
}

#[test]
fn an_mcp_prompt_runs_as_a_slash_command_in_the_terminal() {
    let Some(nm) = crate::mcp::node_modules() else { return };
    let env = Env::new();
    let config =
        json!({"mcpServers": {"everything": {"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]}}});
    let server = serve(Scenario::new([reply([text("Prompt received.")])]));
    let pane = Pane::start(&env, &server, &["--mcp-config", &format!("'{config}'")]);
    pane.wait_for("manual mode on");
    pane.type_text("/mcp__everything__args-prompt Paris");
    pane.keys(&["Enter"]);
    pane.wait_for("Prompt received.");
    let first = server.requests()[0].body["messages"][0].to_string();
    assert!(
        first.contains("<command-name>/mcp__everything__args-prompt</command-name>") && first.contains("Paris"),
        "{first}"
    );
}

#[test]
fn esc_during_an_mcp_call_cancels_it_on_the_server() {
    let Some(py) = crate::mcp_python::python() else { return };
    let markers = tempfile::tempdir().unwrap();
    let env = Env::new();
    let config = json!({"mcpServers": {"probe": {"command": py, "args": [crate::mcp_python::probe(), markers.path(), "stdio"]}}});
    let server = serve(Scenario::new([
        reply([call("s", "mcp__probe__slow", json!({"seconds": 60}))]),
        reply([text("Stopped waiting.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--allowedTools", "mcp__probe", "--mcp-config", &format!("'{config}'")]);
    pane.wait_for("manual mode on");
    pane.type_text("wait a while");
    pane.keys(&["Enter"]);
    let within = std::time::Duration::from_secs(20);
    assert!(crate::mcp_python::wait_for(&markers.path().join("started"), within), "the call never started");
    pane.keys(&["Escape"]);
    pane.wait_for("Interrupted");
    assert!(
        crate::mcp_python::wait_for(&markers.path().join("cancelled"), within),
        "the server never saw the cancellation"
    );
}

/// `/mcp` lists each server with its state and tools, says why one failed, and
/// reconnects one (a real server: the everything server from npm).
#[test]
fn slash_mcp_shows_servers_and_reconnects() {
    let Some(nm) = crate::mcp::node_modules() else { return };
    let env = Env::new();
    let good = json!({"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]});
    let broken = json!({"command": "/nonexistent/mcp-server"});
    env.write(".mcp.json", &json!({"mcpServers": {"every": good, "broken": broken}}).to_string());
    env.write(".claude/settings.local.json", r#"{"enabledMcpjsonServers": ["every", "broken"]}"#);
    let server = serve(Scenario::new([reply([text("unused")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    // The servers connect in the background: ask until the good one is connected.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        pane.type_text("/mcp");
        pane.keys(&["Enter"]);
        std::thread::sleep(std::time::Duration::from_millis(300));
        let screen = pane.screen();
        if screen.contains("✔ every · connected") {
            assert!(screen.contains("echo"), "its tools are listed:\n{screen}");
            assert!(screen.contains("✘ broken · failed"), "{screen}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the server never showed as connected:\n{screen}");
    }
    pane.type_text("/mcp reconnect every");
    pane.keys(&["Enter"]);
    pane.wait_for("Reconnected every");
    pane.type_text("/mcp reconnect broken");
    pane.keys(&["Enter"]);
    pane.wait_for("No connected MCP server named \"broken\"");
}

/// A server name in the project's `.mcp.json` that holds escape sequences cannot redraw
/// the question (a forged row) or make the terminal type into it: only its text shows.
#[test]
fn a_server_name_cannot_forge_the_question() {
    let env = Env::new();
    let forged = "evil\r\u{1b}[2K  [ ] build-cache   (off)\u{1b}[>0q";
    let entry = json!({"command": "/bin/true"});
    env.write(".mcp.json", &json!({"mcpServers": {forged: entry, "docs": entry}}).to_string());
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start(&env, &server, &[]);
    let screen = pane.wait_for("[✔] docs");
    let row = screen.lines().find(|l| l.contains("evil")).unwrap_or_default();
    assert!(row.contains("[✔] evil") && row.contains("build-cache"), "the name shows as text on its own row: {screen}");
    assert!(!screen.lines().any(|l| l.trim_start().starts_with("[ ] build-cache")), "a forged row: {screen}");
    pane.keys(&["Escape"]);
    pane.wait_for("manual mode on");
}
