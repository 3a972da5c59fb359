//! A prompt too long for the context window is compacted once and asked again on every
//! provider, whichever words it uses: Chat Completions servers ("maximum context length",
//! `context_length_exceeded`), the Responses API (a `response.failed` event), Bedrock
//! ("Input is too long") and Vertex AI (the Messages API's "prompt is too long").
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve};
use rein_testkit::{FakeServer, Scenario, Step, reply, text, tool_use_with_id as call};
use serde_json::json;

/// A provider: its name, its variables and flags, and what it answers when the prompt
/// does not fit.
struct Provider {
    name: &'static str,
    vars: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
    overflow: fn() -> Step,
}

fn base_vars(p: &Provider, server: &FakeServer) -> Vec<(&'static str, String)> {
    match p.name {
        "vertex" => vec![("ANTHROPIC_VERTEX_BASE_URL", format!("{}/v1", server.url()))],
        "bedrock" => vec![("ANTHROPIC_BEDROCK_BASE_URL", server.url())],
        _ => vec![("OPENAI_BASE_URL", format!("{}/v1", server.url()))],
    }
}

#[test]
fn an_overflow_in_each_provider_s_words_compacts_and_asks_again() {
    let providers = [
        Provider {
            name: "openai-chat",
            vars: &[],
            args: &["--provider", "openai-chat", "--model", "llama3.1"],
            overflow: || Step::HttpError {
                status: 400,
                body: json!({"error": {"message": "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens. Please reduce the length of the messages.",
                    "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
                retry_after: None,
            },
        },
        Provider {
            name: "openai-responses",
            vars: &[],
            args: &["--provider", "openai-responses", "--model", "gpt-5"],
            overflow: || {
                let failed = json!({"type": "response.failed", "response": {"status": "failed", "error":
                    {"code": "context_length_exceeded", "message": "Your input exceeds the context window of this model."}}});
                Step::RawSse(format!("event: response.failed\ndata: {failed}\n\n"))
            },
        },
        Provider {
            name: "bedrock",
            vars: &[
                ("CLAUDE_CODE_USE_BEDROCK", "1"),
                ("AWS_BEARER_TOKEN_BEDROCK", "k"),
                ("ANTHROPIC_MODEL", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            ],
            args: &[],
            overflow: || Step::HttpError {
                status: 400,
                body: json!({"message": "Input is too long for requested model."}),
                retry_after: None,
            },
        },
        Provider {
            name: "vertex",
            vars: &[
                ("CLAUDE_CODE_USE_VERTEX", "1"),
                ("ANTHROPIC_VERTEX_PROJECT_ID", "p"),
                ("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1"),
                ("ANTHROPIC_MODEL", "claude-sonnet-4-5@20250929"),
            ],
            args: &[],
            overflow: || {
                Step::api_error(400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum")
            },
        },
    ];
    for p in &providers {
        let env = Env::new();
        env.write("a.txt", "x\n");
        let server = serve(
            Scenario::new([
                reply([call("g", "Glob", json!({"pattern": "*.txt"}))]).into(),
                (p.overflow)(),
                reply([text("after compaction")]).into(),
            ])
            .with_summary("SUMMARY of the earlier work"),
        );
        let mut cmd = env.rein();
        cmd.env("REIN_RETRY_BASE_MS", "1")
            .envs(p.vars.iter().copied())
            .envs(base_vars(p, &server))
            .args(p.args)
            .args(["-p", "go", "--allowedTools", "Glob"]);
        let out = cmd.output().unwrap();
        let name = p.name;
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout), "after compaction\n", "{name}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 4, "{name}: the call, the refused request, the summary, the request again");
        let again = reqs[3].body.to_string();
        assert!(again.contains("SUMMARY of the earlier work"), "{name}: {again}");
    }
}
