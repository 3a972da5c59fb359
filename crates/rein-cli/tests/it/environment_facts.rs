//! What the model is told of its environment (issue 34): the git state of the
//! repository (branch, default branch, uncommitted changes), the permission mode it
//! starts in, and the current models of each family.

use crate::common::{Env, serve};
use rein_testkit::{Scenario, reply, text};

fn git(env: &Env, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(env.cwd())
        .env("HOME", env.home.path())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

#[test]
fn the_git_state_the_mode_and_the_models_reach_the_system_prompt() {
    let env = Env::new();
    git(&env, &["init", "-q"]);
    env.write("a.txt", "one\n");
    git(&env, &["add", "a.txt"]);
    git(&env, &["commit", "-qm", "first"]);
    git(&env, &["checkout", "-qb", "work"]);
    env.write("a.txt", "two\n");
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi", "--permission-mode", "acceptEdits"]).assert().success();
    let system = server.requests()[0].system_text();
    assert!(
        system.contains("Git: on branch work; default branch main; uncommitted changes to tracked files"),
        "{system}"
    );
    assert!(system.contains("Permission mode: acceptEdits"), "{system}");
    assert!(system.contains("Claude models: opus = claude-opus-5-5, sonnet = claude-sonnet-4-6"), "{system}");

    git(&env, &["commit", "-qam", "second"]);
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    let system = server.requests()[0].system_text();
    assert!(system.contains("Git: on branch work; default branch main; no uncommitted changes"), "{system}");
    assert!(system.contains("Permission mode: default"), "{system}");
}

#[test]
fn a_repository_that_configures_programs_for_git_is_not_statused() {
    let env = Env::new();
    git(&env, &["init", "-q"]);
    env.write("a.txt", "one\n");
    git(&env, &["add", "a.txt"]);
    git(&env, &["commit", "-qm", "first"]);
    let ran = env.home.path().join("filter-ran");
    env.write(".gitattributes", "* filter=evil\n");
    git(&env, &["config", "filter.evil.clean", &format!("sh -c 'touch {}; cat'", ran.display())]);
    env.write("a.txt", "two, and a newer mtime\n");
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    let system = server.requests()[0].system_text();
    assert!(system.contains("Git: on branch main; default branch main; changes not checked"), "{system}");
    assert!(!ran.exists(), "the repository's filter never runs");
}
