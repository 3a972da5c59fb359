//! Real, public Claude Code configurations, as their users install them (fetched by
//! `.ci/real-configs` from npm and PyPI): rein starts on them, skips what Claude Code
//! skips (a README in an agents folder) with a warning, and offers every subagent,
//! command and skill they define by the names their authors document.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use crate::common::{Env, json_lines, serve};
use rein_testkit::{Scenario, reply, text};
use serde_json::Value;

mod corpus;

/// `.ci/real/<name>/.claude`, which `.ci/real-configs` installs.
fn real(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/real").join(name).join(".claude");
    assert!(dir.is_dir(), "{} is missing: run .ci/real-configs (CI does)", dir.display());
    dir
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// The `.md` files below `dir` (relative, without the extension), that start a
/// front-matter block.
fn definitions(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md")
                && std::fs::read_to_string(&p).unwrap().replace("\r\n", "\n").starts_with("---\n")
            {
                out.push(p.strip_prefix(dir).unwrap().with_extension("").to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

/// A PATH whose `npx` and `npm` fail at once, so that a configuration's hooks (claude-flow's
/// SessionStart hooks start `npx @claude-flow/cli@latest`, detached) never reach the
/// registry: the test stays offline and a gigabyte of npm cache is never written behind it.
pub(crate) fn offline_path(env: &Env) -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt;
    let bin = env.home.path().join("offline-bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["npx", "npm"] {
        let shim = bin.join(tool);
        std::fs::write(&shim, "#!/bin/sh\necho \"offline test: $0 is not run\" >&2\nexit 1\n").unwrap();
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
    std::env::join_paths(paths).unwrap()
}

/// `rein -p hi` in a project holding `config`: its init line and stderr.
fn start(env: &Env, config: &Path) -> (Value, String) {
    copy_tree(config, &env.cwd().join(".claude"));
    let server = serve(Scenario::new([reply([text("hi")])]));
    let out = env
        .rein_at(&server)
        .env("PATH", offline_path(env))
        .env("npm_config_offline", "true")
        .args(["-p", "hi", "--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    let init = json_lines(&out.stdout).into_iter().find(|l| l["subtype"] == "init").unwrap();
    (init, stderr)
}

fn names(init: &Value, key: &str) -> Vec<String> {
    init[key].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

#[test]
fn superclaude_loads_with_its_readme_skipped() {
    let env = Env::new();
    let config = real("superclaude");
    let (init, stderr) = start(&env, &config);
    let readme = env.cwd().join(".claude/agents/README.md");
    assert!(stderr.contains(&format!("{}:1: skipped: no front matter", readme.display())), "{stderr}");
    let agents = names(&init, "agents");
    let files = definitions(&config.join("agents"));
    assert!(files.len() >= 15, "{files:?}");
    for name in ["backend-architect", "pm-agent", "socratic-mentor", "Explore", "Plan", "general-purpose"] {
        assert!(agents.contains(&name.to_string()), "{name} missing from {agents:?}");
    }
    assert_eq!(agents.len(), files.len() + 3, "every definition and the built-in types: {agents:?}");
    let commands = names(&init, "slash_commands");
    for name in ["analyze", "brainstorm", "build", "design"] {
        assert!(commands.contains(&name.to_string()), "/{name} missing from {commands:?}");
    }
}

#[test]
fn claude_flow_offers_its_namespaced_commands_subagents_and_skills() {
    let env = Env::new();
    let config = real("claude-flow");
    let (init, stderr) = start(&env, &config);
    assert!(!stderr.contains("invalid"), "{stderr}");
    let commands = names(&init, "slash_commands");
    for file in definitions(&config.join("commands")) {
        let name = file.replace('/', ":");
        assert!(commands.contains(&name), "/{name} missing: {commands:?}");
    }
    let skills =
        std::fs::read_dir(config.join("skills")).unwrap().flatten().filter(|e| e.path().join("SKILL.md").is_file());
    for skill in skills {
        let name = skill.file_name().to_string_lossy().into_owned();
        assert!(commands.contains(&name), "the skill /{name} is missing");
    }
    let agents = names(&init, "agents");
    assert!(agents.len() > 60, "{} agents: {agents:?}", agents.len());
    assert!(agents.contains(&"code-review-swarm".to_string()));
}
