//! Issue 50, "Bash is undoable": what a confined command changes in the workspace (the
//! person's sandbox, acceptEdits' file commands, what rein's judgement allowed) is
//! checkpointed — through a copy-on-write layer whose changes are made on the host when
//! a foreground command ends, or as the command makes them (a background command; Tier
//! B) — so a rewind restores what it changed, created or deleted, like the file tools'
//! edits.

use serde_json::json;

use crate::common::{Env, have_bwrap, tool_calls};

fn bash(command: &str) -> (&'static str, serde_json::Value) {
    ("Bash", json!({"command": command}))
}

fn precious(env: &Env) {
    env.write("src/a.txt", "precious a\n");
    env.write("src/deep/b.txt", "precious b\n");
    env.write("keep.txt", "old\n");
}

fn assert_restored(env: &Env) {
    let read = |p: &str| std::fs::read_to_string(env.cwd().join(p)).ok();
    assert_eq!(read("src/a.txt").as_deref(), Some("precious a\n"));
    assert_eq!(read("src/deep/b.txt").as_deref(), Some("precious b\n"));
    assert_eq!(read("keep.txt").as_deref(), Some("old\n"));
    assert!(!env.cwd().join("added.txt").exists(), "a file the command made survived the rewind");
}

const DESTROY: &str = "rm -r src && printf new > keep.txt && touch added.txt";

/// In the person's sandbox (allowed by their rule): the command's changes reach the host
/// as it ends, and a rewind undoes them.
#[test]
fn a_rewind_restores_what_a_sandboxed_command_deleted() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    precious(&env);
    let (results, stderr, _) =
        tool_calls(&env, &[bash(DESTROY)], |c| _ = c.args(["--sandbox", "--allowedTools", "Bash"]));
    assert!(!results[0].1, "{:?}\n{stderr}", results[0]);
    assert!(!env.cwd().join("src").exists(), "the command's removal did not reach the host");
    assert_eq!(std::fs::read_to_string(env.cwd().join("keep.txt")).unwrap(), "new");
    assert!(env.cwd().join("added.txt").exists());
    env.rein().args(["rewind", "1", "--yes"]).assert().success();
    assert_restored(&env);
}

/// A background command's writes show as it makes them (the next command sees them),
/// and are recorded all the same.
#[test]
fn a_rewind_restores_what_a_background_command_deleted() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    precious(&env);
    let background = ("Bash", json!({"command": DESTROY, "run_in_background": true}));
    let wait = "for i in $(seq 100); do [ -e added.txt ] && break; sleep 0.05; done; cat keep.txt";
    let calls = [background, bash(wait)];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.args(["--sandbox", "--allowedTools", "Bash"]));
    assert!(results.iter().all(|(_, e)| !e), "{results:?}\n{stderr}");
    assert!(results[1].0.contains("new"), "the background command's write did not show at once: {results:?}");
    assert!(!env.cwd().join("src").exists() && env.cwd().join("added.txt").exists());
    env.rein().args(["rewind", "1", "--yes"]).assert().success();
    assert_restored(&env);
}

/// Where the host has no namespaces (Tier B: Landlock and seccomp in process), a
/// command writes the workspace directly, and what it changes is recorded as it goes.
#[test]
fn a_rewind_restores_what_a_tier_b_command_deleted() {
    let env = Env::new();
    precious(&env);
    let configure = |c: &mut assert_cmd::Command| {
        _ = c.args(["--sandbox", "--allowedTools", "Bash"]).env("REIN_SANDBOX_TIER", "B");
    };
    let (results, stderr, _) = tool_calls(&env, &[bash(DESTROY)], configure);
    if stderr.contains("UNAVAILABLE") || results[0].0.contains("could not be applied") {
        return; // no Landlock here
    }
    assert!(!results[0].1, "{:?}\n{stderr}", results[0]);
    assert!(!env.cwd().join("src").exists() && env.cwd().join("added.txt").exists());
    env.rein().args(["rewind", "1", "--yes"]).assert().success();
    assert_restored(&env);
}

/// acceptEdits' file commands (rein's own allowance, sandbox off) are recorded too.
#[test]
fn a_rewind_restores_what_an_accept_edits_file_command_deleted() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    precious(&env);
    let calls = [bash("rm -r src"), bash("cp keep.txt added.txt")];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.args(["--permission-mode", "acceptEdits"]));
    assert!(results.iter().all(|(_, e)| !e), "{results:?}\n{stderr}");
    assert!(!env.cwd().join("src").exists() && env.cwd().join("added.txt").exists());
    env.rein().args(["rewind", "1", "--yes"]).assert().success();
    assert_restored(&env);
}

/// Work done in the sandbox lands whole: a commit (new objects, a moved ref, the index),
/// a touch (only the time changes), a file made executable, a link; and the next command
/// sees all of it.
#[test]
fn a_sandboxed_commit_and_touch_land_on_the_host() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("code.txt", "v1\n");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").args(args).current_dir(env.cwd()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(env.cwd().join("code.txt")).unwrap().set_modified(old).unwrap();
    let commit = "git add -A && git -c user.name=t -c user.email=t@e commit -qm 'from the sandbox' && touch code.txt \
                  && printf '#!/bin/sh\\necho ran\\n' > run.sh && chmod +x run.sh && ln -s code.txt link";
    let calls = [bash(commit), bash("./run.sh && git log --format=%s")];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.args(["--sandbox", "--allowedTools", "Bash"]));
    assert!(results.iter().all(|(_, e)| !e), "{results:?}\n{stderr}");
    assert!(results[1].0.contains("ran") && results[1].0.contains("from the sandbox"), "{:?}", results[1]);
    assert_eq!(git(&["log", "--format=%s"]).trim(), "from the sandbox");
    assert_eq!(git(&["status", "--porcelain"]).trim(), "?? link\n?? run.sh", "{stderr}");
    let touched = std::fs::metadata(env.cwd().join("code.txt")).unwrap().modified().unwrap();
    assert!(touched > old + std::time::Duration::from_secs(60), "the touch did not reach the host");
    assert_eq!(std::fs::read_link(env.cwd().join("link")).unwrap(), std::path::Path::new("code.txt"));
}

const PLANT: &str = "python3 -c \"open('.cl'+'aude/settings.json','w').write('evil')\"; echo done";

/// The walls still hold: a protected path the sandbox keeps read-only is not changed by
/// way of the layer (the command fails there, as before).
#[test]
fn a_recorded_run_keeps_protected_paths() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write(".claude/settings.json", "{}\n");
    let (results, stderr, _) =
        tool_calls(&env, &[bash(PLANT)], |c| _ = c.args(["--sandbox", "--allowedTools", "Bash"]));
    assert!(results[0].0.contains("done"), "{results:?}\n{stderr}");
    assert_eq!(std::fs::read_to_string(env.cwd().join(".claude/settings.json")).unwrap(), "{}\n");
}

/// What the person changes on the host while a recorded command runs is kept: the
/// command's change to that file is not made, and the model is told; its other changes
/// are made.
#[test]
fn an_edit_made_while_a_command_runs_is_not_overwritten() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("notes.txt", "v1\n");
    let notes = env.cwd().join("notes.txt");
    let editor = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(700));
        std::fs::write(&notes, "v1\nthe person's new paragraph\n").unwrap();
    });
    let line = "sed -i s/v1/formatted/ notes.txt && touch other.txt && sleep 2";
    let (results, stderr, _) = tool_calls(&env, &[bash(line)], |c| _ = c.args(["--sandbox", "--allowedTools", "Bash"]));
    editor.join().unwrap();
    let text = std::fs::read_to_string(env.cwd().join("notes.txt")).unwrap();
    assert_eq!(text, "v1\nthe person's new paragraph\n", "the person's edit was overwritten\n{stderr}");
    assert!(results[0].0.contains("changed on the host while the command ran"), "{:?}", results[0]);
    assert!(env.cwd().join("other.txt").exists(), "the command's other change was not made");
}
