//! WebSearch through the real binary: the search runs at the provider, in one side
//! request with the provider's own search tool (the Messages API's `web_search` server
//! tool on Anthropic, Vertex AI and Bedrock; the Responses API's `web_search`), its
//! results come back as titles and URLs, the searches are counted in the result line,
//! and the permission rules and the provider decide whether it is offered and allowed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve, tool_result};
use rein_protocol::{ContentBlock, ServerToolUse, Usage};
use rein_testkit::{FakeServer, Reply, Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

/// What the provider answers a search with, in the Messages API's shape.
fn search_answer() -> Reply {
    reply([
        ContentBlock::Other(json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
            "input": {"query": "rust 2026 edition"}})),
        ContentBlock::Other(json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
            {"type": "web_search_result", "url": "https://blog.rust-lang.org/2026/edition", "title": "The 2026 edition",
             "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": "1 month ago"},
            {"type": "web_search_result", "url": "https://doc.rust-lang.org/edition-guide/", "title": "Edition guide",
             "encrypted_content": "EqgfCioIARgBIiQ4"}
        ]})),
        text("The 2026 edition ships in the autumn."),
    ])
    .usage(Usage {
        input_tokens: 900,
        output_tokens: 40,
        server_tool_use: Some(ServerToolUse { web_search_requests: 1, web_fetch_requests: 0 }),
        ..Usage::default()
    })
}

fn search_call() -> Reply {
    reply([call("s", "WebSearch", json!({"query": "rust 2026 edition", "allowed_domains": ["rust-lang.org"]}))])
}

/// The tools offered: sent in full, or named by ToolSearch as waiting to be loaded.
fn tool_names(body: &Value) -> Vec<String> {
    let tools = body["tools"].as_array().into_iter().flatten();
    let mut names: Vec<String> = tools.clone().filter_map(|t| t["name"].as_str().map(str::to_string)).collect();
    let search = tools.filter(|t| t["name"] == "ToolSearch").filter_map(|t| t["description"].as_str());
    for text in search {
        let listed = text.split("not sent yet: ").nth(1).and_then(|rest| rest.split(". ").next()).unwrap_or("");
        names.extend(listed.split(", ").map(str::to_string));
    }
    names
}

/// The search's own request: no client tools, the provider's search tool only.
fn assert_messages_search_request(body: &Value) {
    let tools = body["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "{body}");
    assert_eq!(
        tools[0],
        json!({"type": "web_search_20250305", "name": "web_search", "max_uses": 8, "allowed_domains": ["rust-lang.org"]})
    );
    assert!(body["messages"][0]["content"].to_string().contains("rust 2026 edition"));
}

#[test]
fn a_search_runs_at_the_provider_and_returns_titles_and_urls() {
    let env = Env::new();
    let server = serve(Scenario::new([search_call(), search_answer(), reply([text("See the 2026 edition post.")])]));
    let out = env
        .rein_at(&server)
        .args(["-p", "what is new in rust?", "--allowedTools", "WebSearch", "--output-format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(tool_names(&reqs[0].body).contains(&"WebSearch".to_string()), "offered on the Messages API");
    assert_messages_search_request(&reqs[1].body);
    assert_eq!(reqs[1].body["model"], "claude-haiku-4-5", "the small fast model runs the search");
    let (result, is_error) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "s");
    assert!(!is_error, "{result}");
    assert!(result.starts_with("Web search results for query: \"rust 2026 edition\""), "{result}");
    assert!(
        result.contains(r#"{"title":"The 2026 edition","url":"https://blog.rust-lang.org/2026/edition"}"#),
        "{result}"
    );
    assert!(result.contains("https://doc.rust-lang.org/edition-guide/") && result.contains("ships in the autumn"));
    assert!(!result.contains("encrypted_content"), "{result}");
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["usage"]["server_tool_use"]["web_search_requests"], 1, "{line}");
    let per_model = line["modelUsage"].as_object().unwrap().values().next().unwrap();
    assert_eq!(per_model["webSearchRequests"], 1, "{line}");
    assert!(line["total_cost_usd"].as_f64().unwrap() >= 0.01, "a search costs a cent: {line}");
}

#[test]
fn a_search_is_asked_by_default_and_a_deny_rule_removes_the_tool() {
    let env = Env::new();
    let server = serve(Scenario::new([search_call(), reply([text("not allowed")])]));
    env.rein_at(&server).args(["-p", "search"]).assert().success();
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "no search request without permission");
    let (result, is_error) = tool_result(reqs[1].body["messages"].as_array().unwrap(), "s");
    assert!(is_error, "{result}");

    let server = serve(Scenario::new([reply([text("fine")])]));
    env.rein_at(&server).args(["-p", "search", "--disallowedTools", "WebSearch"]).assert().success();
    assert!(!tool_names(&server.requests()[0].body).contains(&"WebSearch".to_string()));

    env.write(".claude/settings.json", r#"{"permissions": {"deny": ["WebSearch"]}}"#);
    let server = serve(Scenario::new([reply([text("fine")])]));
    env.rein_at(&server).args(["-p", "search"]).assert().success();
    assert!(!tool_names(&server.requests()[0].body).contains(&"WebSearch".to_string()));
}

#[test]
fn vertex_ai_and_bedrock_search_with_the_same_server_tool() {
    let env = Env::new();
    let model = "claude-sonnet-4-5@20250929";
    let server = serve(Scenario::new([search_call(), search_answer(), reply([text("done")])]));
    env.rein()
        .env("CLAUDE_CODE_USE_VERTEX", "1")
        .env("ANTHROPIC_VERTEX_PROJECT_ID", "p")
        .env("CLOUD_ML_REGION", "us-east5")
        .env("ANTHROPIC_VERTEX_BASE_URL", format!("{}/v1", server.url()))
        .env("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1")
        .env("ANTHROPIC_MODEL", model)
        .args(["-p", "search", "--allowedTools", "WebSearch"])
        .assert()
        .success();
    assert_vertex_or_bedrock(&server);

    let server = serve(Scenario::new([search_call(), search_answer(), reply([text("done")])]));
    env.rein()
        .env("CLAUDE_CODE_USE_BEDROCK", "1")
        .env("AWS_REGION", "us-east-1")
        .env("ANTHROPIC_BEDROCK_BASE_URL", server.url())
        .env("AWS_BEARER_TOKEN_BEDROCK", "bedrock-key")
        .env("ANTHROPIC_MODEL", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
        .args(["-p", "search", "--allowedTools", "WebSearch"])
        .assert()
        .success();
    assert_vertex_or_bedrock(&server);
}

fn assert_vertex_or_bedrock(server: &FakeServer) {
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(tool_names(&reqs[0].body).contains(&"WebSearch".to_string()));
    assert_messages_search_request(&reqs[1].body);
    let (result, is_error) = tool_result(reqs[2].body["messages"].as_array().unwrap(), "s");
    assert!(!is_error && result.contains("https://blog.rust-lang.org/2026/edition"), "{result}");
}

fn openai(env: &Env, server: &FakeServer, wire: &str) -> assert_cmd::Command {
    let mut c = env.rein();
    c.env("OPENAI_BASE_URL", format!("{}/v1", server.url())).env("OPENAI_API_KEY", "sk-test").args([
        "--provider",
        wire,
        "--model",
        "gpt-5",
    ]);
    c
}

#[test]
fn the_responses_api_searches_with_its_own_tool_and_chat_completions_does_not_offer_it() {
    let env = Env::new();
    let searched = reply([
        ContentBlock::Other(json!({"type": "web_search_call", "id": "ws_1", "status": "completed",
            "action": {"type": "search", "query": "rust 2026 edition",
                "sources": [{"type": "url", "url": "https://blog.rust-lang.org/2026/edition"}]}})),
        text("The 2026 edition ships in the autumn."),
    ]);
    let server = serve(Scenario::new([search_call(), searched, reply([text("done")])]));
    openai(&env, &server, "openai-responses")
        .args(["-p", "search", "--allowedTools", "WebSearch"])
        .assert()
        .success()
        .stdout("done\n");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 3);
    assert!(tool_names(&reqs[0].body).contains(&"WebSearch".to_string()));
    assert_eq!(
        reqs[1].body["tools"],
        json!([{"type": "web_search", "filters": {"allowed_domains": ["rust-lang.org"]}}]),
        "{}",
        reqs[1].body
    );
    let input = reqs[2].body["input"].as_array().unwrap();
    let output = input.iter().find(|i| i["type"] == "function_call_output").unwrap()["output"].as_str().unwrap();
    assert!(output.contains("https://blog.rust-lang.org/2026/edition") && output.contains("ships in the autumn"));

    let server = serve(Scenario::new([reply([text("fine")])]));
    openai(&env, &server, "openai-chat").args(["-p", "hi"]).assert().success();
    let names: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
        .collect();
    assert!(names.contains(&"Read".to_string()) && !names.contains(&"WebSearch".to_string()), "{names:?}");
}
