//! Background sessions through the real binary: `rein --bg` against the fake server,
//! listed with `rein agents`, followed with `rein logs`, attached in tmux (a waiting
//! question answered there, two terminals at once, Ctrl+Z to detach), stopped, removed,
//! and a session whose host was killed resumed by attaching to it.

use std::time::{Duration, Instant};

use rein_testkit::{Scenario, reply, text, tool_use};
use serde_json::{Value, json};

use crate::common::{Env, serve};
use crate::tui_pane::Pane;

/// Stops every background session of the test's HOME when the test ends, passed or not:
/// no host outlives its test.
struct StopAll<'a>(&'a Env);

impl Drop for StopAll<'_> {
    fn drop(&mut self) {
        for job in agents(self.0) {
            if let Some(id) = job["id"].as_str() {
                let _ = self.0.rein().args(["stop", id]).output();
            }
        }
    }
}

fn agents(env: &Env) -> Vec<Value> {
    let out = env.rein().args(["agents", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout).unwrap().as_array().cloned().unwrap_or_default()
}

/// Wait until the session `id` has the status `status` in `rein agents --json`.
fn wait_status(env: &Env, id: &str, status: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let all = agents(env);
        let job = all.iter().find(|j| j["id"] == id).cloned().unwrap_or(Value::Null);
        if job["status"] == status {
            return job;
        }
        assert!(Instant::now() < deadline, "waited for {id} to be {status}: {all:#?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `rein --bg …` with the test server's address in the environment the session inherits.
fn start(env: &Env, server: &rein_testkit::FakeServer, args: &[&str]) -> String {
    let out = env.rein_at(server).env("REIN_TUI_ANSWER_PAUSE_MS", "0").arg("--bg").args(args).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    let first = said.lines().next().unwrap_or_default();
    assert!(first.starts_with("backgrounded · "), "{said}");
    first.split(" · ").nth(1).unwrap().to_string()
}

fn touch_then_done() -> Scenario {
    Scenario::new([
        reply([tool_use("Bash", json!({"command": "touch made-in-the-background.txt", "description": "make a file"}))]),
        reply([text("Made the file in the background.")]),
    ])
}

#[test]
fn a_background_session_is_listed_followed_answered_from_two_terminals_detached_stopped_and_removed() {
    let env = Env::new();
    env.trust();
    let _stop = StopAll(&env);
    let server = serve(touch_then_done());
    let id = start(&env, &server, &["-n", "maker", "make a file please"]);
    // Nobody is attached: the question waits, and the list says so.
    let job = wait_status(&env, &id, "needs you");
    assert_eq!(job["name"], "maker");
    assert!(job["detail"].as_str().unwrap().contains("touch made-in-the-background.txt"), "{job}");
    let listed = env.rein().arg("agents").output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.starts_with("Needs you (1)") && listed.contains(&id), "{listed}");
    let logs = env.rein().args(["logs", "make"]).output().unwrap();
    let logs = String::from_utf8_lossy(&logs.stdout);
    assert!(logs.contains("> make a file please"), "{logs}");
    assert!(logs.contains("● Bash(touch made-in-the-background.txt)"), "{logs}");
    assert!(
        logs.contains(&format!(
            "it waits for you: Bash wants to run: touch made-in-the-background.txt (rein attach {id})"
        )),
        "{logs}"
    );
    assert!(!env.cwd().join("made-in-the-background.txt").exists());

    // Two terminals attach at once; both show the waiting question.
    let first = Pane::rein_sized(&env, "", &format!("attach {id}"), (100, 30));
    first.wait_for("Do you want to proceed?");
    first.wait_for("background session: ctrl+z detaches");
    let second = Pane::rein_sized(&env, "", &format!("attach {}", &id[..5]), (90, 28));
    second.wait_for("Do you want to proceed?");
    // Answered in one, the session goes on in both.
    second.keys(&["1"]);
    first.wait_for("Made the file in the background.");
    second.wait_for("Made the file in the background.");
    assert!(env.cwd().join("made-in-the-background.txt").exists());
    let job = wait_status(&env, &id, "done");
    assert!(job["costUsd"].as_f64().unwrap() > 0.0, "{job}");
    assert_eq!(job["output"], "Made the file in the background.");

    // Ctrl+Z detaches the first terminal; the session goes on.
    first.keys(&["C-z"]);
    first.wait_for(&format!("detached from {id}"));
    assert_eq!(wait_status(&env, &id, "done")["state"], "working");

    let stopped = env.rein().args(["stop", "maker"]).output().unwrap();
    assert!(String::from_utf8_lossy(&stopped.stdout).contains(&format!("stopped {id}")));
    second.wait_for(&format!("background session {id} ended"));
    wait_status(&env, &id, "stopped");

    let removed = env.rein().args(["rm", &id]).output().unwrap();
    let removed = String::from_utf8_lossy(&removed.stdout);
    assert!(removed.contains(&format!("removed {id}; its conversation stays (rein -r ")), "{removed}");
    assert!(agents(&env).is_empty());
    let gone = env.rein().args(["logs", &id]).output().unwrap();
    assert!(!gone.status.success());
    assert!(String::from_utf8_lossy(&gone.stderr).contains("no background session matches"));
}

#[test]
fn a_background_session_whose_host_was_killed_resumes_when_attached() {
    let env = Env::new();
    env.trust();
    let _stop = StopAll(&env);
    let server = serve(touch_then_done());
    let id = start(&env, &server, &["keep working on it"]);
    let job = wait_status(&env, &id, "needs you");
    let host = job["pid"].as_i64().unwrap();
    // SIGKILL: no chance to record anything.
    assert_eq!(unsafe { libc::kill(host as i32, libc::SIGKILL) }, 0);
    let job = wait_status(&env, &id, "failed");
    assert_eq!(job["state"], "done");
    // Its conversation is complete up to the question it was asking.
    let logs = env.rein().args(["logs", &id]).output().unwrap();
    assert!(String::from_utf8_lossy(&logs.stdout).contains("● Bash(touch made-in-the-background.txt)"));

    // Resumed like any session: with the credentials of the terminal that attaches.
    let vars = format!("ANTHROPIC_BASE_URL='{}' ANTHROPIC_API_KEY=k", server.url());
    let pane = Pane::rein_sized(&env, &vars, &format!("attach {id}"), (100, 30));
    pane.wait_for("Resumed a conversation");
    let screen = pane.wait_for("> keep working on it");
    assert!(screen.contains("❯"), "{screen}");
    wait_status(&env, &id, "done");
    let sessions = env.rein().arg("sessions").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&sessions.stdout).matches("keep working on it").count(), 1, "one conversation");
}

#[test]
fn bg_refuses_past_the_limit_without_a_prompt_and_with_print_and_logs_follow_to_the_end() {
    let env = Env::new();
    env.trust();
    let _stop = StopAll(&env);
    let server = serve(Scenario::new([reply([text("All done here.")])]));
    let no_prompt = env.rein_at(&server).arg("--bg").output().unwrap();
    assert!(String::from_utf8_lossy(&no_prompt.stderr).contains("--bg needs a prompt"));
    let print = env.rein_at(&server).args(["--bg", "-p", "hi"]).output().unwrap();
    assert!(String::from_utf8_lossy(&print.stderr).contains("-p runs one here"));

    let id = start(&env, &server, &["say it is done"]);
    let mut follow = std::process::Command::new(assert_cmd::cargo::cargo_bin("rein"));
    follow
        .current_dir(env.cwd())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.home.path())
        .args(["logs", "-f", &id])
        .stdout(std::process::Stdio::piped());
    let follower = follow.spawn().unwrap();
    wait_status(&env, &id, "done");
    let over =
        env.rein_at(&server).env("REIN_MAX_BACKGROUND_SESSIONS", "1").args(["--bg", "another"]).output().unwrap();
    assert!(!over.status.success());
    assert!(String::from_utf8_lossy(&over.stderr).contains("1 background sessions already run"), "{over:?}");
    env.rein().args(["stop", &id]).output().unwrap();
    // `logs -f` ends with the session, having printed all of it.
    let followed = follower.wait_with_output().unwrap();
    let followed = String::from_utf8_lossy(&followed.stdout);
    assert!(followed.contains("> say it is done") && followed.contains("All done here."), "{followed}");
}

/// `rein stop` ends the session as quitting does: a command it left running in the
/// background goes with it.
#[test]
fn stopping_a_background_session_ends_the_commands_it_started() {
    let env = Env::new();
    env.trust();
    let _stop = StopAll(&env);
    let sleeper = "sh -c 'echo $$ > sleeper.pid; exec sleep 300'";
    let server = serve(Scenario::new([
        reply([tool_use("Bash", json!({"command": sleeper, "run_in_background": true}))]),
        reply([text("The sleeper runs.")]),
    ]));
    let id = start(&env, &server, &["start a sleeper", "--allowedTools", "Bash"]);
    wait_status(&env, &id, "done");
    let pid: i32 = std::fs::read_to_string(env.cwd().join("sleeper.pid")).unwrap().trim().parse().unwrap();
    assert_eq!(unsafe { libc::kill(pid, 0) }, 0, "the sleeper runs");
    env.rein().args(["stop", &id]).assert().success();
    let deadline = Instant::now() + Duration::from_secs(10);
    while unsafe { libc::kill(pid, 0) } == 0 {
        assert!(Instant::now() < deadline, "the session's command outlived it");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A prompt far longer than a command line may be (here 300 KB, from stdin) reaches the
/// session whole.
#[test]
fn a_prompt_longer_than_a_command_line_starts_a_background_session() {
    let env = Env::new();
    env.trust();
    let _stop = StopAll(&env);
    let server = serve(Scenario::new([reply([text("Read it all.")])]));
    let prompt = format!("summarise this: {}", "word ".repeat(60_000));
    let out = env.rein_at(&server).arg("--bg").write_stdin(prompt.clone()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let id = String::from_utf8_lossy(&out.stdout).lines().next().unwrap().split(" · ").nth(1).unwrap().to_string();
    wait_status(&env, &id, "done");
    let sent = &server.requests()[0].body["messages"][0]["content"];
    assert!(sent.to_string().contains(&prompt), "the prompt did not arrive whole");
}

/// Attaching to an ended session whose folder is gone says so, instead of resuming it
/// somewhere else.
#[test]
fn a_session_whose_folder_is_gone_is_not_resumed_elsewhere() {
    let env = Env::new();
    let _stop = StopAll(&env);
    let sub = env.cwd().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    rein_session::trust::record_trust(&env.home.path().join(".claude.json"), &sub).unwrap();
    let server = serve(Scenario::new([reply([text("Done here.")])]));
    let out = env.rein_at(&server).current_dir(&sub).args(["--bg", "-n", "lost", "work here"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let id = String::from_utf8_lossy(&out.stdout).lines().next().unwrap().split(" · ").nth(1).unwrap().to_string();
    wait_status(&env, &id, "done");
    env.rein().args(["stop", &id]).assert().success();
    std::fs::remove_dir_all(&sub).unwrap();
    // `rein attach` says so and ends; the pane outlives it so that a slow machine still
    // reads what it said.
    let pane = Pane::rein_sized(&env, "", "attach lost; sleep 20", (100, 30));
    let screen = pane.wait_for("is gone");
    assert!(screen.contains(&format!("{}", sub.display())), "{screen}");
    assert_eq!(wait_status(&env, &id, "stopped")["state"], "done");
}

/// Started from a terminal that then closes, the session goes on; the question it asks
/// reaches the person through `rein agents`, the Notification hook and the desktop (a
/// `notify-send` on PATH stands in for the desktop's), with its memory and cost listed.
#[test]
fn a_session_that_needs_a_person_says_so_and_outlives_the_terminal_that_started_it() {
    let env = Env::new();
    env.trust();
    let _stop = StopAll(&env);
    let bin = env.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let desktop = env.home.path().join("desktop.txt");
    let notifier = bin.join("notify-send");
    std::fs::write(&notifier, format!("#!/bin/sh\necho \"$@\" >> '{}'\n", desktop.display())).unwrap();
    std::fs::set_permissions(&notifier, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    env.write(
        ".claude/settings.json",
        r#"{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "cat >> notified.json"}]}]}}"#,
    );
    let server = serve(touch_then_done());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let vars = format!("PATH='{path}' ANTHROPIC_BASE_URL='{}' ANTHROPIC_API_KEY=k", server.url());
    // A terminal starts it, then is closed.
    // (the pane outlives the command, so that a slow machine still reads what it said)
    let terminal = Pane::rein_sized(&env, &vars, "--bg -n survivor 'make a file please'; sleep 20", (100, 30));
    terminal.wait_for("backgrounded · ");
    drop(terminal);
    let id = agents(&env)[0]["id"].as_str().unwrap().to_string();
    let job = wait_status(&env, &id, "needs you");
    assert!(job["memoryKb"].as_u64().unwrap() > 1000, "{job}");
    let deadline = Instant::now() + Duration::from_secs(10);
    let told = loop {
        let told = std::fs::read_to_string(&desktop).unwrap_or_default();
        if !told.is_empty() || Instant::now() > deadline {
            break told;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(told.contains("rein needs your permission to use Bash"), "the desktop was told: {told:?}");
    let hook = std::fs::read_to_string(env.cwd().join("notified.json")).unwrap_or_default();
    assert!(hook.contains("permission_prompt"), "the Notification hook was told: {hook:?}");
    let listed = env.rein().arg("agents").output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("survivor") && listed.contains(" MB") && listed.contains("$0.00"), "{listed}");
}

/// Stopped while its question waits, a session does not take the question as a "no"
/// and ask the model to go on: no request follows.
#[test]
fn a_session_stopped_while_it_asks_sends_nothing_more() {
    let env = Env::new();
    env.trust();
    let _stop = StopAll(&env);
    let server = serve(touch_then_done());
    let id = start(&env, &server, &["make a file please"]);
    wait_status(&env, &id, "needs you");
    env.rein().args(["stop", &id]).assert().success();
    wait_status(&env, &id, "stopped");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.requests().len(), 1, "a request followed the stop");
    assert!(!env.cwd().join("made-in-the-background.txt").exists());
}
