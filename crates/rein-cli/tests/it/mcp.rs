//! MCP servers through the real binary, with real servers: `@modelcontextprotocol/
//! server-everything` (installed by `.ci/run` under `.ci/node`, or found through
//! `REIN_TEST_MCP_NODE`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use crate::common;

use common::{Env, json_lines, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

/// The `node_modules` holding the test servers.
pub(crate) fn node_modules() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("REIN_TEST_MCP_NODE").map(PathBuf::from),
        Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node/node_modules")),
        Some(PathBuf::from("/tmp/mcpnode/node_modules")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.join(".bin/mcp-server-everything").exists());
    if found.is_none() {
        crate::common::unavailable("the MCP test servers are not installed in .ci/node");
    }
    found
}

fn everything(nm: &std::path::Path) -> Value {
    json!({"command": nm.join(".bin/mcp-server-everything"), "args": ["stdio"]})
}

#[test]
fn a_stdio_servers_tools_are_offered_and_called_through_the_chain() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let config = json!({"mcpServers": {"everything": everything(&nm), "broken": {"command": "/nonexistent/server"}}});
    let server = serve(Scenario::new([
        reply([
            tool_use_with_id("e", "mcp__everything__echo", json!({"message": "hi there"})),
            tool_use_with_id("s", "mcp__everything__get-sum", json!({"a": 2, "b": 3})),
            tool_use_with_id("i", "mcp__everything__get-tiny-image", json!({})),
            tool_use_with_id("st", "mcp__everything__get-structured-content", json!({"location": "New York"})),
            tool_use_with_id("bad", "mcp__everything__get-sum", json!({"a": "two"})),
        ]),
        reply([text("done")]),
    ]));
    let out = env
        .rein_at(&server)
        .args(["-p", "go", "--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__everything"])
        .arg("--mcp-config")
        .arg(config.to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = json_lines(&out.stdout);
    let init = lines.iter().find(|l| l["subtype"] == "init").unwrap();
    let names: Vec<&str> = init["mcp_servers"].as_array().unwrap().iter().filter_map(|s| s["name"].as_str()).collect();
    assert_eq!(names, ["broken", "everything"], "{init}");
    assert!(
        init["mcp_servers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| ["pending", "connected", "failed"].contains(&s["status"].as_str().unwrap())),
        "{init}"
    );
    // The first request is not held back; the tools join as soon as the server answers,
    // and a call to one waits for its server.
    let reqs = server.requests();
    let tools = reqs[1].body["tools"].as_array().unwrap();
    let echo = tools.iter().find(|t| t["name"] == "mcp__everything__echo").expect("offered to the model");
    assert!(echo["input_schema"]["properties"]["message"].is_object(), "{echo}");
    let messages = reqs[1].body["messages"].as_array().unwrap();
    assert_eq!(tool_result(messages, "e"), ("Echo: hi there".into(), false));
    let (sum, err) = tool_result(messages, "s");
    assert!(!err && sum.contains('5'), "{sum}");
    let (image, err) = tool_result(messages, "i");
    assert!(!err && image.contains("\"type\":\"image\"") && image.contains("image/png"), "{image}");
    let (structured, err) = tool_result(messages, "st");
    let parsed: Value = serde_json::from_str(&structured).unwrap_or(Value::Null);
    assert!(!err && parsed.is_object(), "structuredContent as its JSON: {structured}");
    let (bad, err) = tool_result(messages, "bad");
    assert!(err && bad.contains("InputValidationError"), "checked against the server's schema: {bad}");
}

#[test]
fn mcp_tools_are_asked_without_a_rule_and_denied_by_one() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let config = json!({"mcpServers": {"everything": everything(&nm)}});
    for (args, want) in [(vec![], "permission"), (vec!["--disallowedTools", "mcp__everything__echo"], "")] {
        let server = serve(Scenario::new([
            reply([tool_use_with_id("e", "mcp__everything__echo", json!({"message": "x"}))]),
            reply([text("done")]),
        ]));
        env.rein_at(&server).args(["-p", "go", "--mcp-config", &config.to_string()]).args(&args).assert().success();
        let reqs = server.requests();
        let tools: Vec<&str> =
            reqs[0].body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
        let (out, err) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "e");
        assert!(err, "{out}");
        if want.is_empty() {
            assert!(!tools.contains(&"mcp__everything__echo"), "a deny rule removes the tool: {tools:?}");
        } else {
            assert!(out.contains(want), "{out}");
        }
    }
}

/// Processes whose environment holds `marker`.
fn with_marker(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|e| e.windows(marker.len()).any(|w| w == marker.as_bytes()))
        })
        .collect()
}

#[test]
fn servers_get_no_api_key_and_never_outlive_rein() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let marker = format!("rein-mcp-marker-{}", std::process::id());
    let mut entry = everything(&nm);
    entry["env"] = json!({"REIN_TEST_MARKER": marker, "FROM_ENTRY": "${HOME}"});
    let config = json!({"mcpServers": {"everything": entry}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("g", "mcp__everything__get-env", json!({}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__everything", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let (vars, err) = tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "g");
    assert!(!err, "{vars}");
    assert!(!vars.contains("sk-test"), "rein's API key reached the server: {vars}");
    assert!(vars.contains("CLAUDECODE") && vars.contains(&env.home.path().display().to_string()), "{vars}");
    // Killed as rein exits; the kernel may take a moment to tear a large process down.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while !with_marker(&marker).is_empty() {
        assert!(std::time::Instant::now() < deadline, "a server outlived rein");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Killed with SIGKILL, rein runs none of its exit paths: the server goes all the same,
    // even one that never reads its stdin (so it would not notice rein is gone).
    let deaf = json!({"command": "sh", "args": ["-c", "exec sleep 300"], "env": {"REIN_TEST_MARKER": marker}});
    let config = json!({"mcpServers": {"deaf": deaf}});
    let slow = serve(Scenario::new([reply([text("thinking")]).pause_after_event(0, 30_000)]));
    let mut child = env
        .spawnable_at(&slow)
        .args(["-p", "go", "--mcp-config", &config.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while with_marker(&marker).is_empty() {
        assert!(std::time::Instant::now() < deadline, "the server never started");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    let _ = child.wait();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !with_marker(&marker).is_empty() {
        assert!(std::time::Instant::now() < deadline, "the server outlived kill -9 of rein");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Headless waits for a slow server (up to MCP_TIMEOUT), as Claude Code does: its tools
/// are in the first request, and the call works.
#[test]
fn a_slow_server_is_waited_for_and_its_tools_are_in_the_first_request() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let bin = nm.join(".bin/mcp-server-everything");
    let slow = json!({"command": "bash", "args": ["-c", format!("sleep 1.5; exec '{}' stdio", bin.display())]});
    let config = json!({"mcpServers": {"slow": slow}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("e", "mcp__slow__echo", json!({"message": "late"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__slow", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let reqs = server.requests();
    let names = |i: usize| -> Vec<String> {
        reqs[i].body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str().map(String::from)).collect()
    };
    assert!(names(0).contains(&"mcp__slow__echo".to_string()), "the first request went without it: {:?}", names(0));
    assert_eq!(tool_result(reqs[1].body["messages"].as_array().unwrap(), "e"), ("Echo: late".into(), false));
}

#[test]
fn a_call_that_runs_too_long_times_out_with_claude_codes_message() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let config = json!({"mcpServers": {"everything": everything(&nm)}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id(
            "l",
            "mcp__everything__trigger-long-running-operation",
            json!({"duration": 30, "steps": 3}),
        )]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .env("MCP_TOOL_TIMEOUT", "1000")
        .args(["-p", "go", "--allowedTools", "mcp__everything", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let (out, err) = tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "l");
    assert!(
        err && out.contains("MCP server \"everything\" tool \"trigger-long-running-operation\" timed out after 1s"),
        "{out}"
    );
}

#[test]
fn rein_mcp_add_list_remove_write_claude_codes_files_and_sessions_use_them() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let bin = nm.join(".bin/mcp-server-everything");
    let add = env.rein().args(["mcp", "add", "ev", "--"]).arg(&bin).arg("stdio").output().unwrap();
    assert!(add.status.success(), "{}", String::from_utf8_lossy(&add.stderr));
    let claude: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home.path().join(".claude.json")).unwrap()).unwrap();
    let key = env.cwd().display().to_string();
    assert_eq!(claude["projects"][&key]["mcpServers"]["ev"]["args"], json!(["stdio"]), "{claude}");
    let project = env
        .rein()
        .args(["mcp", "add", "-s", "project", "-t", "http", "web", "http://127.0.0.1:9/mcp"])
        .output()
        .unwrap();
    assert!(project.status.success());
    let mcp_json: Value = serde_json::from_str(&std::fs::read_to_string(env.cwd().join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(mcp_json["mcpServers"]["web"], json!({"type": "http", "url": "http://127.0.0.1:9/mcp"}));
    let bad = env.rein().args(["mcp", "add", "bad name", "--", "x"]).output().unwrap();
    assert!(!bad.status.success() && String::from_utf8_lossy(&bad.stderr).contains("Invalid name bad name."));
    let list = env.rein().args(["mcp", "list"]).output().unwrap();
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains("ev: ") && listed.contains("✔ Connected"), "{listed}");
    // A project's server is not started to check it before the folder is trusted and
    // the server approved, as a session would not start it.
    assert!(
        listed.contains("web: http://127.0.0.1:9/mcp (HTTP) - ⏸ not started: this folder is not trusted"),
        "{listed}"
    );
    env.trust();
    let listed = String::from_utf8_lossy(&env.rein().args(["mcp", "list"]).output().unwrap().stdout).into_owned();
    assert!(listed.contains("web: http://127.0.0.1:9/mcp (HTTP) - ⏸ not started: nobody approved"), "{listed}");
    env.write(".claude/settings.local.json", r#"{"enabledMcpjsonServers": ["web"]}"#);
    let listed = String::from_utf8_lossy(&env.rein().args(["mcp", "list"]).output().unwrap().stdout).into_owned();
    assert!(listed.contains("web: http://127.0.0.1:9/mcp (HTTP) - ✘ Failed to connect"), "{listed}");
    // A session uses the local entry; --strict-mcp-config leaves it out.
    for (strict, offered) in [(false, true), (true, false)] {
        let server = serve(Scenario::new([reply([text("one")]), reply([text("two")])]));
        let mut rein = env.rein_at(&server);
        rein.args(["-p", "go", "--output-format", "stream-json", "--verbose"]);
        if strict {
            rein.arg("--strict-mcp-config");
        }
        let out = rein.output().unwrap();
        let init = json_lines(&out.stdout).into_iter().find(|l| l["subtype"] == "init").unwrap();
        let named = init["mcp_servers"].as_array().unwrap().iter().any(|s| s["name"] == "ev");
        assert_eq!(named, offered, "{init}");
    }
    let rm = env.rein().args(["mcp", "remove", "ev"]).output().unwrap();
    assert!(String::from_utf8_lossy(&rm.stdout).contains("Removed MCP server ev from local config"));
    let gone = env.rein().args(["mcp", "get", "ev"]).output().unwrap();
    assert!(
        !gone.status.success() && String::from_utf8_lossy(&gone.stderr).contains("No MCP server found with name: ev")
    );
}

#[test]
fn a_result_over_max_mcp_output_tokens_is_saved_to_a_file() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let config = json!({"mcpServers": {"everything": everything(&nm)}});
    let long = "x".repeat(400);
    let server = serve(Scenario::new([
        reply([tool_use_with_id("e", "mcp__everything__echo", json!({"message": long}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .env("MAX_MCP_OUTPUT_TOKENS", "50")
        .args(["-p", "go", "--allowedTools", "mcp__everything", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let (out, _) = tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "e");
    assert!(out.contains("saved to") && out.len() < 400 + 600, "{out}");
}

#[test]
fn resources_are_listed_and_read_with_claude_codes_tools() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let config = json!({"mcpServers": {"everything": everything(&nm)}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("l", "ListMcpResourcesTool", json!({}))]),
        reply([tool_use_with_id(
            "r",
            "ReadMcpResourceTool",
            json!({"server": "everything", "uri": "demo://resource/static/document/features.md"}),
        )]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "ListMcpResourcesTool,ReadMcpResourceTool"])
        .args(["--mcp-config", &config.to_string()])
        .assert()
        .success();
    let reqs = server.requests();
    let (listed, err) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "l");
    assert!(!err, "{listed}");
    let list: Value = serde_json::from_str(&listed).unwrap();
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|r| r["server"] == "everything" && r["uri"] == "demo://resource/static/document/features.md"),
        "{listed}"
    );
    let (read, err) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "r");
    let read: Value = serde_json::from_str(&read).unwrap();
    assert!(!err && read["contents"][0]["text"].as_str().is_some_and(|t| !t.is_empty()), "{read}");
}

#[test]
fn an_mcp_prompt_runs_as_a_slash_command() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let config = json!({"mcpServers": {"everything": everything(&nm)}});
    let server = serve(Scenario::new([reply([text("done")])]));
    env.rein_at(&server)
        .args(["-p", "/mcp__everything__args-prompt Paris \"Ile de France\"", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let first = server.requests()[0].body["messages"][0].to_string();
    assert!(first.contains("<command-name>/mcp__everything__args-prompt</command-name>"), "{first}");
    assert!(first.contains("Paris") && first.contains("Ile de France"), "{first}");
    let unknown = env
        .rein_at(&serve(Scenario::new([reply([text("x")])])))
        .args(["-p", "/mcp__everything__no-such-prompt", "--mcp-config", &config.to_string()])
        .output()
        .unwrap();
    assert!(!unknown.status.success() && String::from_utf8_lossy(&unknown.stderr).contains("Unknown MCP prompt"));
}

#[test]
fn managed_lists_decide_which_servers_start() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let config = json!({"mcpServers": {"a": everything(&nm), "b": everything(&nm)}});
    let statuses = |settings: &str| -> Vec<(String, String)> {
        let server = serve(Scenario::new([reply([text("ok")])]));
        let out = env
            .rein_at(&server)
            .args(["-p", "go", "--output-format", "stream-json", "--verbose", "--settings", settings])
            .args(["--mcp-config", &config.to_string()])
            .output()
            .unwrap();
        let init = json_lines(&out.stdout).into_iter().find(|l| l["subtype"] == "init").unwrap();
        init["mcp_servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["name"].as_str().unwrap().to_string(), s["status"].as_str().unwrap().to_string()))
            .collect()
    };
    let denied = statuses(r#"{"deniedMcpServers": [{"serverName": "a"}]}"#);
    assert!(denied.contains(&("a".into(), "disabled".into())), "{denied:?}");
    assert!(!denied.contains(&("b".into(), "disabled".into())), "{denied:?}");
    let command = json!({"allowedMcpServers": [{"serverCommand": [nm.join(".bin/mcp-server-everything"), "stdio"]}],
        "deniedMcpServers": [{"serverName": "b"}]});
    let both = statuses(&command.to_string());
    assert!(
        both.contains(&("b".into(), "disabled".into())) && !both.contains(&("a".into(), "disabled".into())),
        "{both:?}"
    );
    let none = statuses(r#"{"allowedMcpServers": []}"#);
    assert!(none.iter().all(|(_, s)| s == "disabled"), "{none:?}");
}

#[test]
fn a_subagent_uses_the_sessions_mcp_tools() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    let config = json!({"mcpServers": {"everything": everything(&nm)}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("a", "Agent", json!({"description": "echo", "prompt": "echo something"}))]),
        reply([tool_use_with_id("e", "mcp__everything__echo", json!({"message": "from a subagent"}))]),
        reply([text("echoed")]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__everything,Agent", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let reqs = server.requests();
    assert_eq!(tool_result(reqs[2].body["messages"].as_array().unwrap(), "e"), ("Echo: from a subagent".into(), false));
}

#[test]
fn bad_entries_and_servers_that_need_auth_are_reported_not_fatal() {
    let port = common::http_answering(
        b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"x\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    let env = Env::new();
    let config = json!({"mcpServers": {
        "locked": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")},
        "badurl": {"url": "http://127.0.0.1:1/mcp"},
        "pigeon": {"type": "carrier-pigeon"}
    }});
    let server =
        serve(Scenario::new([reply([tool_use_with_id("x", "mcp__locked__anything", json!({}))]), reply([text("ok")])]));
    let out = env
        .rein_at(&server)
        .args(["-p", "go", "--output-format", "stream-json", "--verbose", "--mcp-config", &config.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let init = json_lines(&out.stdout).into_iter().find(|l| l["subtype"] == "init").unwrap();
    let errors = init["mcp_server_errors"].as_array().expect("skipped entries are reported");
    let kinds: Vec<(&str, &str)> =
        errors.iter().map(|e| (e["name"].as_str().unwrap(), e["type"].as_str().unwrap())).collect();
    assert!(
        kinds.contains(&("badurl", "url_missing_type")) && kinds.contains(&("pigeon", "unknown_type")),
        "{kinds:?}"
    );
    assert!(errors.iter().any(|e| e["message"].as_str().unwrap().contains("has a \"url\" but no \"type\"")));
    assert!(errors.iter().all(|e| e["file"] == "--mcp-config"), "each names where the entry is: {errors:?}");
    // The tool call waited for the server, which needs credentials: an error, not a hang.
    let (result, err) = tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "x");
    assert!(err && result.contains("No such tool"), "{result}");
    let list =
        env.rein().arg(format!("--mcp-config={config}")).args(["--strict-mcp-config", "mcp", "list"]).output().unwrap();
    let listed = String::from_utf8_lossy(&list.stdout);
    assert!(listed.contains("locked: ") && listed.contains("Needs authentication"), "{listed}");
}

#[test]
fn the_filesystem_server_reads_inside_its_roots() {
    let Some(nm) = node_modules() else { return };
    let env = Env::new();
    env.write("notes.txt", "remember the milk\n");
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    let config = json!({"mcpServers": {"fs": {"command": nm.join(".bin/mcp-server-filesystem"), "args": [root]}}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("r", "mcp__fs__read_text_file", json!({"path": root.join("notes.txt")}))]),
        reply([tool_use_with_id("o", "mcp__fs__read_text_file", json!({"path": "/etc/hostname"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__fs", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let reqs = server.requests();
    let (read, err) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "r");
    assert!(!err && read.contains("remember the milk"), "{read}");
    let (outside, err) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "o");
    assert!(err && outside.to_lowercase().contains("denied"), "{outside}");
}

#[test]
fn server_everything_over_streamable_http_on_loopback() {
    let Some(nm) = node_modules() else { return };
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let preload = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/loopback_only.cjs");
    let mut http = std::process::Command::new(nm.join(".bin/mcp-server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .env("NODE_OPTIONS", format!("--require {}", preload.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "server-everything did not start");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let env = Env::new();
    let config = json!({"mcpServers": {"web": {"type": "http", "url": format!("http://127.0.0.1:{port}/mcp")}}});
    let server = serve(Scenario::new([
        reply([tool_use_with_id("e", "mcp__web__echo", json!({"message": "over http"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "go", "--allowedTools", "mcp__web", "--mcp-config", &config.to_string()])
        .assert()
        .success();
    let _ = http.kill();
    let _ = http.wait();
    assert_eq!(
        tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "e"),
        ("Echo: over http".into(), false)
    );
}
