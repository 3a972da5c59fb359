//! The wall holds against the code it guards (issue 49), through the real binary and
//! real bubblewrap, in Tier A and Tier B: rein's own state is out of every writable root,
//! a command inherits no descriptor rein did not mean to give it, and the repository's
//! settings tighten the wall but never loosen it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, have_bwrap, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

/// Run the Bash calls `commands` (ids c0, c1, …) in one headless session with
/// `settings` (command-line scope) and the sandbox tier `tier`; each result.
pub(crate) fn run(env: &Env, tier: &str, settings: &str, commands: &[Value]) -> Vec<(String, bool)> {
    let calls: Vec<(&str, Value)> = commands.iter().map(|c| ("Bash", c.clone())).collect();
    common::tool_calls(env, &calls, |c| {
        c.env("REIN_SANDBOX_TIER", tier).args(["--settings", settings]);
    })
    .0
}

#[test]
fn the_shells_state_is_out_of_reach_of_the_commands_it_carries() {
    if !have_bwrap() {
        return;
    }
    for tier in ["A", "B"] {
        let env = Env::new();
        let out = tempfile::tempdir().unwrap();
        let victim = out.path().join("victim");
        std::fs::write(&victim, "intact").unwrap();
        let pwned = out.path().join("pwned");
        // Plant, under every name rein used or could use beside the state file, a script
        // and a link to a file outside: the state of a later unsandboxed command, a
        // background job's log.
        let plant = format!(
            "d=$(dirname \"$__rein_state\"); for i in $(seq 1 40); do echo 'touch {p}' > \"$d/outside-$i.sh\"; \
             ln -sf {v} \"$d/bash_$i.log\"; ln -sf {v} \"$d/next-$i.sh\"; done 2>/dev/null; \
             if touch \"$d/probe\" 2>/dev/null; then echo WROTE; else echo REFUSED; fi",
            p = pwned.display(),
            v = victim.display()
        );
        let settings =
            r#"{"sandbox": {"enabled": true, "excludedCommands": ["true"]}, "permissions": {"allow": ["Bash"]}}"#;
        let r = run(
            &env,
            tier,
            settings,
            &[
                json!({"command": plant}),
                json!({"command": "echo payload", "run_in_background": true}),
                json!({"command": "echo saved-state-still-works; export KEPT=yes"}),
                json!({"command": "true"}),
                json!({"command": "echo kept=$KEPT"}),
            ],
        );
        assert!(r[0].0.contains("REFUSED"), "tier {tier}: the state directory is writable: {}", r[0].0);
        assert!(!pwned.exists(), "tier {tier}: an unsandboxed command sourced a planted script");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "intact", "tier {tier}: rein wrote through a link");
        assert!(r[4].0.contains("kept=yes"), "tier {tier}: the shell's state carries on: {:?}", r);
    }
}

#[test]
fn a_command_inherits_only_the_descriptors_rein_gives_it() {
    if !have_bwrap() {
        return;
    }
    // rein itself inherits a descriptor from whoever started it (a leaky terminal, a
    // parent that forgot close-on-exec): it must not reach the command.
    let leaked = std::fs::File::open("/etc/hostname").unwrap();
    use std::os::fd::AsRawFd as _;
    // SAFETY: clears close-on-exec on a descriptor this test owns.
    unsafe { libc::fcntl(leaked.as_raw_fd(), libc::F_SETFD, 0) };
    for tier in ["A", "B"] {
        let env = Env::new();
        let settings = r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}"#;
        // `ls` opens the directory it lists (one descriptor of its own, 3).
        let r = run(&env, tier, settings, &[json!({"command": "ls /proc/self/fd | sort -n | tr '\\n' ' '"})]);
        assert_eq!(r[0].0.trim(), "0 1 2 3 71 72", "tier {tier}: {}", r[0].0);
    }
}

#[test]
fn undoing_what_a_command_planted_never_follows_its_links() {
    if !have_bwrap() {
        return;
    }
    for tier in ["A", "B"] {
        let env = Env::new();
        let out = tempfile::tempdir().unwrap();
        let victim = out.path().join("bashrc");
        std::fs::write(&victim, "intact").unwrap();
        let home = out.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("notes"), "mine").unwrap();
        // A new repository whose config rein must defuse, with the place it keeps the
        // original linked to a file outside, its hooks linked to a directory outside, a
        // FIFO where a repository's `.git` and config would be.
        let plant = format!(
            "mkdir -p x/.git y z/.git && printf '[core]\\n\\tfsmonitor = ./evil\\n' > x/.git/config && \
             ln -s {v} x/.git/config.rein-quarantined && ln -s {h} x/.git/hooks && mkfifo y/.git && \
             mkdir z/.git/objects z/.git/refs && echo 'ref: refs/heads/main' > z/.git/HEAD && mkfifo z/.git/config && echo planted",
            v = victim.display(),
            h = home.display()
        );
        // In a script: the permission engine would ask about the text; the wall is what
        // is tested here.
        env.write("plant.sh", &plant);
        let settings = r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}"#;
        let r = run(&env, tier, settings, &[json!({"command": "bash plant.sh"}), json!({"command": "echo next"})]);
        assert!(r[0].0.contains("planted"), "tier {tier}: {}", r[0].0);
        assert!(r[1].0.contains("next"), "tier {tier}: the session goes on (no FIFO blocks it): {}", r[1].0);
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "intact", "tier {tier}: written through a link");
        assert_eq!(std::fs::read_to_string(home.join("notes")).unwrap(), "mine", "tier {tier}: removed through a link");
        let config = std::fs::read_to_string(env.cwd().join("x/.git/config")).unwrap();
        assert!(!config.contains("fsmonitor"), "tier {tier}: still defused: {config}");
    }
}

/// One session in a trusted project whose own settings are `project`, the person's
/// (user) settings turning the sandbox on; the Bash results and rein's stderr.
fn with_project_settings(project: &str, calls: &[(&str, Value)]) -> (Env, Vec<(String, bool)>, String) {
    let env = Env::new();
    env.trust();
    env.write(".claude/settings.json", project);
    let user = env.home.path().join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}"#).unwrap();
    let (results, stderr, _) = common::tool_calls(&env, calls, |_| {});
    (env, results, stderr)
}

#[test]
fn the_repository_tightens_the_wall_and_never_loosens_it() {
    if !have_bwrap() {
        return;
    }
    // Each way a repository's settings could loosen the wall, alone: the sandbox off,
    // a lower tier through env, the home as a workspace root, and (not a sandbox switch)
    // a mode that writes without asking.
    let loosen = [
        (r#"{"sandbox": {"enabled": false}}"#, "sandbox.enabled"),
        (r#"{"env": {"REIN_SANDBOX_TIER": "C"}}"#, "REIN_SANDBOX_TIER"),
        (r#"{"permissions": {"additionalDirectories": ["~"]}}"#, "additionalDirectories"),
    ];
    for (project, named) in loosen {
        let (env, r, stderr) =
            with_project_settings(project, &[("Bash", json!({"command": "touch ~/escaped; echo ran"}))]);
        assert!(r[0].0.contains("ran"), "{named}: {r:?}");
        assert!(!env.home.path().join("escaped").exists(), "{named}: the project loosened the wall: {r:?}");
        assert!(stderr.contains(named), "{named}: said once at start: {stderr}");
    }
    let (env, r, stderr) = with_project_settings(
        r#"{"permissions": {"defaultMode": "acceptEdits"}}"#,
        &[("Write", json!({"file_path": "made.txt", "content": "x"}))],
    );
    assert!(stderr.contains("defaultMode acceptEdits"), "{stderr}");
    assert!(r[0].1 && !env.cwd().join("made.txt").exists(), "a write is still asked (headless: no): {r:?}");
    // Tightening from the repository holds: it turns the sandbox on for a person who
    // did not, and it can turn auto-allow off.
    let env = Env::new();
    env.trust();
    env.write(".claude/settings.json", r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}"#);
    let server = serve(Scenario::new(vec![
        reply([tool_use_with_id("c0", "Bash", json!({"command": "touch ~/escaped; echo ran"}))]),
        reply([text("done")]),
    ]));
    env.rein_at(&server).args(["-p", "go"]).assert().success();
    assert!(!env.home.path().join("escaped").exists(), "the project's sandbox.enabled: true holds");
}

#[test]
fn credential_stores_are_masked_and_reins_own_state_is_read_only() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    std::fs::write(env.home.path().join(".claude.json"), r#"{"primaryApiKey": "sk-secret-in-claude-json"}"#).unwrap();
    // rein's home inside the project (as a CI job or a Harbor trial may set it).
    let rein_home = env.cwd().join("logs/rein-home");
    std::fs::create_dir_all(&rein_home).unwrap();
    // A background session's record: its prompt is the person's, not the command's.
    std::fs::create_dir_all(rein_home.join("jobs/0a1b2c3d")).unwrap();
    std::fs::write(rein_home.join("jobs/0a1b2c3d/state.json"), r#"{"intent": "the secret plan"}"#).unwrap();
    let settings = r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}"#;
    let mut steps = vec![
        reply([tool_use_with_id(
            "c0",
            "Bash",
            json!({"command": "cat ~/.claude.json; cat logs/rein-home/jobs/0a1b2c3d/state.json; echo; echo end"}),
        )]),
        reply([tool_use_with_id(
            "c1",
            "Bash",
            json!({"command": "touch logs/rein-home/planted 2>/dev/null && echo WROTE || echo REFUSED"}),
        )]),
    ];
    steps.push(reply([text("done")]));
    let server = serve(Scenario::new(steps));
    env.rein_at(&server).env("REIN_HOME", &rein_home).args(["-p", "go", "--settings", settings]).assert().success();
    let last = server.requests().last().unwrap().body["messages"].as_array().unwrap().clone();
    let read = tool_result(&last, "c0").0;
    assert!(!read.contains("sk-secret") && read.contains("end"), "{read}");
    assert!(!read.contains("the secret plan"), "a background session's record is masked: {read}");
    assert!(tool_result(&last, "c1").0.contains("REFUSED"), "rein's home is writable from inside");
}

/// The repository's `env` may not set what rein's own process reads without naming it
/// (the proxy its requests take, the certificates it trusts, what every shell loads):
/// set aside and said; the person may trust the project to.
#[test]
fn the_repositorys_env_does_not_reach_reins_own_requests() {
    for trusted in [false, true] {
        let env = Env::new();
        env.trust();
        // A proxy nobody listens on: a request through it fails.
        env.write(".claude/settings.json", r#"{"env": {"HTTP_PROXY": "http://127.0.0.1:9", "BASH_ENV": "./evil.sh"}}"#);
        env.write("evil.sh", "touch pwned\n");
        if trusted {
            let user = env.home.path().join(".claude/settings.json");
            std::fs::create_dir_all(user.parent().unwrap()).unwrap();
            std::fs::write(&user, r#"{"sandbox": {"trustProjectSettings": true}}"#).unwrap();
        }
        let server = serve(Scenario::new(vec![
            reply([tool_use_with_id("c0", "Bash", json!({"command": "echo hi"}))]),
            reply([text("done")]),
        ]));
        let out =
            env.rein_at(&server).args(["-p", "go", "--allowedTools", "Bash"]).env("NO_PROXY", "").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if trusted {
            assert!(!out.status.success() || env.cwd().join("pwned").exists(), "control: trusted, the env applies");
        } else {
            assert!(out.status.success(), "{stderr}");
            assert!(stderr.contains("HTTP_PROXY") && stderr.contains("BASH_ENV"), "{stderr}");
            assert!(!env.cwd().join("pwned").exists(), "BASH_ENV from the repository ran");
        }
    }
}

/// What developers do inside the sandbox still runs: git's everyday writes under
/// `Bash(git:*)`, a worktree that keeps its tracked files, a recursive grep beside a
/// masked file (which it reports and passes by).
#[test]
fn developers_everyday_work_runs_inside_the_wall() {
    if !have_bwrap() {
        return;
    }
    for tier in ["A", "B"] {
        let env = Env::new();
        env.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
        env.write(".env", "SECRET=1\n");
        env.write(".gitignore", ".env\n");
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .current_dir(env.cwd())
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "{args:?}");
        };
        git(&["init", "-q", "-b", "main"]);
        git(&["config", "user.name", "t"]);
        git(&["config", "user.email", "t@t"]);
        git(&["add", "src"]);
        git(&["commit", "-qm", "first"]);
        let settings = r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash(git:*)", "Bash(grep:*)", "Bash(ls:*)"], "deny": ["Read(./.env)"]}}"#;
        env.write("src/more.rs", "pub fn more() {}\n");
        let r = run(
            &env,
            tier,
            settings,
            &[
                json!({"command": "git add -A"}),
                json!({"command": "git commit -qm second && echo committed"}),
                json!({"command": "git branch feature && git branch --list feature"}),
                json!({"command": "git stash list"}),
                json!({"command": "grep -rn answer ."}),
            ],
        );
        assert!(r.iter().take(4).all(|(_, err)| !err), "tier {tier}: {r:?}");
        assert!(r[1].0.contains("committed"), "tier {tier}: {}", r[1].0);
        assert!(r[2].0.contains("feature"), "tier {tier}: {}", r[2].0);
        // Beside the masked file the search goes on; the mask is named, not fatal.
        assert!(r[4].0.contains("src/lib.rs"), "tier {tier}: grep beside a masked file: {}", r[4].0);
        assert!(!r[4].0.contains("SECRET"), "tier {tier}: {}", r[4].0);
        // A worktree (where no Read deny rule could cover a file it checks out).
        let settings = r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash(git:*)", "Bash(ls:*)"]}}"#;
        let r = run(
            &env,
            tier,
            settings,
            &[json!({"command": "git worktree add -q .wt feature && echo added"}), json!({"command": "ls .wt/src"})],
        );
        assert!(r[0].0.contains("added"), "tier {tier}: {}", r[0].0);
        assert!(r[1].0.contains("lib.rs") && r[1].0.contains("more.rs"), "tier {tier}: tracked files kept: {}", r[1].0);
    }
}
