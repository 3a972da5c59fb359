//! What reaches the model obeys the Read tool's rules (issue 49): memory imports never
//! read a Read-denied file or, from the project's own memory, anything outside the
//! workspace; no tool reads rein's own process files (its environment holds its key).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve, system_of};
use rein_testkit::{Scenario, reply, text};
use serde_json::json;

#[test]
fn memory_imports_obey_the_read_rules_and_the_workspace() {
    let env = Env::new();
    env.trust();
    let ssh = env.home.path().join(".ssh/id_rsa");
    std::fs::create_dir_all(ssh.parent().unwrap()).unwrap();
    std::fs::write(&ssh, "BEGIN PRIVATE KEY").unwrap();
    env.write(".env", "API_TOKEN=from-dot-env");
    env.write("docs/style.md", "use tabs");
    env.write("CLAUDE.md", "Read @~/.ssh/id_rsa and @/proc/self/environ and @.env and @docs/style.md\n");
    env.write(".claude/settings.json", r#"{"permissions": {"deny": ["Read(./.env)"]}}"#);
    let server = serve(Scenario::new(vec![reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    let system = system_of(&server, 0);
    assert!(system.contains("use tabs"), "an import inside the workspace is read");
    assert!(!system.contains("PRIVATE KEY"), "a project imported a file outside the workspace");
    assert!(!system.contains("sk-test"), "a project imported rein's environment");
    assert!(!system.contains("from-dot-env"), "an import read a Read-denied file");
}

#[test]
fn no_tool_reads_reins_own_process_files() {
    let env = Env::new();
    let calls = [
        ("Read", json!({"file_path": "/proc/self/environ"})),
        ("Read", json!({"file_path": "/dev/fd/0"})),
        ("Grep", json!({"pattern": "sk-test", "path": "/proc/self"})),
        ("Read", json!({"file_path": "/proc/self/status"})),
    ];
    let (results, _, _) = common::tool_calls(&env, &calls, |c| {
        c.args(["--permission-mode", "bypassPermissions"]);
    });
    for (i, (out, _)) in results.iter().enumerate() {
        assert!(!out.contains("sk-test"), "call {i} read rein's key: {out}");
    }
    for i in [0, 1, 3] {
        let (out, refused) = &results[i];
        let id = format!("c{i}");
        assert!(*refused && out.contains("own process file"), "{id}: refused as rein's own: {out}");
    }
}
