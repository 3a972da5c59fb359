//! The guidance the model is given (issue 34): every topic of the checklist in
//! crates/rein-prompt/guidance_topics.md is said where it belongs — the system prompt
//! for conduct, a tool's description for that tool — in the first request rein sends.

use crate::common::{Env, serve};
use rein_testkit::{Scenario, reply, text};

#[test]
fn every_topic_is_covered_where_it_belongs() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    let request = &server.requests()[0];
    let system = request.system_text();
    let checklist =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../rein-prompt/guidance_topics.md")).unwrap();
    let mut missing = Vec::new();
    let mut topics = 0;
    for line in checklist.lines().filter_map(|l| l.strip_prefix("- ")) {
        let mut parts = line.splitn(3, " | ");
        let (Some(place), Some(topic), Some(phrase)) = (parts.next(), parts.next(), parts.next()) else {
            panic!("a checklist line is not `place | topic | \"phrase\"`: {line}");
        };
        let phrase = phrase.trim().trim_matches('"');
        topics += 1;
        let text = if place == "system" {
            system.clone()
        } else {
            let tools = request.body["tools"].as_array().unwrap();
            let tool = tools.iter().find(|t| t["name"] == place).unwrap_or_else(|| panic!("no tool {place}"));
            tool["description"].as_str().unwrap().to_string()
        };
        if !text.contains(phrase) {
            missing.push(format!("{place}: {topic} ({phrase:?})"));
        }
    }
    assert!(topics >= 30, "the checklist lists every topic: {topics}");
    assert!(missing.is_empty(), "topics not covered where they belong: {missing:#?}");
}

/// The built-in instructions and the default tools array, as the first request carries
/// them: a change to what the model is told shows up in review.
#[test]
fn the_system_prompt_and_the_tools_array_are_what_review_approved() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    let request = &server.requests()[0];
    let system = request.system_text();
    // The part every session shares (the environment and memory follow it).
    let stable = system.split("# Environment\n").next().unwrap_or_default();
    insta::assert_snapshot!("system_prompt", stable.trim_end());
    insta::assert_json_snapshot!("tools_array", request.body["tools"]);
}

/// The prompt files given on the command line stay in the prompt when settings make rein
/// build it again (excluded memory files).
#[test]
fn prompt_files_survive_a_rebuilt_prompt() {
    let env = Env::new();
    env.write("extra.md", "APPENDED-FROM-A-FILE");
    env.write(".claude/settings.json", r#"{"claudeMdExcludes": ["**/nothing.md"]}"#);
    let server = serve(Scenario::new([reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi", "--append-system-prompt-file", "extra.md"]).assert().success();
    let system = server.requests()[0].system_text();
    assert!(system.trim_end().ends_with("APPENDED-FROM-A-FILE"), "{system}");
    assert!(system.contains("Permission mode: default"), "the facts are there too: {system}");
}

/// The built-in guidance never points the model at a tool this session does not offer:
/// a bare deny rule removes WebSearch and Agent, and their lines go with them.
#[test]
fn the_guidance_names_only_the_tools_offered() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("ok")]), reply([text("ok")])]));
    env.rein_at(&server).args(["-p", "hi"]).assert().success();
    env.rein_at(&server).args(["-p", "hi", "--disallowedTools", "WebSearch,Agent"]).assert().success();
    let (all, fitted) = (server.requests()[0].system_text(), server.requests()[1].system_text());
    assert!(all.contains("Use WebSearch") && all.contains("subagent (Agent)"), "{all}");
    assert!(!fitted.contains("WebSearch") && !fitted.contains("(Agent)"), "{fitted}");
    assert!(fitted.contains("with WebFetch") && fitted.contains("TodoWrite"), "the others stay: {fitted}");
}
