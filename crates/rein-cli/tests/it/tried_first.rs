//! Issue 50: a command rein cannot model, that it would ask about, first runs where it
//! can change nothing. Changed nothing: its result goes to the model unasked. Changed
//! files: the person is asked with exactly those changes, "yes" keeps them (the command
//! does not run again), headless refuses naming them. Tried the network: asked as
//! before, saying so.

use serde_json::json;

use crate::common::{Env, have_bwrap, serve, tool_calls, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};

fn bash(command: &str) -> (&'static str, serde_json::Value) {
    ("Bash", json!({"command": command}))
}

fn python(code: &str) -> String {
    format!("python3 -c \"{code}\"")
}

#[test]
fn an_unmodelled_read_only_command_runs_without_a_question() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("data.txt", "21\n");
    let line = python("print(int(open('data.txt').read()) * 2)");
    let (results, stderr, _) = tool_calls(&env, &[bash(&line)], |_| {});
    assert_eq!(results[0], ("42".to_string(), false), "{stderr}");
    // Control: where nothing can be tried (no tier), the same command is asked, and
    // headless that is a refusal.
    let (results, _, _) = tool_calls(&env, &[bash(&line)], |c| _ = c.env("REIN_SANDBOX_TIER", "C"));
    assert!(results[0].1 && results[0].0.contains("not granted"), "{:?}", results[0]);
}

#[test]
fn headless_an_unmodelled_writing_command_is_refused_naming_its_changes() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("old.txt", "old\n");
    env.write("notes.txt", "one\ntwo\n");
    let code =
        "import os; open('made.txt','w').write('x'); os.remove('old.txt'); open('notes.txt','a').write('three\\n')";
    let (results, stderr, _) = tool_calls(&env, &[bash(&python(code))], |_| {});
    let (message, is_error) = &results[0];
    assert!(*is_error, "{message}\n{stderr}");
    eprintln!("{message}");
    for want in ["A ", "made.txt", "D ", "old.txt", "M ", "notes.txt", "+three"] {
        assert!(message.contains(want), "the refusal does not name {want:?}: {message}");
    }
    assert!(!env.cwd().join("made.txt").exists());
    assert!(env.cwd().join("old.txt").exists());
    assert_eq!(std::fs::read_to_string(env.cwd().join("notes.txt")).unwrap(), "one\ntwo\n");
}

#[test]
fn yes_keeps_exactly_what_the_trial_changed_and_it_does_not_run_again() {
    if !have_bwrap() {
        return;
    }
    let Some(py) = crate::mcp_python::python() else { return };
    let env = Env::new();
    let markers = tempfile::tempdir().unwrap();
    let probe = crate::mcp_python::probe();
    let config = json!({"mcpServers": {"probe": {"command": py, "args": [probe, markers.path(), "stdio"]}}});
    // Where it ran shows in what it wrote: the jail's TMPDIR, or none on the host.
    let line = python("import os; open('where.txt','w').write(os.environ.get('TMPDIR','host'))") + " # yes-as-is";
    let server = serve(Scenario::new([
        reply([tool_use_with_id("c0", "Bash", json!({"command": line}))]),
        reply([text("done")]),
    ]));
    let out = env
        .rein_at(&server)
        .args(["-p", "go", "--mcp-config", &config.to_string(), "--permission-prompt-tool", "mcp__probe__approve"])
        // A program that asks only about what a command would change, as a person is.
        .env("REIN_SDK_TRY_FIRST", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let last = server.requests().last().unwrap().body["messages"].as_array().unwrap().clone();
    let (result, is_error) = tool_result(&last, "c0");
    assert!(!is_error, "{result}");
    assert!(markers.path().join("asked-c0").exists(), "the person was not asked");
    let written = std::fs::read_to_string(env.cwd().join("where.txt")).unwrap();
    assert!(written.contains("rein-sandbox"), "the kept file is not the trial's (the command ran again?): {written}");
}

#[test]
fn a_command_that_tries_the_network_is_asked_saying_so() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let code =
        "import socket\ntry: socket.create_connection(('192.0.2.1', 80), timeout=1)\nexcept OSError as e: print(e)";
    let (results, stderr, _) = tool_calls(&env, &[bash(&python(code))], |_| {});
    let (message, is_error) = &results[0];
    assert!(*is_error && message.contains("tried to reach the network"), "{message}\n{stderr}");
    eprintln!("{message}");
}

/// A program that honours the proxy variables says where it was going: the question
/// (here the headless refusal) names the host. Its exports do not outlive the trial.
#[test]
fn a_command_that_tries_the_network_names_the_host() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let code = "import urllib.request\ntry: urllib.request.urlopen('http://pkg.example.test/x', timeout=5)\nexcept \
                Exception as e: print(e)";
    let (results, stderr, _) = tool_calls(&env, &[bash(&python(code)), bash("echo proxy=${HTTP_PROXY:-none}")], |_| {});
    let (message, is_error) = &results[0];
    assert!(*is_error && message.contains("pkg.example.test:80"), "{message}\n{stderr}");
    assert!(results[1].0.contains("proxy=none"), "{:?}", results[1]);
}

#[test]
fn accept_edits_keeps_workspace_changes_of_a_tried_command_unasked() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let code = "open('gen.txt','w').write('generated')";
    let (results, stderr, _) =
        tool_calls(&env, &[bash(&python(code))], |c| _ = c.args(["--permission-mode", "acceptEdits"]));
    assert!(!results[0].1, "{:?}\n{stderr}", results[0]);
    assert_eq!(std::fs::read_to_string(env.cwd().join("gen.txt")).unwrap(), "generated");
}

/// What a tried command's kept changes removed comes back with a rewind, like a file
/// tool's edits (neither Claude Code's nor Codex's checkpoints cover Bash).
#[test]
fn a_rewind_restores_what_a_kept_trial_deleted() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("src/a.txt", "precious a\n");
    env.write("src/deep/b.txt", "precious b\n");
    env.write("keep.txt", "old\n");
    let code = "import shutil; shutil.rmtree('src'); open('keep.txt','w').write('new')";
    let (results, stderr, _) =
        tool_calls(&env, &[bash(&python(code))], |c| _ = c.args(["--permission-mode", "acceptEdits"]));
    assert!(!results[0].1, "{:?}\n{stderr}", results[0]);
    assert!(!env.cwd().join("src").exists(), "the kept trial removed src");
    env.rein().args(["rewind", "1", "--yes"]).assert().success();
    assert_eq!(std::fs::read_to_string(env.cwd().join("src/a.txt")).unwrap(), "precious a\n");
    assert_eq!(std::fs::read_to_string(env.cwd().join("src/deep/b.txt")).unwrap(), "precious b\n");
    assert_eq!(std::fs::read_to_string(env.cwd().join("keep.txt")).unwrap(), "old\n");
}

/// `rein permissions check` says which way a command would go.
#[test]
fn permissions_check_names_the_path_a_command_takes() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let out = env
        .rein()
        .args(["permissions", "check", "Bash(ls -la)", "Bash(python3 build.py)", "Bash(cat ~/.ssh/id_rsa)"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let paths: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("path: ")).collect();
    assert_eq!(paths.len(), 3, "{text}");
    assert!(paths[0].starts_with("enforced allow: runs in rein's read-only jail"), "{text}");
    assert!(paths[1].starts_with("tried first"), "{text}");
    assert_eq!(paths[2], "asked", "a read outside the workspace is never tried: {text}");
}

/// What a tried (or jailed) command writes into the shell's saved state is not code the
/// next command runs: the state is rebuilt by rein from its exports and directory, so an
/// unconfined command the person's rule allows does not run what was planted.
#[test]
fn a_trial_cannot_plant_code_for_the_next_unconfined_command() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let plant = "printf 'touch PWNED\\n# rein: end of state\\n' >&71; echo planted";
    let (results, stderr, _) =
        tool_calls(&env, &[bash(plant), bash("true")], |c| _ = c.args(["--allowedTools", "Bash(true)"]));
    assert!(!results[0].1, "the plant ran as a trial that changed nothing: {:?}\n{stderr}", results[0]);
    assert!(!results[1].1, "{:?}", results[1]);
    assert!(!env.cwd().join("PWNED").exists(), "the planted line ran outside the jail");
}

/// A change a tried command made is held to the rules as an edit of that path: a deny
/// rule refuses the call (acceptEdits keeps nothing), and a repository it made (whose
/// git config names programs) is not kept unasked.
#[test]
fn a_trials_changes_meet_the_rules_for_edits() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("locked.txt", "as it was\n");
    let settings = json!({"permissions": {"deny": ["Edit(./locked.txt)"]}});
    env.write(".claude/settings.json", &settings.to_string());
    env.trust();
    let denied = python("open('locked.txt','w').write('changed')");
    let repo = "git init -q sub && git -C sub config core.fsmonitor 'touch FSMON'".to_string();
    let (results, stderr, _) =
        tool_calls(&env, &[bash(&denied), bash(&repo)], |c| _ = c.args(["--permission-mode", "acceptEdits"]));
    assert!(results[0].1 && results[0].0.contains("locked.txt"), "{:?}\n{stderr}", results[0]);
    assert_eq!(std::fs::read_to_string(env.cwd().join("locked.txt")).unwrap(), "as it was\n");
    assert!(results[1].1, "a new repository's config was kept unasked: {:?}", results[1]);
    assert!(!env.cwd().join("sub/.git").exists());
}

/// A command tried first sees the workspace and the tools, not the homes or the shared
/// temp directory: a read there fails instead of reaching the model unasked.
#[test]
fn a_trial_cannot_read_outside_the_workspace() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    std::fs::write(env.home.path().join("diary.txt"), "CANARY-HOME\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "CANARY-TMP\n").unwrap();
    let code = format!(
        "import sys\nfor p in ['{}', '{}']:\n  try: print(open(p).read())\n  except Exception as e: print(type(e).__name__)",
        env.home.path().join("diary.txt").display(),
        outside.path().join("secret.txt").display()
    );
    let (results, stderr, _) = tool_calls(&env, &[bash(&python(&code))], |_| {});
    assert!(!results[0].0.contains("CANARY"), "a trial read outside the workspace: {:?}\n{stderr}", results[0]);
    assert!(results[0].0.contains("Error"), "the reads did not even run: {:?}", results[0]);
}

/// An export a tried command leaves is seen by the policy as the shell's changed
/// environment: a later command that a person's rule allows is asked, not run with it.
#[test]
fn an_export_left_by_a_trial_makes_later_commands_asked() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("tools/make", "#!/bin/sh\ntouch PWNED\n");
    std::fs::set_permissions(env.cwd().join("tools/make"), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap();
    let calls = [bash("export PATH=$PWD/tools:$PATH; echo set"), bash("make")];
    let (results, stderr, _) = tool_calls(&env, &calls, |c| _ = c.args(["--allowedTools", "Bash(make)"]));
    assert!(results[1].1 && results[1].0.contains("PATH"), "{:?}\n{stderr}", results[1]);
    assert!(!env.cwd().join("PWNED").exists(), "the planted PATH ran");
}

/// The question (and a refusal) shows the host side of a changed path only as the jail
/// could read it: a link to a key outside the workspace is never read for the diff.
#[test]
fn a_trials_diff_never_reads_through_a_link() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("key"), "CANARY-KEY\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("key"), env.cwd().join("leak")).unwrap();
    let code = "import os; os.remove('leak'); open('leak','w').write('x')";
    let (results, stderr, _) = tool_calls(&env, &[bash(&python(code))], |_| {});
    assert!(results[0].1 && results[0].0.contains("leak"), "{:?}\n{stderr}", results[0]);
    assert!(!results[0].0.contains("CANARY"), "the diff read through the link: {}", results[0].0);
}

/// A tried command does not see another project, a shared temp directory or git's
/// credential store.
#[test]
fn a_trial_sees_no_other_project_or_credential_store() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let other = tempfile::Builder::new().prefix("other-project-").tempdir_in("/var/tmp").unwrap();
    std::fs::write(other.path().join("secret.txt"), "CANARY-OTHER\n").unwrap();
    std::fs::create_dir_all(env.home.path().join(".config/git")).unwrap();
    std::fs::write(env.home.path().join(".config/git/credentials"), "https://u:CANARY-CRED@example.com\n").unwrap();
    let code = format!(
        "for p in ['{}', '{}']:\n  try: print(open(p).read())\n  except Exception as e: print(type(e).__name__)",
        other.path().join("secret.txt").display(),
        env.home.path().join(".config/git/credentials").display()
    );
    let (results, stderr, _) = tool_calls(&env, &[bash(&python(&code))], |_| {});
    assert!(!results[0].0.contains("CANARY"), "{:?}\n{stderr}", results[0]);
}

/// A tried command starts where the shell is, with its exports, and what it leaves (a
/// `cd`, an export) carries over like any command's.
#[test]
fn a_trial_runs_in_and_leaves_the_shells_state() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("sub/marker.txt", "x");
    let calls = [bash("cd sub && export FOO=$PWD; echo set"), bash("pwd; echo \"foo=$FOO\""), bash("ls")];
    let (results, stderr, _) = tool_calls(&env, &calls, |_| {});
    let sub = std::fs::canonicalize(env.cwd().join("sub")).unwrap().display().to_string();
    assert_eq!(results[1].0, format!("{sub}\nfoo={sub}"), "{results:?}\n{stderr}");
    assert!(results[2].0.contains("marker.txt"), "{:?}", results[2]);
}

/// The directory a tried command reports is only what it really names: a faked `PWD`
/// does not move where the policy thinks later commands start.
#[test]
fn a_faked_directory_does_not_move_the_shell() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "CANARY-FAKED\n").unwrap();
    // The policy would count these from the faked directory (ending inside the
    // workspace); bash counts them from where it really starts (reaching /).
    let up = "../".repeat(10);
    let target = outside.path().strip_prefix("/").unwrap().join("secret.txt");
    let calls = [bash("PWD=$PWD/a/b/c/d/e/f/g/h/i/j; echo set"), bash(&format!("cat {up}{}", target.display()))];
    let (results, stderr, _) = tool_calls(&env, &calls, |_| {});
    assert!(!results[1].0.contains("CANARY"), "a read outside the workspace ran unasked: {:?}\n{stderr}", results[1]);
}
