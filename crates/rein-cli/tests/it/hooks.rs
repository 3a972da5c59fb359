//! Hooks written the way users write them, run by the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{Env, json_lines, serve};
use rein_testkit::{FakeServer, Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

/// Write an executable hook script under .claude/hooks/.
fn script(env: &Env, name: &str, body: &str) -> String {
    let p = env.write(&format!(".claude/hooks/{name}"), body);
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.display().to_string()
}

/// Project settings with this `hooks` object (and optional permissions).
fn settings(env: &Env, hooks: Value, permissions: Value) {
    env.write(".claude/settings.json", &json!({"hooks": hooks, "permissions": permissions}).to_string());
}

fn run(env: &Env, server: &FakeServer, extra: &[&str]) -> (Vec<Value>, String, bool) {
    let mut args = vec!["-p", "go", "--output-format", "stream-json", "--verbose"];
    args.extend_from_slice(extra);
    let out = env.rein_at(server).args(&args).output().unwrap();
    (json_lines(&out.stdout), String::from_utf8_lossy(&out.stderr).into_owned(), out.status.success())
}

/// The tool_result for `id` in request `n`.
fn result(server: &FakeServer, n: usize, id: &str) -> Value {
    let reqs = server.requests();
    for m in reqs[n].body["messages"].as_array().unwrap() {
        for b in m["content"].as_array().into_iter().flatten() {
            if b["tool_use_id"] == id {
                return b.clone();
            }
        }
    }
    panic!("no result for {id}");
}

fn pre_tool(matcher: &str, command: &str) -> Value {
    json!({"PreToolUse": [{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}]})
}

#[test]
fn a_bash_jq_hook_blocks_with_exit_2_and_the_block_is_audited() {
    let env = Env::new();
    let hook = script(
        &env,
        "no-rm.sh",
        "#!/bin/bash\ncmd=$(jq -r '.tool_input.command')\nif echo \"$cmd\" | grep -q 'rm -rf'; then\n  echo \"rm -rf is blocked by policy\" >&2\n  exit 2\nfi\nexit 0\n",
    );
    settings(&env, pre_tool("Bash", &hook), json!({"allow": ["Bash"]}));
    let server = serve(Scenario::new([
        reply([
            call("bad", "Bash", json!({"command": "rm -rf build"})),
            call("ok", "Bash", json!({"command": "echo fine"})),
        ]),
        reply([text("done")]),
    ]));
    let (lines, stderr, ok) = run(&env, &server, &["--debug"]);
    assert!(ok, "{stderr}");
    let bad = result(&server, 1, "bad");
    assert_eq!(bad["is_error"], true);
    assert!(bad["content"].as_str().unwrap().contains("rm -rf is blocked by policy"), "{bad}");
    assert_eq!(result(&server, 1, "ok")["content"], "fine");
    // Audited with the hook's command and reason, though the later stages never ran.
    let audit: Vec<&str> =
        stderr.lines().filter(|l| l.contains("permission decision") && l.contains("tool_use_id=bad")).collect();
    assert_eq!(audit.len(), 1, "{stderr}");
    assert!(audit[0].contains("no-rm.sh") && audit[0].contains("rm -rf is blocked"), "{}", audit[0]);
    assert_eq!(lines.last().unwrap()["permission_denials"][0]["tool_use_id"], "bad");
}

#[test]
fn a_python_validator_and_hooks_that_fail_in_every_way() {
    let env = Env::new();
    let validator = script(
        &env,
        "validate.py",
        "#!/usr/bin/env python3\nimport json, sys\ndata = json.load(sys.stdin)\nif data['tool_input'].get('file_path', '').endswith('.lock'):\n    print('Do not edit lock files', file=sys.stderr)\n    sys.exit(2)\nsys.exit(0)\n",
    );
    let bad_json = script(&env, "bad-json.sh", "#!/bin/sh\necho '{not json'\n");
    let exit1 = script(&env, "exit1.sh", "#!/bin/sh\necho 'something broke' >&2\nexit 1\n");
    let slow = script(
        &env,
        "slow.sh",
        "#!/bin/sh\nsleep 30\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\"}}'\n",
    );
    let missing = env.cwd().join(".claude/hooks/missing.sh").display().to_string();
    let bad_interp = script(&env, "bad-interp.sh", "#!/nonexistent/interpreter\necho hi\n");
    settings(
        &env,
        json!({"PreToolUse": [
            {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": validator}]},
            {"matcher": "*", "hooks": [
                {"type": "command", "command": bad_json},
                {"type": "command", "command": exit1},
                {"type": "command", "command": slow, "timeout": 1},
                {"type": "command", "command": missing},
                {"type": "command", "command": bad_interp, "args": []}
            ]}
        ]}),
        json!({}),
    );
    let server = serve(Scenario::new([
        reply([
            call("lock", "Write", json!({"file_path": env.cwd().join("Cargo.lock"), "content": "x"})),
            call("fine", "Write", json!({"file_path": env.cwd().join("notes.txt"), "content": "x"})),
        ]),
        reply([text("done")]),
    ]));
    let start = std::time::Instant::now();
    let (_, stderr, ok) = run(&env, &server, &["--permission-mode", "acceptEdits"]);
    assert!(ok, "{stderr}");
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "the slow hook was not killed at its timeout");
    let lock = result(&server, 1, "lock");
    assert!(lock["content"].as_str().unwrap().contains("Do not edit lock files"), "{lock}");
    // Broken hooks are notices to the user, never a decision: the other write went ahead.
    assert!(result(&server, 1, "fine").get("is_error").is_none(), "{}", result(&server, 1, "fine"));
    assert!(env.cwd().join("notes.txt").exists());
    assert!(stderr.contains("invalid JSON output"), "{stderr}");
    assert!(stderr.contains("exit1.sh` error (exit 1): something broke ["), "{stderr}");
    // Each failure names where the hook is defined.
    let failure = stderr.lines().find(|l| l.contains("exit1.sh` error")).unwrap_or_default();
    assert!(failure.contains("settings.json:"), "{failure}");
    assert!(stderr.contains("slow.sh` timed out after 1s"), "{stderr}");
    assert!(stderr.contains("failed to start") && stderr.contains("missing.sh"), "{stderr}");
    assert!(stderr.contains("failed to start") && stderr.contains("bad-interp.sh"), "{stderr}");
}

#[test]
fn updated_input_replaces_the_input_and_is_validated_again() {
    let env = Env::new();
    let rewrite = script(
        &env,
        "rewrite.sh",
        "#!/bin/bash\ncmd=$(jq -r '.tool_input.command')\njq -n --arg c \"$cmd --color=never\" '{hookSpecificOutput: {hookEventName: \"PreToolUse\", permissionDecision: \"allow\", updatedInput: {command: $c}}}'\n",
    );
    let broken = script(
        &env,
        "broken.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"file_path\":42}}}'\n",
    );
    settings(
        &env,
        json!({"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": rewrite}]},
            {"matcher": "Read", "hooks": [{"type": "command", "command": broken}]}
        ]}),
        json!({"allow": ["Bash(echo:*)"]}),
    );
    let server = serve(Scenario::new([
        reply([
            call("b", "Bash", json!({"command": "echo hi"})),
            call("r", "Read", json!({"file_path": env.cwd().join("x")})),
        ]),
        reply([text("done")]),
    ]));
    let (_, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    assert_eq!(result(&server, 1, "b")["content"], "hi --color=never");
    let r = result(&server, 1, "r");
    assert!(
        r["content"].as_str().unwrap().contains("rewrote the input")
            && r["content"].as_str().unwrap().contains("file_path"),
        "{r}"
    );
}

#[test]
fn hooks_only_tighten_in_both_directions() {
    let env = Env::new();
    let allow = script(
        &env,
        "allow.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\",\"permissionDecisionReason\":\"looks fine\"}}'\n",
    );
    let deny = script(
        &env,
        "deny.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"not today\"}}'\n",
    );
    settings(
        &env,
        json!({"PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": allow}]},
            {"matcher": "Write", "hooks": [{"type": "command", "command": deny}]}
        ]}),
        json!({"deny": ["Bash(curl:*)"], "ask": ["Bash(git push:*)"], "allow": ["Write"]}),
    );
    let server = serve(Scenario::new([
        reply([
            call("denied", "Bash", json!({"command": "curl http://example.com"})),
            call("asked", "Bash", json!({"command": "git push origin main"})),
            call("skipped", "Bash", json!({"command": "touch made-by-hook-allow"})),
            call("w", "Write", json!({"file_path": env.cwd().join("w.txt"), "content": "x"})),
        ]),
        reply([text("done")]),
    ]));
    let (_, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    // The hook's allow opens no hole in a deny rule, and skips no ask rule…
    assert!(result(&server, 1, "denied")["content"].as_str().unwrap().contains("denied by rule `Bash(curl:*)`"));
    assert!(result(&server, 1, "asked")["content"].as_str().unwrap().contains("requires approval"));
    // …but it does skip a question no rule asked for.
    assert!(result(&server, 1, "skipped").get("is_error").is_none(), "{}", result(&server, 1, "skipped"));
    assert!(env.cwd().join("made-by-hook-allow").exists());
    // A hook's deny beats an allow rule.
    assert!(result(&server, 1, "w")["content"].as_str().unwrap().contains("not today"));
    assert!(!env.cwd().join("w.txt").exists());
}

#[test]
fn stop_hooks_continue_the_loop_with_feedback_and_are_capped() {
    let env = Env::new();
    // Blocks once (until the marker exists), then lets go; records stop_hook_active.
    let once = script(
        &env,
        "stop-once.sh",
        "#!/bin/bash\ninput=$(cat)\necho \"$input\" | jq -r '.stop_hook_active' >> stop-log.txt\nif [ ! -f tests-ran ]; then\n  touch tests-ran\n  echo '{\"decision\": \"block\", \"reason\": \"Run the tests before you stop.\"}'\nfi\n",
    );
    settings(&env, json!({"Stop": [{"hooks": [{"type": "command", "command": once}]}]}), json!({}));
    let server = serve(Scenario::new([reply([text("All done.")]), reply([text("Tests pass. Done now.")])]));
    let (lines, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let feedback = &reqs[1].body["messages"][2];
    assert_eq!(feedback["role"], "user");
    assert!(feedback["content"][0]["text"].as_str().unwrap().contains("Run the tests before you stop."));
    assert_eq!(std::fs::read_to_string(env.cwd().join("stop-log.txt")).unwrap(), "false\ntrue\n");
    assert_eq!(lines.last().unwrap()["result"], "Tests pass. Done now.");

    // A hook that never lets go is stopped by the cap.
    let env = Env::new();
    let forever = script(&env, "forever.sh", "#!/bin/sh\necho 'keep going' >&2\nexit 2\n");
    settings(&env, json!({"Stop": [{"hooks": [{"type": "command", "command": forever}]}]}), json!({}));
    let server = serve(Scenario::new((0..10).map(|i| reply([text(&format!("attempt {i}"))]))));
    let out = env.rein_at(&server).env("REIN_MAX_STOP_CONTINUATIONS", "3").args(["-p", "go"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(server.requests().len(), 4, "the first answer plus three continuations");
    assert!(stderr.contains("3 times in a row"), "{stderr}");
}

#[test]
fn stop_hooks_do_not_run_after_an_api_error() {
    let env = Env::new();
    let stop = script(&env, "stop.sh", "#!/bin/sh\ntouch stop-ran\necho 'retry' >&2\nexit 2\n");
    settings(&env, json!({"Stop": [{"hooks": [{"type": "command", "command": stop}]}]}), json!({}));
    let server = serve(Scenario::new([rein_testkit::Step::api_error(400, "invalid_request_error", "bad")]));
    let (_, _, ok) = run(&env, &server, &[]);
    assert!(!ok);
    assert!(!env.cwd().join("stop-ran").exists(), "no error → hook → retry → error spiral");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn prompt_and_session_hooks_add_context_or_block() {
    let env = Env::new();
    let start = script(&env, "start.sh", "#!/bin/sh\necho 'Project uses pnpm, not npm.'\n");
    let submit = script(
        &env,
        "submit.sh",
        "#!/bin/bash\nprompt=$(jq -r '.prompt')\nif [ \"$prompt\" = 'forbidden' ]; then echo '{\"decision\":\"block\",\"reason\":\"not that\"}'; exit 0; fi\necho \"Current branch: main\"\n",
    );
    let end = script(
        &env,
        "end.sh",
        "#!/bin/bash\njq -r '.hook_event_name + \" \" + .reason + \" \" + .session_id' > session-end.txt\n",
    );
    settings(
        &env,
        json!({
            "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": start}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": submit}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": end}]}]
        }),
        json!({}),
    );
    let server = serve(Scenario::new([reply([text("ok")])]));
    let (lines, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    let first = &server.requests()[0].body["messages"][0]["content"];
    let all: String = first.as_array().unwrap().iter().map(|b| b["text"].as_str().unwrap_or_default()).collect();
    assert!(all.contains("Project uses pnpm") && all.contains("Current branch: main"), "{all}");
    let sid = lines[0]["session_id"].as_str().unwrap();
    assert_eq!(
        std::fs::read_to_string(env.cwd().join("session-end.txt")).unwrap().trim(),
        format!("SessionEnd other {sid}")
    );

    let server = serve(Scenario::new([reply([text("never")])]));
    let out = env.rein_at(&server).args(["-p", "forbidden"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("blocked by the UserPromptSubmit hook"));
    assert!(server.requests().is_empty(), "a blocked prompt never reaches the model");
}

#[test]
fn post_tool_hooks_give_feedback_and_permission_request_hooks_answer() {
    let env = Env::new();
    let post = script(
        &env,
        "post.sh",
        "#!/bin/bash\nf=$(jq -r '.tool_input.file_path')\necho \"{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"run the formatter on $f\\\"}\"\n",
    );
    let failure = script(
        &env,
        "failure.sh",
        "#!/bin/bash\nerr=$(jq -r '.error')\njq -n --arg e \"$err\" '{hookSpecificOutput:{hookEventName:\"PostToolUseFailure\",additionalContext:(\"hint: \" + $e)}}'\n",
    );
    let approve = script(
        &env,
        "approve.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\"}}}'\n",
    );
    settings(
        &env,
        json!({
            "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": post}]}],
            "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": failure}]}],
            "PermissionRequest": [{"matcher": "Write|Bash", "hooks": [{"type": "command", "command": approve}]}]
        }),
        json!({"deny": ["Bash(curl:*)"]}),
    );
    let server = serve(Scenario::new([
        reply([
            call("w", "Write", json!({"file_path": env.cwd().join("a.py"), "content": "x=1\n"})),
            call("f", "Bash", json!({"command": "exit 3"})),
            call("d", "Bash", json!({"command": "curl http://example.com"})),
        ]),
        reply([text("done")]),
    ]));
    let (_, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    let w = result(&server, 1, "w");
    assert!(w["content"].as_str().unwrap().contains("run the formatter on"), "{w}");
    assert!(env.cwd().join("a.py").exists(), "the PermissionRequest hook answered the question");
    assert!(result(&server, 1, "f")["content"].as_str().unwrap().contains("hint: Exit code 3"));
    assert!(
        result(&server, 1, "d")["content"].as_str().unwrap().contains("denied by rule"),
        "a PermissionRequest allow never overrides a deny"
    );
}

#[test]
fn handlers_run_in_parallel_once_each_and_can_be_disabled() {
    let env = Env::new();
    // Each waits for the other's marker: only parallel runs finish before the timeout.
    let a = script(
        &env,
        "a.sh",
        "#!/bin/sh\ntouch a-up\nfor i in $(seq 50); do [ -f b-up ] && exit 0; sleep 0.1; done\necho 'b never ran' >&2\nexit 1\n",
    );
    let b = script(
        &env,
        "b.sh",
        "#!/bin/sh\ntouch b-up\nfor i in $(seq 50); do [ -f a-up ] && exit 0; sleep 0.1; done\necho 'a never ran' >&2\nexit 1\n",
    );
    let count = script(&env, "count.sh", "#!/bin/sh\necho x >> count.txt\n");
    let hooks = json!({"PreToolUse": [{"matcher": "Glob", "hooks": [
        {"type": "command", "command": a, "timeout": 10},
        {"type": "command", "command": b, "timeout": 10},
        {"type": "command", "command": count}
    ]}]});
    settings(&env, hooks, json!({}));
    // The same handler in user settings runs once.
    std::fs::create_dir_all(env.home.path().join(".claude")).unwrap();
    std::fs::write(
        env.home.path().join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "Glob", "hooks": [{"type": "command", "command": count}]}]}})
            .to_string(),
    )
    .unwrap();
    let server = serve(Scenario::new([reply([call("g", "Glob", json!({"pattern": "*"}))]), reply([text("done")])]));
    let (_, stderr, ok) = run(&env, &server, &[]);
    assert!(ok);
    assert!(!stderr.contains("never ran"), "{stderr}");
    assert_eq!(std::fs::read_to_string(env.cwd().join("count.txt")).unwrap(), "x\n");

    std::fs::write(env.cwd().join("count.txt"), "").unwrap();
    env.write(".claude/settings.local.json", r#"{"disableAllHooks": true}"#);
    let server = serve(Scenario::new([reply([call("g", "Glob", json!({"pattern": "*"}))]), reply([text("done")])]));
    run(&env, &server, &[]);
    assert_eq!(std::fs::read_to_string(env.cwd().join("count.txt")).unwrap(), "", "disableAllHooks turns hooks off");
}

#[test]
fn if_rules_exec_form_and_the_hook_environment() {
    let env = Env::new();
    let rec = script(
        &env,
        "rec.sh",
        "#!/bin/bash\necho \"$1 $CLAUDE_PROJECT_DIR $(jq -r '.hook_event_name + \" \" + .permission_mode + \" \" + .tool_use_id')\" >> rec.txt\n",
    );
    settings(
        &env,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": rec, "args": ["git-only"], "if": "Bash(git *)"}
        ]}]}),
        json!({"allow": ["Bash"]}),
    );
    let server = serve(Scenario::new([
        reply([
            call("g", "Bash", json!({"command": "git --version"})),
            call("e", "Bash", json!({"command": "echo x"})),
        ]),
        reply([text("done")]),
    ]));
    let (_, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    let rec = std::fs::read_to_string(env.cwd().join("rec.txt")).unwrap();
    assert_eq!(
        rec,
        format!("git-only {} PreToolUse default g\n", env.cwd().display()),
        "only the git call matched the if rule"
    );
}

#[test]
fn a_deferred_call_stops_the_session_and_runs_on_resume() {
    let env = Env::new();
    // Defers while the flag file says so (as an out-of-band approval would), then allows.
    let gate = script(
        &env,
        "gate.sh",
        "#!/bin/sh\nif [ -f defer-flag ]; then echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"defer\"}}'; else echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"allow\"}}'; fi\n",
    );
    env.write("defer-flag", "");
    settings(&env, pre_tool("Bash", &gate), json!({}));
    let server = serve(Scenario::new([
        reply([
            call("g", "Glob", json!({"pattern": "*.txt"})),
            call("d", "Bash", json!({"command": "touch deployed"})),
        ]),
        reply([text("never")]),
    ]));
    let out = env.rein_at(&server).args(["-p", "deploy", "--output-format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = &json_lines(&out.stdout)[0];
    assert_eq!(r["stop_reason"], "tool_deferred");
    assert_eq!(r["deferred_tool_use"]["id"], "d");
    assert_eq!(r["deferred_tool_use"]["input"]["command"], "touch deployed");
    assert!(!env.cwd().join("deployed").exists());
    assert_eq!(server.requests().len(), 1, "the session stopped at the deferral");
    let id = r["session_id"].as_str().unwrap().to_string();

    std::fs::remove_file(env.cwd().join("defer-flag")).unwrap();
    let server = serve(Scenario::new([reply([text("deployed it")])]));
    env.rein_at(&server).args(["-p", "carry on", "--resume", &id]).assert().success().stdout("deployed it\n");
    assert!(env.cwd().join("deployed").exists(), "the deferred call ran on resume");
    let msgs = server.requests()[0].body["messages"].as_array().unwrap().clone();
    let last = msgs.last().unwrap()["content"].as_array().unwrap().clone();
    let ids: Vec<&str> = last.iter().filter_map(|b| b["tool_use_id"].as_str()).collect();
    assert_eq!(ids, ["g", "d"], "both calls answered, in call order");
    assert_eq!(last.last().unwrap()["text"], "carry on");
    assert!(rein_testkit::check_pairing(&msgs).is_ok());
}

#[test]
fn a_post_tool_use_handler_runs_only_when_its_if_rule_matches() {
    let env = Env::new();
    let log = env.cwd().join("post.log");
    let hook = format!("jq -r .tool_input.command >> {}", log.display());
    let post = json!([{"matcher": "Bash", "hooks": [{"type": "command", "command": hook, "if": "Bash(git *)"}]}]);
    settings(&env, json!({"PostToolUse": post}), json!({"allow": ["Bash"]}));
    let server = serve(Scenario::new([
        reply([call("ls", "Bash", json!({"command": "ls"})), call("git", "Bash", json!({"command": "git --version"}))]),
        reply([text("done")]),
    ]));
    let (_, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "git --version\n");
}

/// A PostToolUse hook sees a command's whole output, though the model gets its preview.
#[test]
fn post_tool_use_hooks_see_the_whole_of_a_saved_output() {
    let env = Env::new();
    let log = env.cwd().join("hook-lines.txt");
    let post = script(
        &env,
        "count.sh",
        &format!("#!/bin/bash\njq -r '.tool_response.stdout' | wc -l > '{}'\n", log.display()),
    );
    settings(
        &env,
        json!({"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": post}]}]}),
        json!({"allow": ["Bash(seq:*)"]}),
    );
    let server =
        serve(Scenario::new([reply([call("s", "Bash", json!({"command": "seq 1 200000"}))]), reply([text("ok")])]));
    let (_, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    let lines: usize = std::fs::read_to_string(&log).unwrap().trim().parse().unwrap();
    assert!(lines >= 200_000, "the hook saw {lines} lines");
    let model = server.requests()[1].body.to_string();
    assert!(model.contains("saved to") && model.len() < 60_000, "the model got the preview");
}

/// The same for a background command's output read with BashOutput.
#[test]
fn post_tool_use_hooks_see_the_whole_of_a_background_output() {
    let env = Env::new();
    let log = env.cwd().join("hook-lines.txt");
    let post =
        script(&env, "count.sh", &format!("#!/bin/bash\njq -r '.tool_response' | wc -l > '{}'\n", log.display()));
    settings(
        &env,
        json!({"PostToolUse": [{"matcher": "BashOutput", "hooks": [{"type": "command", "command": post}]}]}),
        json!({"allow": ["Bash(seq:*)", "Bash(sleep:*)"]}),
    );
    let server = serve(Scenario::new([
        reply([call("bg", "Bash", json!({"command": "seq 1 200000", "run_in_background": true}))]),
        reply([call("w", "Bash", json!({"command": "sleep 1"}))]),
        reply([call("bo", "BashOutput", json!({"bash_id": "bash_1"}))]),
        reply([text("ok")]),
    ]));
    let (_, stderr, ok) = run(&env, &server, &[]);
    assert!(ok, "{stderr}");
    let lines: usize = std::fs::read_to_string(&log).unwrap().trim().parse().unwrap();
    assert!(lines >= 200_000, "the hook saw {lines} lines");
    let model = server.requests()[3].body.to_string();
    assert!(model.contains("saved to") && model.len() < 60_000, "the model got the preview");
}
