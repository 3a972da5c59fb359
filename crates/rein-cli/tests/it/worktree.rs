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
