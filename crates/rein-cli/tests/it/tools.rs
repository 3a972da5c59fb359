//! Every built-in tool through the real binary, driven by the fake model server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{Read, Write};

use common::{Env, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

/// A one-page web server on loopback, for WebFetch.
fn web_page() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(4) {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let body = "<html><body><h2>Changelog</h2><ul><li>fixed the bug</li></ul></body></html>";
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}/changes")
}

/// The tool_result for `id` anywhere in the last request.
fn result(messages: &[Value], id: &str) -> (String, bool) {
    common::tool_result(messages, id)
}

#[test]
fn every_tool_works_through_the_binary() {
    let env = Env::new();
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    let p = |rel: &str| root.join(rel).display().to_string();
    std::fs::create_dir(root.join("sub")).unwrap();
    env.write(
        "nb.ipynb",
        r#"{"cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "source": ["1"], "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#,
    );
    let url = web_page();
    let server = serve(Scenario::new([
        reply([
            call("w", "Write", json!({"file_path": p("app.py"), "content": "def add(a, b):\n    return a - b\n"})),
            call(
                "todo",
                "TodoWrite",
                json!({"todos": [{"content": "Fix add", "status": "in_progress", "activeForm": "Fixing add"}]}),
            ),
        ]),
        reply([call("r", "Read", json!({"file_path": p("app.py")}))]),
        reply([
            call("e", "Edit", json!({"file_path": p("app.py"), "old_string": "a - b", "new_string": "a + b"})),
            call(
                "me",
                "MultiEdit",
                json!({"file_path": p("app.py"), "edits": [
                    {"old_string": "def add", "new_string": "def plus"},
                    {"old_string": "plus(a, b)", "new_string": "plus(a: int, b: int)"}
                ]}),
            ),
        ]),
        reply([
            call("g", "Glob", json!({"pattern": "**/*.py"})),
            call("gr", "Grep", json!({"pattern": "return", "output_mode": "content"})),
        ]),
        reply([
            call("b1", "Bash", json!({"command": "cd sub && export MARK=kept"})),
            call("b2", "Bash", json!({"command": "pwd; echo $MARK"})),
            call("bg", "Bash", json!({"command": "echo bg-started; sleep 300", "run_in_background": true})),
            // Not read-only, so it runs alone: BashOutput comes after it.
            call("wait", "Bash", json!({"command": "sleep 0.3 && touch waited"})),
            call("bo", "BashOutput", json!({"bash_id": "bash_1"})),
            call("ks", "KillShell", json!({"shell_id": "bash_1"})),
        ]),
        reply([
            call("rn", "Read", json!({"file_path": p("nb.ipynb")})),
            call("nb", "NotebookEdit", json!({"notebook_path": p("nb.ipynb"), "cell_id": "c1", "new_source": "2 + 2"})),
            call("wf", "WebFetch", json!({"url": url, "prompt": "what changed?"})),
        ]),
        // WebFetch's digest: the small model answers the prompt from the page.
        reply([text("The changelog says the bug was fixed.")]),
        reply([text("All tools ran.")]),
    ]));
    env.rein_at(&server)
        .args(["-p", "exercise every tool", "--dangerously-skip-permissions"])
        .assert()
        .success()
        .stdout("All tools ran.\n");

    let reqs = server.requests();
    assert_eq!(reqs.len(), 8, "one extra request: WebFetch's digest");
    let digest = &reqs[6];
    assert!(digest.body.get("tools").is_none(), "{}", digest.body);
    assert_eq!(digest.body["model"], "claude-haiku-4-5", "the small fast model answers");
    assert_ne!(reqs[7].body["model"], "claude-haiku-4-5");
    let asked = digest.body["messages"][0]["content"].to_string();
    assert!(
        asked.contains("## Changelog") && asked.contains("fixed the bug") && asked.contains("what changed?"),
        "{asked}"
    );
    let messages = reqs[7].body["messages"].as_array().unwrap().clone();
    let ok = |id: &str| {
        let (text, is_error) = result(&messages, id);
        assert!(!is_error, "{id} failed: {text}");
        text
    };
    assert!(ok("w").starts_with("Created"));
    assert!(ok("todo").contains("[~] Fixing add"));
    assert!(ok("r").contains("     2\t    return a - b"));
    assert!(ok("e").contains("return a + b"));
    ok("me");
    assert_eq!(std::fs::read_to_string(root.join("app.py")).unwrap(), "def plus(a: int, b: int):\n    return a + b\n");
    assert!(ok("g").ends_with("app.py"));
    assert!(ok("gr").contains("app.py:2:    return a + b"));
    ok("b1");
    assert_eq!(ok("b2"), format!("{}\nkept", root.join("sub").display()));
    assert!(ok("bg").contains("bash_1"));
    assert!(ok("bo").contains("bg-started"));
    assert!(ok("ks").ends_with("killed"));
    ok("rn");
    assert!(ok("nb").starts_with("Updated cell c1"));
    let nb: Value = serde_json::from_str(&std::fs::read_to_string(root.join("nb.ipynb")).unwrap()).unwrap();
    assert_eq!(nb["cells"][0]["source"], json!(["2 + 2"]));
    let wf = ok("wf");
    assert!(wf.starts_with("The changelog says the bug was fixed."), "{wf}");
    assert!(!wf.contains("## Changelog"), "the main model reads the answer, not the page: {wf}");
    let saved = wf.split("saved at ").nth(1).and_then(|r| r.split("; Read").next()).unwrap();
    assert!(std::fs::read_to_string(saved).unwrap().contains("## Changelog"), "the whole page is kept for a Read");
}

#[test]
fn the_wall_holds_through_the_binary() {
    let env = Env::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escape.txt");
    let server = serve(Scenario::new([
        reply([call("w", "Write", json!({"file_path": target, "content": "x"}))]),
        reply([text("blocked")]),
    ]));
    env.rein_at(&server).args(["-p", "x"]).assert().success();
    let messages = server.requests()[1].body["messages"].as_array().unwrap().clone();
    let (text, is_error) = result(&messages, "w");
    assert!(is_error && text.contains("outside the workspace"), "{text}");
    assert!(!target.exists());
}

/// A result too large for the model is saved under `$REIN_HOME/sessions/<session id>/`,
/// where the session's own id finds it.
#[test]
fn large_results_are_spilled_under_rein_home_and_the_session_id() {
    let env = Env::new();
    let rein_home = tempfile::tempdir().unwrap();
    let lines: String = (1..=20000).map(|i| format!("match {i}\n")).collect();
    env.write("big.txt", &lines);
    let server = serve(Scenario::new([
        reply([call("big", "Grep", json!({"pattern": "match", "output_mode": "content", "head_limit": 20000}))]),
        reply([text("done")]),
    ]));
    let out = env
        .rein_at(&server)
        .env("REIN_HOME", rein_home.path())
        .args(["-p", "go", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let session_id = serde_json::from_slice::<Value>(&out.stdout).unwrap()["session_id"].as_str().unwrap().to_string();
    let msgs = server.requests()[1].body["messages"].as_array().unwrap().clone();
    let (text, _) = result(&msgs, "big");
    let dir = rein_home.path().join("sessions").join(&session_id).join("tool-results");
    assert!(text.contains(&dir.display().to_string()), "{text}");
    let saved: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(saved.len(), 1);
    assert!(std::fs::read_to_string(saved[0].path()).unwrap().contains("match 19999\n"));
    assert!(!env.home.path().join(".rein/sessions").exists(), "nothing lands outside REIN_HOME");
}

/// A command's huge output loses nothing: the model gets its head and tail and the file
/// that holds every line, which Read opens without a question and without spilling again.
#[test]
fn a_huge_command_output_is_saved_whole_and_read_back() {
    let env = Env::new();
    let rein_home = tempfile::tempdir().unwrap();
    let server = serve(Scenario::new([
        reply([call("seq", "Bash", json!({"command": "seq 1 200000"}))]),
        reply([text("saved")]),
    ]));
    let out = env
        .rein_at(&server)
        .env("REIN_HOME", rein_home.path())
        .args(["-p", "count", "--allowedTools", "Bash(seq:*)", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let session = serde_json::from_slice::<Value>(&out.stdout).unwrap()["session_id"].as_str().unwrap().to_string();
    let msgs = server.requests()[1].body["messages"].as_array().unwrap().clone();
    let (preview, is_error) = result(&msgs, "seq");
    assert!(!is_error && preview.len() < 2600, "a small preview: {} characters", preview.len());
    assert!(preview.starts_with("1\n2\n3\n") && preview.contains("199999\n200000"), "head and tail");
    assert!(preview.contains("200000 lines"), "{preview}");
    let path = preview.split("saved to ").nth(1).unwrap().split(". Use Read").next().unwrap().to_string();
    let whole: String = (1..=200_000).map(|i| format!("{i}\n")).collect();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), whole, "every line is in the file");

    // The session reads the rest: allowed headless (nothing is asked), never spilled again.
    let server = serve(Scenario::new([
        reply([call("r", "Read", json!({"file_path": path, "offset": 150000, "limit": 3}))]),
        reply([call("all", "Read", json!({"file_path": path, "limit": 20000}))]),
        reply([text("read")]),
    ]));
    let resume = |server: &rein_testkit::FakeServer| {
        env.rein_at(server).env("REIN_HOME", rein_home.path()).args(["-p", "read it", "--resume", &session]).output()
    };
    let out = resume(&server).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let msgs = server.requests()[2].body["messages"].as_array().unwrap().clone();
    let (page, is_error) = result(&msgs, "r");
    assert!(!is_error && page.contains("150000\t150000"), "{page}");
    let (all, _) = result(&msgs, "all");
    assert!(all.len() > 200_000, "over the per-message budget (the 200 000-token window), still whole: {}", all.len());
    assert!(!all.contains("saved to"), "a Read is never spilled again");

    // Another session's saved output is not its own: reading it is asked (refused
    // headless); so is a second name (a hard link) for a file in the folder.
    let other = serve(Scenario::new([reply([call("o", "Read", json!({"file_path": path}))]), reply([text("no")])]));
    env.rein_at(&other).env("REIN_HOME", rein_home.path()).args(["-p", "peek"]).assert().success();
    let (seen, is_error) = result(other.requests()[1].body["messages"].as_array().unwrap(), "o");
    assert!(is_error, "another session's saved output is asked: {}", &seen[..seen.len().min(200)]);
    let secret = env.write("secret.txt", "the secret\n");
    let linked = std::path::Path::new(&path).with_file_name("linked.txt");
    std::fs::hard_link(&secret, &linked).unwrap();
    let link_read =
        serve(Scenario::new([reply([call("l", "Read", json!({"file_path": linked}))]), reply([text("no")])]));
    assert!(resume(&link_read).unwrap().status.success());
    let (seen, is_error) = result(link_read.requests()[1].body["messages"].as_array().unwrap(), "l");
    assert!(is_error && !seen.contains("the secret"), "a hard link is asked: {seen}");
}
