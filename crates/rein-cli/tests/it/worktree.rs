//! `--worktree` / `-w` through the real binary on a real git repository: the session
//! works in `.claude/worktrees/NAME` on branch `worktree-NAME`; a worktree where nothing
//! changed is removed at the end, one with changes is kept.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use crate::common::{Env, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn repo(env: &Env) {
    let d = env.cwd();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.email", "t@example.com"]);
    git(d, &["config", "user.name", "T"]);
    std::fs::write(d.join("README.md"), "hello\n").unwrap();
    git(d, &["add", "."]);
    git(d, &["commit", "-q", "-m", "start"]);
}

#[test]
fn a_session_in_a_worktree_edits_there_and_a_clean_one_is_removed() {
    let env = Env::new();
    repo(&env);
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    let tree = root.join(".claude/worktrees/feat");
    let server = serve(Scenario::new([
        reply([call("w", "Write", json!({"file_path": tree.join("new.txt"), "content": "in the worktree\n"}))]),
        reply([text("Written.")]),
    ]));
    let out =
        env.rein_at(&server).args(["-p", "-w", "feat", "add a file", "--allowedTools", "Write"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(std::fs::read_to_string(tree.join("new.txt")).unwrap(), "in the worktree\n");
    assert!(!root.join("new.txt").exists(), "the main checkout is untouched");
    assert!(stderr.contains("was kept: it has changes"), "{stderr}");
    assert!(git(&root, &["branch", "--list", "worktree-feat"]).contains("worktree-feat"));
    assert_eq!(git(&root, &["status", "--porcelain"]), "", "the worktrees stay out of git status");
    let system = crate::common::system_of(&server, 0);
    assert!(system.contains(".claude/worktrees/feat"), "the session's directory is the worktree");

    let server = serve(Scenario::new([reply([text("Nothing to do.")])]));
    let out = env.rein_at(&server).args(["-p", "--worktree", "idle", "look around"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("Removed the worktree"), "{stderr}");
    assert!(!root.join(".claude/worktrees/idle").exists());
    assert_eq!(git(&root, &["branch", "--list", "worktree-idle"]), "");
}

#[test]
fn worktree_outside_a_repository_says_so() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("unused")])]));
    let out = env.rein_at(&server).args(["-p", "-w", "x", "hi"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("a worktree needs a git repository"));
}

/// EnterWorktree moves the session into a new worktree (commands run there), and
/// ExitWorktree back out, keeping it or removing it — one with changes only when told to
/// discard them.
#[test]
fn the_model_enters_and_leaves_a_worktree() {
    let env = Env::new();
    repo(&env);
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    let tree = root.join(".claude/worktrees/exp");
    let server = serve(Scenario::new([
        reply([call("in", "EnterWorktree", json!({"name": "exp"}))]),
        reply([call("here", "Bash", json!({"command": "pwd > where.txt && echo edit >> README.md"}))]),
        reply([call("rm", "ExitWorktree", json!({"action": "remove"}))]),
        reply([call("out", "ExitWorktree", json!({"action": "keep"}))]),
        reply([call("back", "Bash", json!({"command": "pwd > back.txt"}))]),
        reply([text("Done.")]),
    ]));
    let out =
        env.rein_at(&server).args(["-p", "try it in a worktree", "--dangerously-skip-permissions"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(tree.join("where.txt")).unwrap().trim(), tree.display().to_string());
    let system = crate::common::system_of(&server, 1);
    assert!(system.contains(&format!("Working directory: {}\n", tree.display())), "{system}");
    assert_eq!(std::fs::read_to_string(root.join("README.md")).unwrap(), "hello\n", "the main checkout is untouched");
    let reqs = server.requests();
    let messages = reqs[3].body["messages"].as_array().unwrap();
    let (refused, failed) = crate::common::tool_result(messages, "rm");
    assert!(failed && refused.contains("discard_changes"), "a changed worktree is not removed: {refused}");
    assert_eq!(std::fs::read_to_string(root.join("back.txt")).unwrap().trim(), root.display().to_string());
    assert!(tree.exists() && git(&root, &["branch", "--list", "worktree-exp"]).contains("worktree-exp"));

    // A clean one goes when asked.
    let server = serve(Scenario::new([
        reply([call("in", "EnterWorktree", json!({"name": "clean"}))]),
        reply([call("rm", "ExitWorktree", json!({"action": "remove"}))]),
        reply([text("Done.")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "and back", "--dangerously-skip-permissions"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!root.join(".claude/worktrees/clean").exists());
    assert_eq!(git(&root, &["branch", "--list", "worktree-clean"]), "");
}

/// In the default mode, entering a worktree is asked (a headless run without a prompt
/// tool refuses it) and nothing is created.
#[test]
fn entering_a_worktree_is_asked_by_default() {
    let env = Env::new();
    repo(&env);
    let server =
        serve(Scenario::new([reply([call("in", "EnterWorktree", json!({"name": "sneaky"}))]), reply([text("Fine.")])]));
    let out = env.rein_at(&server).args(["-p", "go"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!env.cwd().join(".claude/worktrees/sneaky").exists());
    let reqs = server.requests();
    let (_, failed) = crate::common::tool_result(reqs[1].body["messages"].as_array().unwrap(), "in");
    assert!(failed);
}

/// A repository's hooks and fsmonitor command do not run when rein makes, inspects or
/// removes a worktree.
#[test]
fn a_repositorys_hooks_do_not_run_for_a_worktree() {
    let env = Env::new();
    repo(&env);
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    let ran = env.home.path().join("hook-ran");
    let hook = root.join(".git/hooks/post-checkout");
    std::fs::write(&hook, format!("#!/bin/sh\ntouch '{}'\n", ran.display())).unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let monitor = root.join("monitor.sh");
    std::fs::write(&monitor, format!("#!/bin/sh\ntouch '{}'\n", ran.display())).unwrap();
    std::fs::set_permissions(&monitor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    git(&root, &["config", "core.fsmonitor", &monitor.display().to_string()]);
    let server = serve(Scenario::new([reply([text("Nothing.")])]));
    let out = env.rein_at(&server).args(["-p", "-w", "h", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!ran.exists(), "a hook or the fsmonitor ran");
}

/// What a red team tried: a name with a blank that would be trimmed after the check, a
/// repository whose config names a filter program, and protected files inside the
/// worktree — each refused or asked, nothing made, nothing run.
#[test]
fn worktree_tools_refuse_what_would_escape_their_check() {
    let env = Env::new();
    repo(&env);
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    let server = serve(Scenario::new([
        reply([call("blank", "EnterWorktree", json!({"name": " x"}))]),
        reply([call("in", "EnterWorktree", json!({"name": "x"}))]),
        reply([call(
            "rc",
            "Write",
            json!({"file_path": root.join(".claude/worktrees/x/.bashrc"), "content": "evil\n"}),
        )]),
        reply([text("Done.")]),
    ]));
    let out = env
        .rein_at(&server)
        .args(["-p", "go", "--permission-mode", "acceptEdits", "--allowedTools", "EnterWorktree"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    let (blank, failed) = crate::common::tool_result(reqs[1].body["messages"].as_array().unwrap(), "blank");
    assert!(failed && blank.contains("not a worktree name"), "{blank}");
    assert!(!root.join(".claude/worktrees/ x").exists());
    let (rc, failed) = crate::common::tool_result(reqs[3].body["messages"].as_array().unwrap(), "rc");
    assert!(failed, "a protected file inside the worktree is asked: {rc}");
    assert!(!root.join(".claude/worktrees/x/.bashrc").exists());

    // A filter driver in the repository's own config: no worktree, and it never runs.
    let env = Env::new();
    repo(&env);
    let root = std::fs::canonicalize(env.cwd()).unwrap();
    let ran = env.home.path().join("filter-ran");
    std::fs::write(root.join(".gitattributes"), "* filter=evil\n").unwrap();
    git(&root, &["config", "filter.evil.smudge", &format!("sh -c 'touch {}; cat'", ran.display())]);
    git(&root, &["config", "filter.evil.clean", &format!("sh -c 'touch {}; cat'", ran.display())]);
    let server =
        serve(Scenario::new([reply([call("in", "EnterWorktree", json!({"name": "f"}))]), reply([text("ok")])]));
    let out = env.rein_at(&server).args(["-p", "go", "--dangerously-skip-permissions"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (refused, failed) = crate::common::tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "in");
    assert!(failed && refused.contains("filter.evil"), "{refused}");
    assert!(!ran.exists() && !root.join(".claude/worktrees/f").exists());
}

/// rein's own API key never reaches the git it runs for a worktree.
#[test]
fn git_for_a_worktree_runs_without_reins_key() {
    let env = Env::new();
    repo(&env);
    let bin = env.home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let seen = env.home.path().join("git-env");
    let real = String::from_utf8_lossy(&Command::new("sh").args(["-c", "command -v git"]).output().unwrap().stdout)
        .trim()
        .to_string();
    let wrapper = bin.join("git");
    std::fs::write(&wrapper, format!("#!/bin/sh\nenv >> '{}'\nexec '{real}' \"$@\"\n", seen.display())).unwrap();
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let server = serve(Scenario::new([reply([text("Nothing.")])]));
    let out = env.rein_at(&server).env("PATH", path).args(["-p", "-w", "k", "hi"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert!(seen.contains("PATH=") && !seen.contains("ANTHROPIC_API_KEY"), "rein's key reached git");
}
