//! A new interactive session is named by the small fast model after its first turn, in
//! the background (as Claude Code titles its sessions): the title is written to the
//! transcript as Claude Code's summary line and lists the session in `rein sessions`
//! and the resume pickers. Headless runs send no title request.

use std::time::{Duration, Instant};

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text};

#[test]
fn a_new_interactive_session_is_titled_by_the_small_model() {
    let env = Env::new();
    let server = serve(
        Scenario::new([reply([text("Hello there.")]), reply([text("Second answer.")])])
            .with_title("\"Greet the user politely.\""),
    );
    let pane = Pane::start_with(&env, &server, "ANTHROPIC_SMALL_FAST_MODEL='tiny-model'", &["'say hello'"]);
    pane.wait_for("Hello there.");
    pane.type_text("and again");
    pane.keys(&["Enter"]);
    pane.wait_for("Second answer.");
    // Listed by its title once the background request is answered.
    let deadline = Instant::now() + Duration::from_secs(15);
    let listed = loop {
        let out = env.rein().arg("sessions").output().unwrap();
        let listed = String::from_utf8_lossy(&out.stdout).into_owned();
        if listed.contains("Greet the user politely") || Instant::now() > deadline {
            break listed;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(listed.contains("Greet the user politely") && !listed.contains("say hello"), "{listed}");
    pane.keys(&["C-c", "C-c"]);

    let titles = server.titles();
    assert_eq!(titles.len(), 1, "one title a session");
    assert_eq!(titles[0].body["model"], "tiny-model", "the small fast model names it");
    assert!(titles[0].body["messages"].to_string().contains("say hello"), "from the first prompt");
    assert_eq!(server.requests().len(), 2, "the session's own requests are untouched");
    // Claude Code's line shape.
    let projects = env.home.path().join(".rein/projects");
    let transcript = walk(&projects).into_iter().find(|p| p.extension().is_some_and(|e| e == "jsonl")).unwrap();
    let line = std::fs::read_to_string(&transcript)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "summary")
        .expect("a summary line");
    assert_eq!(line["summary"], "Greet the user politely");
    assert!(line["leafUuid"].is_string(), "{line}");

    // `--resume` takes the title too.
    let resumed = serve(Scenario::new([reply([text("resumed")])]));
    env.rein_at(&resumed).args(["-p", "go on", "--resume", "greet the user politely"]).assert().success();
    let history = resumed.requests()[0].body["messages"].to_string();
    assert!(history.contains("say hello") && history.contains("Second answer."), "{history}");
}

#[test]
fn headless_runs_send_no_title_request() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("done")])]));
    env.rein_at(&server).args(["-p", "say hello"]).assert().success();
    assert!(server.titles().is_empty());
    assert_eq!(server.requests().len(), 1);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}
