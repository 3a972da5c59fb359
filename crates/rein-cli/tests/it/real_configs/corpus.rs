//! Issue 51's promise, held over the whole corpus `.ci/real-configs` fetches (thirteen
//! public Claude Code setups: projects as their installers leave them, plugins, a
//! marketplace): no setup that Claude Code accepts stops rein. For each, installed as its
//! users have it (a project's folder, a plugin or a marketplace added and installed with
//! `rein plugin`), `rein -p` starts, runs a command through the setup's hooks and prints
//! the model's answer; every warning rein prints about a configuration file names the
//! file (and the line, where a definition or a key is skipped); the setup's components
//! are offered, each once; and `rein doctor` finishes.

use std::path::{Path, PathBuf};

use crate::common::{Env, json_lines, serve, tool_result};
use crate::real_configs::{copy_tree, offline_path};
use rein_testkit::{Scenario, reply, text, tool_use_with_id};
use serde_json::Value;

/// Every setup `.ci/real-configs` installs.
const CORPUS: [&str; 13] = [
    "claude-flow",
    "superclaude",
    "superclaude-plugin",
    "claude-mem",
    "oh-my-claudecode",
    "ecc",
    "selfish-pipeline",
    "bmad-method",
    "get-shit-done",
    "cc-sdd",
    "spec-workflow",
    "oh-my-customcode",
    "the-agency",
];

const ANSWER: &str = "the corpus answer";

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.ci/real")
}

fn setup(name: &str) -> PathBuf {
    let dir = corpus_dir().join(name);
    assert!(dir.join(".done").is_file(), "{} is missing: run .ci/real-configs (CI does)", dir.display());
    dir
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The setup installed for `env` as its users have it; the plugin names it brings.
fn install(env: &Env, scratch: &Path, name: &str) -> Vec<String> {
    let from = setup(name);
    let manifest = from.join(".claude-plugin/plugin.json");
    let market = if manifest.is_file() {
        // A plugin: in a marketplace of its own, as a directory marketplace serves it.
        let plugin = read_json(&manifest)["name"].as_str().unwrap().to_string();
        let market = scratch.join("corpus");
        copy_tree(&from, &market.join(&plugin));
        std::fs::create_dir_all(market.join(".claude-plugin")).unwrap();
        let listing = serde_json::json!({"name": "corpus", "owner": {"name": "t"},
            "plugins": [{"name": plugin, "source": format!("./{plugin}")}]});
        std::fs::write(market.join(".claude-plugin/marketplace.json"), listing.to_string()).unwrap();
        market
    } else if from.join(".claude-plugin/marketplace.json").is_file() {
        let market = scratch.join(name);
        copy_tree(&from, &market);
        market
    } else {
        copy_tree(&from, env.cwd());
        return Vec::new();
    };
    let listing = read_json(&market.join(".claude-plugin/marketplace.json"));
    let (market_name, plugins) = (listing["name"].as_str().unwrap(), listing["plugins"].as_array().unwrap());
    env.rein().args(["plugin", "marketplace", "add"]).arg(&market).assert().success();
    let mut names = Vec::new();
    for p in plugins {
        let plugin = p["name"].as_str().unwrap();
        env.rein().args(["plugin", "install", &format!("{plugin}@{market_name}")]).assert().success();
        names.push(plugin.to_string());
    }
    names
}

/// A path named in `line` that exists, and whether it is given with a line number.
fn named_file(line: &str) -> Option<(PathBuf, bool)> {
    let mut found = None;
    for word in line.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | '`' | '"')) {
        let Some(start) = word.find('/') else { continue };
        let word = &word[start..];
        let mut parts = word.split(':');
        let path = PathBuf::from(parts.next().unwrap_or_default());
        let numbered = parts.next().is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if path.exists() {
            found = Some((path, numbered));
            if numbered {
                break;
            }
        }
    }
    found
}

/// rein's lines about its configuration (not a hook's run, which its own output reports).
fn config_warnings(stderr: &str) -> Vec<&str> {
    let hook_run = |l: &str| {
        let rest = l.trim_start_matches("rein: ");
        rest.split_whitespace().nth(1) == Some("hook")
    };
    stderr.lines().filter(|l| l.starts_with("rein: ") && !hook_run(l)).collect()
}

/// Each warning names an existing file; one that skips a definition or a key, its line.
fn assert_named(stderr: &str, what: &str) {
    for line in config_warnings(stderr) {
        let named = named_file(line);
        assert!(named.is_some(), "{what}: a warning names no file: {line}\n{stderr}");
        let lined = ["skipped", "ignores", "does not parse", "invalid", "unknown"].iter().any(|w| line.contains(w));
        assert!(!lined || named.is_some_and(|(_, n)| n), "{what}: a warning names no line: {line}\n{stderr}");
    }
}

fn strings(init: &Value, key: &str) -> Vec<String> {
    init[key].as_array().unwrap().iter().filter_map(|v| v.as_str().map(str::to_string)).collect()
}

/// The promise, for the setup `name`.
fn holds(name: &str) {
    let env = Env::new();
    let scratch = tempfile::tempdir().unwrap();
    let plugins = install(&env, scratch.path(), name);
    // As its users have it: a folder they trusted (its settings' allow rules, env and
    // status line apply).
    env.trust();
    // Prompt and agent hooks (a Stop hook's check) are answered by the judge's model.
    let verdicts = (0..8).map(|_| reply([text("{\"ok\": true}")]));
    // A command runs on the way, through the setup's tool hooks.
    let call = tool_use_with_id("ls", "Bash", serde_json::json!({"command": "ls"}));
    let server = serve(Scenario::new([reply([call]), reply([text(ANSWER)])]).with_judge(verdicts));
    let out = env
        .rein_at(&server)
        .env("PATH", offline_path(&env))
        .env("npm_config_offline", "true")
        .args(["-p", "hi", "--allowedTools", "Bash", "--output-format", "stream-json", "--verbose"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{name}: rein stopped\n{stderr}");
    let lines = json_lines(&out.stdout);
    let result = lines.iter().find(|l| l["type"] == "result").unwrap_or_else(|| panic!("{name}: no result\n{stderr}"));
    assert_eq!(result["result"], ANSWER, "{name}\n{stderr}");
    let asked: Vec<_> = server.requests().into_iter().filter(|r| !r.is_judge() && !r.is_title()).collect();
    let (answer, _) = tool_result(asked[1].body["messages"].as_array().unwrap(), "ls");
    assert!(!answer.is_empty(), "{name}: the call has its result\n{stderr}");
    assert_named(&stderr, name);

    // What the setup defines is offered.
    let init = lines.iter().find(|l| l["subtype"] == "init").unwrap();
    let listed: Vec<String> =
        init["plugins"].as_array().unwrap().iter().filter_map(|p| p["name"].as_str().map(str::to_string)).collect();
    for p in &plugins {
        assert!(listed.contains(p), "{name}: plugin {p} is not loaded: {listed:?}\n{stderr}");
    }
    for key in ["slash_commands", "agents", "skills"] {
        let mut names = strings(init, key);
        let all = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all, "{name}: {key} offered twice: {:?}", strings(init, key));
    }
    let offered = strings(init, "slash_commands").len() + strings(init, "agents").len();
    assert!(offered >= 3 + 10, "{name}: only {offered} commands and agents are offered\n{stderr}");

    let doctor = env.rein().arg("doctor").env("PATH", offline_path(&env)).output().unwrap();
    let report = String::from_utf8_lossy(&doctor.stdout).into_owned();
    let doctor_err = String::from_utf8_lossy(&doctor.stderr).into_owned();
    assert!(doctor.status.success(), "{name}: rein doctor failed\n{report}\n{doctor_err}");
    assert_named(&doctor_err, name);
    let skipped = report.split("Definitions skipped\n").nth(1).unwrap_or_default();
    for line in skipped.lines().take_while(|l| l.starts_with("  ")).filter(|l| l.trim() != "none") {
        assert!(named_file(line).is_some_and(|(_, n)| n), "{name}: doctor names no file and line: {line}");
    }
    for p in &plugins {
        assert!(report.contains(&format!("{p}@")) && !report.contains("is not loaded"), "{name}: {report}");
    }
}

#[test]
fn the_corpus_is_whole() {
    for name in CORPUS {
        setup(name);
    }
    let mut extra = Vec::new();
    for e in std::fs::read_dir(corpus_dir()).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if !n.starts_with("tmp.") && !CORPUS.contains(&n.as_str()) {
            extra.push(n);
        }
    }
    assert!(extra.is_empty(), "setups no test holds: {extra:?} (add them to CORPUS)");
}

macro_rules! each_setup {
    ($($test:ident => $name:literal),* $(,)?) => {
        $(#[test]
        fn $test() {
            holds($name);
        })*
    };
}

each_setup! {
    claude_flow_holds => "claude-flow",
    superclaude_holds => "superclaude",
    superclaude_plugin_holds => "superclaude-plugin",
    claude_mem_holds => "claude-mem",
    oh_my_claudecode_holds => "oh-my-claudecode",
    ecc_holds => "ecc",
    selfish_pipeline_holds => "selfish-pipeline",
    bmad_method_holds => "bmad-method",
    get_shit_done_holds => "get-shit-done",
    cc_sdd_holds => "cc-sdd",
    spec_workflow_holds => "spec-workflow",
    oh_my_customcode_holds => "oh-my-customcode",
    the_agency_holds => "the-agency",
}
