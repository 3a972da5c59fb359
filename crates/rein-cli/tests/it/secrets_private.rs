//! rein's own secrets are unreadable to other processes of the same user (invariant 11):
//! not only absent from a command's environment, but also out of reach through rein's
//! `/proc` files (`environ`, `mem`, `cmdline` stays readable). Run as `nobody` when the
//! tests run as root, since root reads every process's files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

const NOBODY: u32 = 65534;

fn as_nobody_if_root(program: &std::path::Path) -> std::process::Command {
    // SAFETY: getuid cannot fail.
    if unsafe { libc::getuid() } != 0 {
        return std::process::Command::new(program);
    }
    let mut c = std::process::Command::new("setpriv");
    c.args(["--reuid", &NOBODY.to_string(), "--regid", &NOBODY.to_string(), "--clear-groups", "--"]).arg(program);
    c
}

#[test]
fn a_command_cannot_read_reins_key_from_proc() {
    let env = Env::new();
    // SAFETY: getuid cannot fail.
    if unsafe { libc::getuid() } == 0 {
        for dir in [env.cwd(), env.home.path()] {
            let ok = std::process::Command::new("chown").args(["-R", "65534:65534"]).arg(dir).status().unwrap();
            assert!(ok.success());
        }
    }
    // The session shell's parent is rein itself.
    let probe = "tr '\\0' '\\n' < /proc/$PPID/environ | grep -c SECRET_KEY_FOR_PROC; \
                 head -c 16 /proc/$PPID/mem >/dev/null && echo mem-read; echo done";
    let server =
        serve(Scenario::new([reply([tool_use_with_id("b", "Bash", json!({"command": probe}))]), reply([text("ok")])]));
    let out = as_nobody_if_root(&assert_cmd::cargo::cargo_bin("rein"))
        .current_dir(env.cwd())
        .env("HOME", env.home.path())
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "sk-SECRET_KEY_FOR_PROC")
        .env("REIN_RETRY_BASE_MS", "1")
        .args(["-p", "go", "--allowedTools", "Bash", "--no-sandbox"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    let (result, _) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "b");
    assert!(result.contains("done"), "{result}");
    assert!(result.contains("Permission denied"), "rein's /proc/PID/environ was readable: {result}");
    assert!(!result.contains("SECRET_KEY_FOR_PROC") && !result.contains("mem-read"), "{result}");
}
