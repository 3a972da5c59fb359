//! Issue 50: what rein allows by its own judgement runs inside the wall with only the
//! powers that judgement granted, whether or not the person turned the sandbox on. A
//! judgement made wrong on purpose (a writing program taken for a reader, a debug
//! build's `REIN_TEST_WRONG_READ_ONLY`) is contained; the person's own rules keep their
//! meaning.

use serde_json::json;

use crate::common::{Env, have_bwrap, tool_calls};

fn bash(command: &str) -> (&'static str, serde_json::Value) {
    ("Bash", json!({"command": command}))
}

/// `touch` and `rm` taken for readers run without a question (the judgement said
/// read-only) and change nothing: not the workspace, not outside it.
#[test]
fn a_wrong_read_only_judgement_is_contained() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("keep.txt", "precious\n");
    let out = tempfile::tempdir().unwrap();
    let outside = out.path().join("outside.txt");
    let calls =
        [bash("touch made.txt"), bash(&format!("touch {}", outside.display())), bash("rm keep.txt"), bash("ls")];
    let (results, stderr, _) =
        tool_calls(&env, &calls, |c| _ = c.env("REIN_TEST_WRONG_READ_ONLY", "touch,rm").args(["--max-turns", "9"]));
    for (i, (text, is_error)) in results.iter().take(3).enumerate() {
        assert!(*is_error, "call {i} should have failed in the read-only jail: {text}\n{stderr}");
        assert!(!text.contains("approval") && !text.contains("not granted"), "call {i} was asked: {text}");
        assert!(text.contains("Read-only file system"), "call {i}: {text}");
    }
    assert!(!env.cwd().join("made.txt").exists(), "the workspace was written");
    assert!(!outside.exists(), "a file outside the workspace was written");
    assert_eq!(std::fs::read_to_string(env.cwd().join("keep.txt")).unwrap(), "precious\n");
    // A real reader still works in the jail.
    assert!(!results[3].1 && results[3].0.contains("keep.txt"), "{:?}", results[3]);
}

/// A read-only command sees the host's processes (so `ps` tells the truth) but cannot
/// read their environment: rein's own key stays out of reach.
#[test]
fn a_read_only_command_sees_processes_but_not_their_secrets() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let calls = [bash("ps -e -o comm"), bash("cat /proc/*/environ")];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| {
        _ = c.env("REIN_TEST_WRONG_READ_ONLY", "cat,ps").env("ANTHROPIC_API_KEY", "sk-canary-4711");
    });
    assert!(results[0].0.lines().any(|l| l.trim() == "rein"), "ps does not show rein: {:?}\n{stderr}", results[0]);
    assert!(!results[1].0.contains("sk-canary-4711"), "a read-only command read rein's key: {}", results[1].0);
}

/// acceptEdits' file commands write the workspace (no question), and only it.
#[test]
fn accept_edits_file_commands_write_the_workspace_only() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    std::fs::create_dir_all(env.cwd().join(".git/hooks")).unwrap();
    let calls = [bash("mkdir -p build && touch build/out.txt"), bash("cp -r build copy")];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.args(["--permission-mode", "acceptEdits"]));
    assert!(results.iter().all(|(_, e)| !e), "{results:?}\n{stderr}");
    assert!(env.cwd().join("build/out.txt").exists() && env.cwd().join("copy/out.txt").exists());
}

/// The person's own allow rule keeps its meaning: with the sandbox off, the command it
/// allows runs as it would in their shell (here: writes outside the workspace).
#[test]
fn the_persons_rule_runs_as_configured() {
    let env = Env::new();
    let out = tempfile::tempdir().unwrap();
    let outside = out.path().join("by-rule.txt");
    let calls = [bash(&format!("touch {}", outside.display()))];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.args(["--allowedTools", "Bash(touch:*)"]));
    assert!(!results[0].1, "{:?}\n{stderr}", results[0]);
    assert!(outside.exists(), "the person's rule did not run as configured");
}

/// The shell's directory carries over from a command run in the jail.
#[test]
fn a_jailed_cd_carries_over() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("sub/marker.txt", "x");
    let (results, stderr, _) = tool_calls(&env, &[bash("cd sub"), bash("ls")], |_| {});
    assert!(results[1].0.contains("marker.txt"), "{results:?}\n{stderr}");
}

/// Where no jail can mask the home's credentials (Landlock's tier B), rein's own
/// judgement never reads them: with the workspace being the home, `cat` and a recursive
/// grep of `.ssh` are asked, not run.
#[test]
fn credentials_stay_out_of_reins_judgement_where_they_cannot_be_masked() {
    let env = Env::new();
    let home = env.home.path().to_path_buf();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "CANARY-KEY\n").unwrap();
    std::fs::write(home.join("notes.txt"), "plain\n").unwrap();
    let calls = [bash("cat .ssh/id_rsa"), bash("grep -r . .ssh"), bash("cat notes.txt")];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.current_dir(&home).env("REIN_SANDBOX_TIER", "B"));
    for (text, _) in &results[..2] {
        assert!(!text.contains("CANARY"), "a credential was read: {text}\n{stderr}");
    }
    assert!(results[2].0.contains("plain"), "an ordinary read of the home-workspace runs: {:?}", results[2]);
}

/// A read-only command sees the host's processes but cannot change their limits or
/// priorities (prlimit kills a busy process by its CPU limit).
#[test]
fn a_read_only_command_cannot_limit_a_host_process() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let mut victim = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let pid = victim.id();
    let calls = [bash(&format!("prlimit --pid {pid} --cpu=0:0 && renice -n 19 -p {pid}"))];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.env("REIN_TEST_WRONG_READ_ONLY", "prlimit,renice"));
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap_or_default();
    let cpu = limits.lines().find(|l| l.starts_with("Max cpu time")).unwrap_or_default().to_string();
    victim.kill().ok();
    victim.wait().ok();
    assert!(results[0].1, "the jail changed a host process's limits: {:?}\n{stderr}", results[0]);
    assert!(cpu.contains("unlimited"), "{cpu}");
}

/// A read-only command that times out with children holding its output ends whole: no
/// process of it outlives the call, and the session goes on.
#[test]
fn a_timed_out_read_only_command_leaves_nothing_behind() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let calls = [("Bash", json!({"command": "sleep 97 & sleep 98", "timeout": 500})), bash("echo after")];
    let started = std::time::Instant::now();
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.env("REIN_TEST_WRONG_READ_ONLY", "sleep"));
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "the call hung");
    assert!(results[0].0.contains("timed out"), "{:?}\n{stderr}", results[0]);
    assert_eq!(results[1].0, "after");
    let left = std::process::Command::new("pgrep").args(["-f", "sleep 9[78]"]).output().unwrap();
    assert!(left.stdout.is_empty(), "left running: {}", String::from_utf8_lossy(&left.stdout));
}
