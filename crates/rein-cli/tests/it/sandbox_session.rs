//! The sandbox as a session sees it: the shell keeps its state inside it, ordinary
//! project work runs, the switches around it (`dangerouslyDisableSandbox`,
//! `autoAllowBashIfSandboxed`, `excludedCommands`, `failIfUnavailable`), and
//! `rein sandbox check`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use crate::common;

use common::{Env, have_bwrap, http_answering, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::{Value, json};

/// Run the Bash calls `commands` (ids c0, c1, …) in one session with `settings`;
/// returns each result and the first request's tools.
fn session(env: &Env, settings: &str, commands: &[Value], extra: &[&str]) -> (Vec<(String, bool)>, Value) {
    let mut steps: Vec<_> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| reply([tool_use_with_id(&format!("c{i}"), "Bash", c.clone())]))
        .collect();
    steps.push(reply([text("done")]));
    let server = serve(Scenario::new(steps));
    env.rein_at(&server).args(["-p", "go", "--settings", settings]).args(extra).assert().success();
    let reqs = server.requests();
    let last = reqs.last().unwrap().body["messages"].as_array().unwrap().clone();
    let results = (0..commands.len()).map(|i| tool_result(&last, &format!("c{i}"))).collect();
    (results, reqs[0].body["tools"].clone())
}

const ON: &str = r#"{"sandbox": {"enabled": true}, "permissions": {"allow": ["Bash"]}}"#;

#[test]
fn the_session_shell_and_project_work_run_inside_the_sandbox() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("src/app.py", "def add(a, b):\n    return a + b\n");
    env.write("test_app.py", "from src.app import add\nassert add(2, 3) == 5\nprint('tests ok')\n");
    let cmds = [
        json!({"command": "mkdir -p sub && cd sub && export GREETING=hello"}),
        json!({"command": "pwd; echo $GREETING; touch made-here"}),
        json!({"command": "cd .. && python3 test_app.py"}),
        json!({"command": "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm first && git status --short | wc -l"}),
        json!({"command": "echo $TMPDIR > tmpdir.txt; echo data > $TMPDIR/scratch && cat $TMPDIR/scratch"}),
        json!({"command": "echo bg > background.txt", "run_in_background": true}),
        json!({"command": "for i in $(seq 50); do [ -f background.txt ] && break; sleep 0.05; done"}),
    ];
    let (r, _) = session(&env, ON, &cmds, &["--permission-mode", "bypassPermissions"]);
    assert!(r.iter().all(|(_, err)| !err), "{r:?}");
    let sub = std::fs::canonicalize(env.cwd().join("sub")).unwrap();
    assert!(r[1].0.contains(&sub.display().to_string()) && r[1].0.contains("hello"), "{}", r[1].0);
    assert!(env.cwd().join("sub/made-here").exists());
    assert!(r[2].0.contains("tests ok"), "{}", r[2].0);
    assert_eq!(r[3].0.trim(), "0", "committed: {}", r[3].0);
    assert!(r[4].0.contains("data"));
    let tmpdir = std::fs::read_to_string(env.cwd().join("tmpdir.txt")).unwrap();
    assert!(tmpdir.contains("rein-sandbox-"), "a private temp dir: {tmpdir}");
    assert!(env.cwd().join("background.txt").exists(), "background commands run (sandboxed) too");
}

#[test]
fn running_outside_the_sandbox_is_always_asked_and_can_be_switched_off() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let out = tempfile::tempdir().unwrap();
    let escape = json!({"command": format!("touch {}/x", out.path().display()), "dangerouslyDisableSandbox": true});
    // Allowed by a rule, and in bypassPermissions mode: still asked (headless: no).
    let (r, tools) = session(&env, ON, std::slice::from_ref(&escape), &["--permission-mode", "bypassPermissions"]);
    assert!(r[0].1 && r[0].0.contains("outside the sandbox"), "{:?}", r[0]);
    assert!(!out.path().join("x").exists());
    let bash = tools.as_array().unwrap().iter().find(|t| t["name"] == "Bash").unwrap();
    assert!(bash["input_schema"]["properties"].get("dangerouslyDisableSandbox").is_some());
    assert!(bash["description"].as_str().unwrap().contains("OS sandbox"), "{bash}");
    // allowUnsandboxedCommands false: the field is not offered and is ignored.
    let off =
        r#"{"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}, "permissions": {"allow": ["Bash"]}}"#;
    let (r, tools) = session(&env, off, &[escape], &[]);
    assert!(r[0].1, "ran sandboxed, so the write outside failed: {:?}", r[0]);
    assert!(!out.path().join("x").exists());
    let bash = tools.as_array().unwrap().iter().find(|t| t["name"] == "Bash").unwrap();
    assert!(bash["input_schema"]["properties"].get("dangerouslyDisableSandbox").is_none(), "{bash}");
}

#[test]
fn auto_allow_and_excluded_commands() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let out = tempfile::tempdir().unwrap();
    let unlisted = json!({"command": "python3 -c \"open('made.txt','w').write('x')\""});
    // No allow rule: asked (headless: no) ...
    let (r, _) = session(&env, r#"{"sandbox": {"enabled": true}}"#, std::slice::from_ref(&unlisted), &[]);
    assert!(r[0].1 && !env.cwd().join("made.txt").exists(), "{:?}", r[0]);
    // ... allowed when it runs sandboxed and autoAllowBashIfSandboxed is on.
    let auto = r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}"#;
    let (r, _) = session(&env, auto, &[unlisted], &[]);
    assert!(!r[0].1 && env.cwd().join("made.txt").exists(), "{:?}", r[0]);
    // An excluded command runs outside the sandbox (through the normal permission flow).
    let excluded =
        r#"{"sandbox": {"enabled": true, "excludedCommands": ["touch *"]}, "permissions": {"allow": ["Bash"]}}"#;
    let target = out.path().join("outside");
    let (r, _) = session(&env, excluded, &[json!({"command": format!("touch {}", target.display())})], &[]);
    assert!(!r[0].1 && target.exists(), "{:?}", r[0]);
    // A chain with a command that is not excluded stays sandboxed.
    let chained = out.path().join("chained");
    let cmd = format!("touch {} && python3 -c \"open('{}','w')\"", chained.display(), out.path().join("py").display());
    let (r, _) = session(&env, excluded, &[json!({"command": cmd})], &[]);
    assert!(r[0].1 && !chained.exists(), "{:?}", r[0]);
}

#[test]
fn no_sandbox_available_warns_or_stops_with_fail_if_unavailable() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let strict = r#"{"sandbox": {"enabled": true, "failIfUnavailable": true}}"#;
    let out =
        env.rein_at(&server).env("REIN_SANDBOX_TIER", "C").args(["-p", "go", "--settings", strict]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("failIfUnavailable"), "{err}");
    assert!(server.requests().is_empty(), "stopped before any request");
    let loose = r#"{"sandbox": {"enabled": true, "autoAllowBashIfSandboxed": true}}"#;
    let (r, tools) = {
        let server = serve(Scenario::new([
            reply([tool_use_with_id("c0", "Bash", json!({"command": "python3 -c \"print(1)\""}))]),
            reply([text("done")]),
        ]));
        let out = env
            .rein_at(&server)
            .env("REIN_SANDBOX_TIER", "C")
            .args(["-p", "go", "--settings", loose])
            .output()
            .unwrap();
        assert!(String::from_utf8_lossy(&out.stderr).contains("UNAVAILABLE"));
        let reqs = server.requests();
        (tool_result(reqs[1].body["messages"].as_array().unwrap(), "c0"), reqs[0].body["tools"].clone())
    };
    assert!(r.1, "not auto-allowed when nothing is sandboxed: {r:?}");
    let bash = tools.as_array().unwrap().iter().find(|t| t["name"] == "Bash").unwrap();
    assert!(bash["description"].as_str().unwrap().contains("NOT sandboxed"), "{bash}");
}

#[test]
fn sandbox_check_prints_the_tier_and_the_policy() {
    let env = Env::new();
    env.write(".env", "X=1\n");
    env.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["Read(./.env)"]}, "sandbox": {"network": {"allowedDomains": ["evil.example"]}}}"#,
    );
    std::fs::create_dir_all(env.cwd().join(".git/hooks")).unwrap();
    let out = env.rein().args(["sandbox", "check"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let tier = if have_bwrap() { "tier: A" } else { "tier: B" };
    assert!(text.contains(tier), "{text}");
    assert!(text.contains("seccomp: available") && text.contains("landlock: ABI"), "{text}");
    assert!(text.contains(".git/hooks") && text.contains("read masks") && text.contains(".env"), "{text}");
    assert!(text.contains("ignored") && text.contains("evil.example"), "project widening reported: {text}");
}

#[test]
fn npm_cargo_and_pytest_projects_build_and_test_inside_the_sandbox() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write("package.json", r#"{"name": "t", "version": "1.0.0", "scripts": {"test": "node test.js"}}"#);
    env.write("test.js", "console.log('node tests ok')\n");
    env.write("crt/Cargo.toml", "[package]\nname = \"crt\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
    env.write("crt/src/lib.rs", "#[test]\nfn adds() { assert_eq!(1 + 1, 2); }\n");
    env.write("pyproj/test_math.py", "def test_adds():\n    assert 1 + 1 == 2\n");
    let mut cmds = Vec::new();
    if which("npm") {
        cmds.push(json!({"command": "npm test"}));
    }
    if std::process::Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
    {
        cmds.push(json!({"command": "(cd pyproj && python3 -m pytest -q 2>&1 | tail -2)"}));
    }
    if which("cargo") {
        cmds.push(json!({"command": "(cd crt && cargo test --offline -q 2>&1 | tail -3)"}));
    }
    let server = serve(Scenario::new(
        cmds.iter()
            .enumerate()
            .map(|(i, c)| reply([tool_use_with_id(&format!("c{i}"), "Bash", c.clone())]))
            .chain([reply([text("done")])]),
    ));
    let mut rein = env.rein_at(&server);
    for var in ["CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN"] {
        if let Some(v) = std::env::var_os(var) {
            rein.env(var, v);
        }
    }
    if std::env::var_os("RUSTUP_HOME").is_none() {
        rein.env("RUSTUP_HOME", dirs_home().join(".rustup")).env("CARGO_HOME", dirs_home().join(".cargo"));
    }
    rein.args(["-p", "go", "--settings", ON, "--permission-mode", "bypassPermissions"]).assert().success();
    let reqs = server.requests();
    let last = reqs.last().unwrap().body["messages"].as_array().unwrap().clone();
    for (i, c) in cmds.iter().enumerate() {
        let (out, err) = tool_result(&last, &format!("c{i}"));
        assert!(!err, "{c}: {out}");
        assert!(
            out.contains("node tests ok") || out.contains("test result: ok") || out.contains("1 passed"),
            "{c}: {out}"
        );
    }
}

fn which(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn dirs_home() -> std::path::PathBuf {
    std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
}

#[test]
fn violations_name_what_the_sandbox_refused() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let (r, _) = session(&env, ON, &[json!({"command": "echo x > /etc/rein-sandbox-test"})], &[]);
    assert!(r[0].1, "{:?}", r[0]);
    assert!(r[0].0.contains("Read-only file system"), "the command's own error: {}", r[0].0);
    assert!(r[0].0.contains("<sandbox_violations>\ndeny file-write /etc/rein-sandbox-test"), "{}", r[0].0);
}

#[test]
fn unix_sockets_and_the_users_own_proxy_can_be_allowed() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let unix = json!({"command": "python3 -c \"import socket; socket.socket(socket.AF_UNIX)\""});
    let (r, _) = session(&env, ON, std::slice::from_ref(&unix), &[]);
    assert!(r[0].1, "blocked by default: {:?}", r[0]);
    let allowed = r#"{"sandbox": {"enabled": true, "network": {"allowAllUnixSockets": true}}, "permissions": {"allow": ["Bash"]}}"#;
    let (r, _) = session(&env, allowed, &[unix], &[]);
    assert!(!r[0].1, "allowed by the user: {:?}", r[0]);
    // httpProxyPort: the traffic goes to the user's own proxy, which answers itself.
    let port = http_answering(b"HTTP/1.1 200 OK\r\nContent-Length: 14\r\nConnection: close\r\n\r\nfrom my proxy\n");
    let own = format!(
        r#"{{"sandbox": {{"enabled": true, "network": {{"httpProxyPort": {port}}}}}, "permissions": {{"allow": ["Bash"]}}}}"#
    );
    let fetch = "python3 -c \"import os,urllib.request as u; o=u.build_opener(u.ProxyHandler({'http': os.environ['HTTP_PROXY']})); print(o.open('http://anything.example/', timeout=5).read().decode())\"";
    let (r, _) = session(&env, &own, &[json!({"command": fetch})], &[]);
    assert!(!r[0].1 && r[0].0.contains("from my proxy"), "{:?}", r[0]);
}

#[test]
fn what_a_command_plants_for_later_unsandboxed_processes_is_undone() {
    for tier in ["A", "B"] {
        if tier == "A" && !have_bwrap() {
            continue;
        }
        let env = Env::new();
        std::fs::create_dir_all(env.cwd().join("repo")).unwrap();
        let git =
            std::process::Command::new("git").args(["init", "-q", "repo"]).current_dir(env.cwd()).status().unwrap();
        assert!(git.success());
        // Written by a program, so that only the sandbox stands in the way.
        let plant = "python3 -c \"import os,subprocess\nopen('.mcp.json','w').write('{}')\nos.makedirs('.claude', exist_ok=True)\n\
                     open('.claude/settings.json','w').write('{}')\nsubprocess.run(['git','init','-q','fresh'])\n\
                     open('fresh/.git/hooks/post-checkout','w').write('evil')\nsubprocess.run(['git','-C','fresh','config','core.fsmonitor','evil'])\n\
                     try: open('repo/.git/config','a').write('[core]\\\\n\\\\thooksPath = /tmp/evil\\\\n')\nexcept OSError as e: print('refused', e)\"";
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("rein"));
        let server = serve(Scenario::new([
            reply([tool_use_with_id("c0", "Bash", json!({"command": plant}))]),
            reply([text("done")]),
        ]));
        cmd.current_dir(env.cwd())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", env.home.path())
            .env("ANTHROPIC_BASE_URL", server.url())
            .env("ANTHROPIC_API_KEY", "k")
            .env("REIN_SANDBOX_TIER", tier)
            .args(["-p", "go", "--settings", ON]);
        assert!(cmd.output().unwrap().status.success());
        let reqs = server.requests();
        let (out, _) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "c0");
        assert!(!env.cwd().join(".mcp.json").exists(), "tier {tier}: {out}");
        assert!(!env.cwd().join(".claude").exists(), "tier {tier}: {out}");
        assert!(!env.cwd().join("fresh/.git/hooks/post-checkout").exists(), "tier {tier}: {out}");
        let fresh = std::fs::read_to_string(env.cwd().join("fresh/.git/config")).unwrap();
        assert!(!fresh.contains("fsmonitor"), "tier {tier}: {fresh}");
        let repo = std::fs::read_to_string(env.cwd().join("repo/.git/config")).unwrap();
        assert!(!repo.contains("hooksPath"), "tier {tier}: {repo}");
        assert!(out.contains("<sandbox_violations>") && out.contains(".mcp.json"), "tier {tier}: {out}");
    }
}

#[test]
fn permission_rules_feed_the_sandbox() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write(".env", "TOKEN=hunter2\n");
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    // Command-line settings may widen: an Edit allow rule outside the project becomes a
    // write root; a Read deny rule masks the file for every program.
    let settings = format!(
        r#"{{"sandbox": {{"enabled": true}}, "permissions": {{"allow": ["Bash", "Edit(/{}/**)"], "deny": ["Read(./.env)"]}}}}"#,
        outside.path().display()
    );
    let write = |dir: &std::path::Path| json!({"command": format!("python3 -c \"open('{}/f','w').write('x')\"", dir.display())});
    let read = json!({"command": "python3 -c \"print(open('.env').read())\""});
    let (r, _) = session(&env, &settings, &[write(outside.path()), write(elsewhere.path()), read], &[]);
    assert!(!r[0].1 && outside.path().join("f").exists(), "Edit allow → writable: {:?}", r[0]);
    assert!(r[1].1 && !elsewhere.path().join("f").exists(), "no rule → read-only: {:?}", r[1]);
    assert!(r[2].1 && !r[2].0.contains("hunter2"), "Read deny → masked: {:?}", r[2]);
}

#[test]
fn a_background_command_killed_with_the_session_is_undone_too() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let cmds = [
        json!({"command": "python3 -c \"import time; open('.mcp.json','w').write('{}'); time.sleep(60)\"", "run_in_background": true}),
        json!({"command": "for i in $(seq 100); do [ -f .mcp.json ] && break; sleep 0.05; done; ls -a"}),
    ];
    let (r, _) = session(&env, ON, &cmds, &["--permission-mode", "bypassPermissions"]);
    assert!(r[1].0.contains(".mcp.json"), "the job wrote it while running: {:?}", r[1]);
    assert!(!env.cwd().join(".mcp.json").exists(), "removed when the session ended");
}

#[test]
fn managed_settings_lock_the_sandbox_and_the_project_cannot_widen_it() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    let managed = tempfile::tempdir().unwrap();
    std::fs::write(managed.path().join("managed-settings.json"), r#"{"sandbox": {"enabled": true}}"#).unwrap();
    let outside = tempfile::tempdir().unwrap();
    env.write(
        ".claude/settings.json",
        &format!(
            r#"{{"sandbox": {{"filesystem": {{"allowWrite": ["{}"]}}}}, "permissions": {{"allow": ["Bash"]}}}}"#,
            outside.path().display()
        ),
    );
    let server = serve(Scenario::new([
        reply([tool_use_with_id(
            "c0",
            "Bash",
            json!({"command": format!("python3 -c \"open('{}/f','w')\"", outside.path().display())}),
        )]),
        reply([text("done")]),
    ]));
    let out = env
        .rein_at(&server)
        .env("REIN_MANAGED_SETTINGS_DIR", managed.path())
        .args(["-p", "go", "--no-sandbox"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("project settings may not widen the sandbox"), "{stderr}");
    let (result, err) = tool_result(server.requests()[1].body["messages"].as_array().unwrap(), "c0");
    assert!(
        err && !outside.path().join("f").exists(),
        "managed enabled beats --no-sandbox; the project's allowWrite is ignored: {result}"
    );
}
