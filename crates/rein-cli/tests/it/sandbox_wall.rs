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
pub fn run(env: &Env, tier: &str, settings: &str, commands: &[Value]) -> Vec<(String, bool)> {
    let mut steps: Vec<_> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| reply([tool_use_with_id(&format!("c{i}"), "Bash", c.clone())]))
        .collect();
    steps.push(reply([text("done")]));
    let server = serve(Scenario::new(steps));
    env.rein_at(&server).env("REIN_SANDBOX_TIER", tier).args(["-p", "go", "--settings", settings]).assert().success();
    let reqs = server.requests();
    let last = reqs.last().unwrap().body["messages"].as_array().unwrap().clone();
    (0..commands.len()).map(|i| tool_result(&last, &format!("c{i}"))).collect()
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
