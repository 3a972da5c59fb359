//! Bash, BashOutput and KillShell through the registry, with real bash.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::Tools;
use serde_json::json;

async fn bash(t: &Tools, command: &str) -> Result<String, String> {
    t.call("Bash", json!({"command": command})).await
}

#[tokio::test]
async fn cd_exports_and_functions_survive_between_calls() {
    let t = Tools::new();
    std::fs::create_dir(t.root().join("sub dir")).unwrap();
    bash(&t, "cd 'sub dir' && export GREETING=hello && shout() { echo \"$1!\"; }").await.unwrap();
    let out = bash(&t, "pwd; echo $GREETING; shout hey").await.unwrap();
    assert_eq!(out, format!("{}\nhello\nhey!", t.root().join("sub dir").display()));
}

#[tokio::test]
async fn exit_codes_and_ordered_output() {
    let t = Tools::new();
    let err = bash(&t, "echo out; echo err >&2; echo out2; exit 7").await.unwrap_err();
    assert_eq!(err, "out\nerr\nout2\nExit code 7");
    assert_eq!(bash(&t, "true").await.unwrap(), "(no output)");
    // `exit` in one call does not break the next.
    assert_eq!(bash(&t, "echo still here").await.unwrap(), "still here");
}

#[tokio::test]
async fn stdin_is_closed_so_readers_do_not_hang() {
    let t = Tools::new();
    let start = Instant::now();
    let out = bash(&t, "cat; read x; echo done").await.unwrap();
    assert_eq!(out, "done");
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn an_endless_printer_is_capped_and_killed_at_its_timeout() {
    let t = Tools::new();
    let start = Instant::now();
    let err = t.call("Bash", json!({"command": "yes 'spam spam spam'", "timeout": 1500})).await.unwrap_err();
    assert!(err.contains("timed out after 1500 ms"), "{}", &err[err.len().saturating_sub(200)..]);
    assert!(err.contains("saved to"), "the output is saved, its preview sent");
    assert!(err.len() < 4_000, "{}", err.len());
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[tokio::test]
async fn a_daemon_left_behind_is_killed_with_its_group() {
    let t = Tools::new();
    let pidfile = t.root().join("daemon.pid");
    let start = Instant::now();
    let out = bash(&t, &format!("(sleep 300 & echo $! > '{}') ; echo started", pidfile.display())).await.unwrap();
    assert_eq!(out, "started");
    assert!(start.elapsed() < Duration::from_secs(5), "the daemon must not hold the call open");
    let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    let alive = |pid: i32| {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default().contains(") Z ")
    };
    for _ in 0..50 {
        if !alive(pid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(pid), "the daemon {pid} outlived its command");
}

#[tokio::test]
async fn background_commands_report_output_and_can_be_killed() {
    let t = Tools::new();
    let started = t
        .call("Bash", json!({"command": "echo first; sleep 0.3; echo second; sleep 300", "run_in_background": true}))
        .await
        .unwrap();
    let id = started.split("background as ").nth(1).unwrap().split('.').next().unwrap().to_string();
    let mut seen = String::new();
    for _ in 0..100 {
        seen.push_str(&t.call("BashOutput", json!({"bash_id": id})).await.unwrap());
        if seen.contains("second") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen.contains("first") && seen.contains("second") && seen.contains("<status>running"), "{seen}");
    assert_eq!(seen.matches("first").count(), 1, "output is returned once: {seen}");
    let filtered = t.call("BashOutput", json!({"bash_id": id, "filter": "nothing"})).await.unwrap();
    assert!(filtered.contains("(no new output)"));
    let killed = t.call("KillShell", json!({"shell_id": id})).await.unwrap();
    assert!(killed.ends_with("killed"), "{killed}");
    assert!(t.call("KillShell", json!({"shell_id": "bash_999"})).await.unwrap_err().contains("No background command"));
}

/// Today's names: TaskOutput waits for the command to end (up to its timeout), TaskStop
/// stops one by its task_id.
#[tokio::test]
async fn task_output_waits_for_the_end_and_task_stop_stops() {
    let t = Tools::new();
    let id_of = |started: &str| started.split("background as ").nth(1).unwrap().split('.').next().unwrap().to_string();
    let quick = id_of(
        &t.call("Bash", json!({"command": "sleep 0.3; echo finished", "run_in_background": true})).await.unwrap(),
    );
    let out = t.call("TaskOutput", json!({"task_id": quick})).await.unwrap();
    assert!(out.contains("finished") && out.contains("exited with code 0"), "it waited for the end: {out}");

    let slow = id_of(&t.call("Bash", json!({"command": "sleep 300", "run_in_background": true})).await.unwrap());
    let started = std::time::Instant::now();
    let out = t.call("TaskOutput", json!({"task_id": slow, "timeout": 200})).await.unwrap();
    assert!(out.contains("<status>running"), "{out}");
    assert!(started.elapsed() < Duration::from_secs(5), "the timeout holds");
    let out = t.call("TaskOutput", json!({"task_id": slow, "block": false})).await.unwrap();
    assert!(out.contains("<status>running"), "{out}");
    let stopped = t.call("TaskStop", json!({"task_id": slow})).await.unwrap();
    assert!(stopped.ends_with("killed"), "{stopped}");
    assert!(t.call("TaskOutput", json!({"task_id": "bash_999"})).await.unwrap_err().contains("No background command"));
}

#[tokio::test]
async fn read_only_commands_are_concurrency_safe() {
    let t = Tools::new();
    let safe = |c: &str| t.registry.prepare("Bash", &json!({"command": c})).unwrap().effects(&t.ctx).concurrency_safe;
    assert!(safe("git status && ls -la | head"));
    assert!(!safe("rm -rf target"));
    assert!(!safe("ls > listing.txt"));
    assert!(!safe("cd src"), "a cd changes where the next command runs");
    let bg = t.registry.prepare("Bash", &json!({"command": "ls", "run_in_background": true})).unwrap();
    assert!(!bg.effects(&t.ctx).concurrency_safe);
}

#[tokio::test]
async fn a_commands_files_are_resolved_in_the_shells_current_directory() {
    let t = Tools::new();
    std::fs::create_dir_all(t.root().join("src")).unwrap();
    t.call("Bash", json!({"command": "cd src"})).await.unwrap();
    let effects = t.registry.prepare("Bash", &json!({"command": "cat ../.env"})).unwrap().effects(&t.ctx);
    assert_eq!(effects.reads, vec![t.root().join(".env")]);
    let shell = effects.shell.unwrap();
    assert_eq!(shell.cwd, t.root().join("src"));
}

/// A background command's large output is saved whole like a foreground one's, and a
/// filter reads the lines back from the saved file.
#[tokio::test]
async fn large_background_output_is_saved_and_filtered_from_the_file() {
    let t = Tools::new();
    let started =
        t.call("Bash", json!({"command": "seq 1 100000; echo finished", "run_in_background": true})).await.unwrap();
    let id = started.split("background as ").nth(1).unwrap().split('.').next().unwrap().to_string();
    let mut out = String::new();
    for _ in 0..200 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        out = t.call("BashOutput", json!({"bash_id": id, "filter": "^9999[0-9]$"})).await.unwrap();
        if out.contains("exited") || out.contains("completed") || !out.contains("running") {
            break;
        }
    }
    for n in 99990..=99999 {
        assert!(out.contains(&format!("{n}")), "{out}");
    }
    assert!(out.len() < 1000, "{out}");
    let again = t.call("Bash", json!({"command": "seq 1 100000", "run_in_background": true})).await.unwrap();
    let id = again.split("background as ").nth(1).unwrap().split('.').next().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let whole = t.call("BashOutput", json!({"bash_id": id})).await.unwrap();
    assert!(whole.contains("saved to") && whole.len() < 3000, "{}", whole.len());
    let path = whole.split("saved to ").nth(1).unwrap().split(". Use Read").next().unwrap();
    let saved = std::fs::read_to_string(path).unwrap();
    assert!(saved.starts_with("1\n2\n") && saved.ends_with("100000\n"), "every line is kept");
}
