//! An agent's worktree (`.claude/worktrees/NAME`) is where it works, though the
//! `.claude/` folder around it is held read-only: its confined commands write and commit
//! there, in Tier A and Tier B and in rein's own jail (acceptEdits), while the project's
//! `.claude/` config and the worktree's own protected files stay as they were.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::background_agents::{committed_repository, git, last_message_text, scout, split};
use crate::common::{Env, have_bwrap, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

/// A repository whose tracked files include project settings, so that the worktree has
/// its own `.claude/settings.json`.
fn repository(env: &Env) -> std::path::PathBuf {
    env.write(".claude/settings.json", "{}\n");
    let root = committed_repository(env);
    scout(env);
    root
}

/// Run, in `tier`, a session whose command `background` runs in the background while
/// rein makes the worktree `b` (EnterWorktree), then is waited for without a command of
/// its own (whose guard would see the worktree).
fn while_rein_makes_b(env: &Env, tier: &str, background: &str) {
    let server = serve(Scenario::new([
        reply([call("bg", "Bash", json!({"command": background, "run_in_background": true}))]),
        reply([call("in", "EnterWorktree", json!({"name": "b"}))]),
        reply([call("wait", "TaskOutput", json!({"task_id": "bash_1"}))]),
        reply([text("done")]),
    ]));
    let settings =
        r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash", "EnterWorktree", "TaskOutput"]}}"#;
    let out = env
        .rein_at(&server)
        .args(["-p", "work in b", "--settings", settings])
        .env("REIN_SANDBOX_TIER", tier)
        .output()
        .unwrap();
    assert!(out.status.success(), "tier {tier}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A command that writes `path` where no reading of its text sees it: only the wall
/// stops it.
fn write(path: &str) -> String {
    format!("python3 -c \"open('{path}', 'w').write('planted')\"")
}

#[test]
fn an_agent_writes_and_commits_in_its_worktree_and_nothing_else_of_claude() {
    if !have_bwrap() {
        return;
    }
    // (the sandbox tier, the session's settings, its permission mode, what the agent does
    // first). In acceptEdits a commit is asked as in the main checkout (it changes the
    // repository's `.git/`); a write in the worktree is not.
    let sandbox = r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}"#;
    let commit = "echo made > made.txt && git add made.txt && \
                  git -c user.email=a@example.com -c user.name=A commit -q -m made && echo DONE";
    let cases = [
        ("A", sandbox, "default", commit),
        ("B", sandbox, "default", commit),
        ("A", "{}", "acceptEdits", "echo made > made.txt && echo DONE"),
    ];
    for (tier, settings, mode, work) in cases {
        let env = Env::new();
        let root = repository(&env);
        let server = serve(
            Scenario::new([
                reply([call(
                    "a",
                    "Agent",
                    json!({"description": "work", "prompt": "Make a file", "subagent_type": "scout",
                           "isolation": "worktree"}),
                )]),
                reply([text("done")]),
            ])
            .with_routed(
                crate::background_agents::SCOUT,
                [
                    reply([call("s0", "Bash", json!({"command": work}))]),
                    reply([call("s1", "Bash", json!({"command": write(".claude/settings.json")}))]),
                    reply([call("s2", "Bash", json!({"command": write("../../settings.json")}))]),
                    reply([call("s3", "Bash", json!({"command": write("../../commands.md")}))]),
                    reply([text("Made made.txt.")]),
                ],
            ),
        );
        let out = env
            .rein_at(&server)
            .args(["-p", "send a scout", "--permission-mode", mode, "--settings", settings])
            .env("REIN_SANDBOX_TIER", tier)
            .env("ENABLE_TOOL_SEARCH", "false")
            .output()
            .unwrap();
        let case = format!("tier {tier}, {mode}");
        assert!(out.status.success(), "{case}: {}", String::from_utf8_lossy(&out.stderr));
        let (_, sub) = split(&server);
        let done = last_message_text(&sub[1].body);
        assert!(done.contains("DONE") && !done.contains("violation"), "{case}: the agent could not work: {done}");
        let tree = root.join(".claude/worktrees/agent-1");
        assert_eq!(std::fs::read_to_string(tree.join("made.txt")).unwrap(), "made\n", "{case}");
        if work == commit {
            assert_eq!(git(&tree, &["log", "-1", "--format=%s"]), "made", "{case}");
        }
        assert_eq!(std::fs::read_to_string(tree.join(".claude/settings.json")).unwrap(), "{}\n", "{case}");
        assert_eq!(std::fs::read_to_string(root.join(".claude/settings.json")).unwrap(), "{}\n", "{case}");
        assert!(!root.join(".claude/commands.md").exists(), "{case}: a file was planted in .claude/");
    }
}

/// A worktree rein makes while a sandboxed command runs keeps the files git checked
/// out in it, as git checked them out: the command's guard, planned before the worktree
/// existed, does not take them for files the command planted, and what the command
/// changed or added there (tier B lets it write) is undone.
/// Waits (at most 3 s) for the worktree `b` to have its settings, then rewrites them
/// and adds local ones, where no reading of its text sees it.
const PLANT: &str = "python3 -c \"\nimport os, time\np = '.claude/worktrees/b/.claude/'\nfor _ in range(60):\n    \
                     if os.path.exists(p + 'settings.json'): break\n    time.sleep(0.05)\ntry:\n    \
                     open(p + 'settings.json', 'w').write('{\\\"hooks\\\": 1}')\n    \
                     open(p + 'settings.local.json', 'w').write('{}')\nexcept OSError: pass\n\"";

#[test]
fn a_worktree_made_while_a_command_runs_keeps_its_checked_out_files() {
    if !have_bwrap() {
        return;
    }
    for tier in ["A", "B"] {
        let env = Env::new();
        env.write(".mcp.json", "{}\n");
        env.write(".envrc", "export X=1\n");
        let root = repository(&env);
        while_rein_makes_b(&env, tier, PLANT);
        let tree = root.join(".claude/worktrees/b");
        for file in [".mcp.json", ".envrc", ".claude/settings.json"] {
            assert!(tree.join(file).exists(), "tier {tier}: {file} was taken from the new worktree");
        }
        assert_eq!(std::fs::read_to_string(tree.join(".claude/settings.json")).unwrap(), "{}\n", "tier {tier}");
        assert!(!tree.join(".claude/settings.local.json").exists(), "tier {tier}: a planted file stayed");
        assert_eq!(git(&tree, &["status", "--porcelain"]), "", "tier {tier}");
    }
}

/// In a project with no `.claude/` yet, the folders rein makes to hold a worktree while
/// a command runs are rein's, not the command's: the worktree is not removed with them.
#[test]
fn the_folders_rein_makes_for_a_worktree_are_not_taken_for_a_commands() {
    if !have_bwrap() {
        return;
    }
    for tier in ["A", "B"] {
        let env = Env::new();
        let root = committed_repository(&env);
        while_rein_makes_b(&env, tier, "sleep 1");
        let readme = root.join(".claude/worktrees/b/README.md");
        assert!(readme.exists(), "tier {tier}: the new worktree was removed with .claude/");
    }
}
