//! Memory that reaches the model when it first reads or edits a file (as Claude Code
//! injects it): a subdirectory's CLAUDE.md and `paths:` rules; `claudeMdExcludes`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::{Env, serve};
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::json;

#[test]
fn a_subdirectorys_memory_and_matching_rules_arrive_with_the_first_read() {
    let env = Env::new();
    env.write("CLAUDE.md", "TOP-MEMORY\n");
    env.write("team/CLAUDE.md", "TEAM-MEMORY (left out)\n");
    env.write("api/CLAUDE.md", "API-MEMORY: handlers return Result.\n");
    env.write(".claude/rules/rust.md", "---\npaths: \"api/**/*.rs\"\n---\nRUST-RULE: no unwrap.\n");
    env.write("api/handler.rs", "fn main() {}\n");
    env.write("api/other.rs", "fn other() {}\n");
    env.write(".claude/settings.json", &json!({"claudeMdExcludes": ["**/team/CLAUDE.md"]}).to_string());
    let read = |id: &str, f: &str| reply([call(id, "Read", json!({"file_path": env.cwd().join(f)}))]);
    let server = serve(Scenario::new([
        read("a", "api/handler.rs"),
        read("b", "api/other.rs"),
        read("c", "team/x"),
        reply([text("done")]),
    ]));
    env.write("team/x", "x\n");
    env.rein_at(&server).args(["-p", "look"]).assert().success();
    let reqs = server.requests();
    let system = reqs[0].system_text();
    assert!(system.contains("TOP-MEMORY") && !system.contains("API-MEMORY") && !system.contains("RUST-RULE"));
    let after_first = reqs[1].body["messages"][2]["content"].to_string();
    assert!(after_first.contains("API-MEMORY") && after_first.contains("RUST-RULE"), "{after_first}");
    let after_second = reqs[2].body["messages"][4]["content"].to_string();
    assert!(!after_second.contains("API-MEMORY"), "given once: {after_second}");
    let after_third = reqs[3].body["messages"][6]["content"].to_string();
    assert!(!after_third.contains("TEAM-MEMORY"), "claudeMdExcludes: {after_third}");
}
