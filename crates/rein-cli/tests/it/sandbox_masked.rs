//! Less friction where the model is complete (issue 25): a read-only search of a tree
//! that holds a Read-denied file runs in the sandbox with that file masked, and is
//! asked — not denied — without the sandbox, the reason saying the sandbox would let it
//! run. Real binary, real bubblewrap.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, have_bwrap, serve, tool_result};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::json;

fn search(env: &Env, sandbox: &str) -> (String, bool) {
    let server = serve(Scenario::new([
        reply([tool_use_with_id("g", "Bash", json!({"command": "grep -rn alpha ."}))]),
        reply([text("done")]),
    ]));
    let out = env
        .rein()
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "sk-test")
        .env_remove("REIN_SANDBOX_TIER")
        .args(["-p", "go", sandbox])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    tool_result(reqs[1].body["messages"].as_array().unwrap(), "g")
}

#[test]
fn a_search_beside_a_denied_file_runs_masked_in_the_sandbox_and_is_asked_without_it() {
    if !have_bwrap() {
        return;
    }
    let env = Env::new();
    env.write(".env", "alpha=the-secret-value\n");
    env.write("notes.md", "alpha is the first letter\n");
    env.write(".claude/settings.json", r#"{"permissions": {"deny": ["Read(./.env)"]}}"#);
    // It ran (grep says the masked file could not be read, and exits 2).
    let (out, _) = search(&env, "--sandbox");
    assert!(out.contains("notes.md:1:alpha is the first letter"), "{out}");
    assert!(!out.contains("the-secret-value"), "the masked file was read: {out}");

    let (out, is_error) = search(&env, "--no-sandbox");
    assert!(is_error, "{out}");
    assert!(out.contains("Read(./.env)") && out.contains("sandbox"), "{out}");
    assert!(!out.contains("denied by"), "asked, not denied: {out}");
}
