//! Checkpoints and rewind through the real binary: a session that changes files over
//! three turns (each a separate process: checkpoints survive resuming), a file changed
//! outside rein in between, `rein rewind` and `--rewind-to`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve};
use rein_testkit::{FakeServer, Scenario, Step, reply, text, tool_use_with_id};
use serde_json::{Value, json};

fn write(id: &str, path: &std::path::Path, content: &str) -> Step {
    reply([tool_use_with_id(id, "Write", json!({"file_path": path, "content": content}))]).into()
}

/// Three turns: a.txt created, then a.txt rewritten and b.txt created, then c.txt created.
fn three_turns(env: &Env) -> FakeServer {
    let (a, b, c) = (env.cwd().join("a.txt"), env.cwd().join("b.txt"), env.cwd().join("c.txt"));
    let server = serve(Scenario::new([
        write("w1", &a, "one\n"),
        reply([text("turn one done")]).into(),
        reply([tool_use_with_id("r2", "Read", json!({"file_path": a}))]).into(),
        reply([
            tool_use_with_id("e2", "Write", json!({"file_path": a, "content": "two\n"})),
            tool_use_with_id("w2", "Write", json!({"file_path": b, "content": "bee\n"})),
        ])
        .into(),
        reply([text("turn two done")]).into(),
        write("w3", &c, "sea\n"),
        reply([text("turn three done")]).into(),
        reply([text("after the rewind")]).into(),
    ]));
    for (i, prompt) in ["first prompt", "second prompt", "third prompt"].iter().enumerate() {
        let mut cmd = env.rein_at(&server);
        cmd.args(["-p", prompt, "--allowedTools", "Write,Edit,Read"]);
        if i > 0 {
            cmd.arg("--continue");
        }
        cmd.assert().success();
    }
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "two\n");
    assert!(b.exists() && c.exists());
    server
}

fn transcript(env: &Env) -> Vec<Value> {
    let projects = env.home.path().join(".rein/projects");
    let dir = std::fs::read_dir(projects).unwrap().flatten().next().unwrap().path();
    let file = std::fs::read_dir(dir).unwrap().flatten().next().unwrap().path();
    std::fs::read_to_string(file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn rein_rewind_restores_files_and_conversation_and_asks_about_outside_changes() {
    let env = Env::new();
    let server = three_turns(&env);
    let listing = env.rein().arg("rewind").assert().success();
    let listing = String::from_utf8_lossy(&listing.get_output().stdout).to_string();
    assert!(listing.contains("1. first prompt") && listing.contains("3. third prompt"), "{listing}");
    // b.txt is edited by hand: rewinding would overwrite that, so rein does not (no
    // terminal to ask in) and changes nothing.
    std::fs::write(env.cwd().join("b.txt"), "edited by hand\n").unwrap();
    env.rein().args(["rewind", "2"]).assert().failure().stderr(predicates::str::contains("b.txt"));
    assert_eq!(std::fs::read_to_string(env.cwd().join("a.txt")).unwrap(), "two\n");
    assert!(env.cwd().join("c.txt").exists());
    // Said yes: back to before the second prompt.
    env.rein().args(["rewind", "2", "--yes"]).assert().success();
    assert_eq!(std::fs::read_to_string(env.cwd().join("a.txt")).unwrap(), "one\n");
    assert!(!env.cwd().join("b.txt").exists() && !env.cwd().join("c.txt").exists());
    let lines = transcript(&env);
    assert!(lines.iter().any(|l| l["subtype"] == "rewind" && l["content"]["to_prompt"] == 1), "the rewind is recorded");
    // The conversation went back too.
    env.rein_at(&server).args(["-p", "fourth prompt", "--continue"]).assert().success();
    let last = server.requests().last().unwrap().body["messages"].to_string();
    assert!(last.contains("first prompt") && last.contains("fourth prompt"), "{last}");
    assert!(!last.contains("second prompt") && !last.contains("third prompt"), "{last}");
}

#[test]
fn rewind_to_a_message_uuid_when_resuming() {
    let env = Env::new();
    let server = three_turns(&env);
    let lines = transcript(&env);
    let session = lines[0]["sessionId"].as_str().unwrap().to_string();
    let third = lines
        .iter()
        .find(|l| l["type"] == "user" && l["message"].to_string().contains("third prompt"))
        .unwrap()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    env.rein_at(&server).args(["-p", "fourth prompt", "--resume", &session, "--rewind-to", &third]).assert().success();
    assert!(!env.cwd().join("c.txt").exists(), "c.txt was made by the third prompt");
    assert_eq!(std::fs::read_to_string(env.cwd().join("a.txt")).unwrap(), "two\n");
    let last = server.requests().last().unwrap().body["messages"].to_string();
    assert!(last.contains("second prompt") && !last.contains("third prompt"), "{last}");
}

#[test]
fn cleanup_period_days_prunes_old_sessions_checkpoints() {
    let env = Env::new();
    let sessions = env.home.path().join(".rein/sessions");
    for name in ["old-session", "recent-session", "saved-to-lately"] {
        std::fs::create_dir_all(sessions.join(name).join("checkpoints")).unwrap();
        std::fs::write(sessions.join(name).join("checkpoints/index.jsonl"), "").unwrap();
        std::fs::create_dir_all(sessions.join(name).join("tool-results")).unwrap();
        std::fs::write(sessions.join(name).join("tool-results/Bash-1.txt"), "a saved output").unwrap();
    }
    let mut old = vec![sessions.join("old-session/tool-results")];
    for name in ["old-session", "saved-to-lately"] {
        old.extend([sessions.join(name), sessions.join(name).join("checkpoints/index.jsonl")]);
    }
    for p in old {
        let ok = std::process::Command::new("touch").args(["-d", "5 days ago"]).arg(p).status().unwrap();
        assert!(ok.success());
    }
    env.write(".claude/settings.json", &json!({"cleanupPeriodDays": 2}).to_string());
    let server = serve(Scenario::new([reply([text("hi")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    assert!(!sessions.join("old-session").exists(), "5 days old with a 2-day period, saved outputs and all");
    assert!(sessions.join("recent-session").exists());
    assert!(sessions.join("saved-to-lately/tool-results/Bash-1.txt").exists(), "an output was saved there lately");
}
