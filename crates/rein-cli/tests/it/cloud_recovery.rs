//! The recovery steps work the same on Bedrock and Vertex AI as on the Messages API: a
//! rate limit with `retry-after` is waited out and retried, and a stream cut in the
//! middle (an event-stream frame or a server-sent event) is asked again, and an answer
//! cut by `max_tokens` is continued.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{Env, serve};
use rein_testkit::{Scenario, Step, reply, text};

/// A provider: its name, its variables, and the variable naming its endpoint.
type Provider = (&'static str, &'static [(&'static str, &'static str)], &'static str);

#[test]
fn rate_limits_and_cut_streams_are_retried_on_bedrock_and_vertex() {
    let providers: [Provider; 2] = [
        (
            "bedrock",
            &[
                ("CLAUDE_CODE_USE_BEDROCK", "1"),
                ("AWS_BEARER_TOKEN_BEDROCK", "k"),
                ("ANTHROPIC_MODEL", "us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            ],
            "ANTHROPIC_BEDROCK_BASE_URL",
        ),
        (
            "vertex",
            &[
                ("CLAUDE_CODE_USE_VERTEX", "1"),
                ("ANTHROPIC_VERTEX_PROJECT_ID", "p"),
                ("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1"),
                ("ANTHROPIC_MODEL", "claude-sonnet-4-5@20250929"),
            ],
            "ANTHROPIC_VERTEX_BASE_URL",
        ),
    ];
    for (name, vars, base_var) in providers {
        let env = Env::new();
        let server = serve(Scenario::new([
            Step::api_error(429, "rate_limit_error", "slow down").with_retry_after(0),
            reply([text("a partial answer that is cut")]).drop_after_events(3).into(),
            reply([text("Part one, ")]).stop_reason("max_tokens").into(),
            reply([text("recovered")]).into(),
        ]));
        let base = if name == "vertex" { format!("{}/v1", server.url()) } else { server.url() };
        let mut cmd = env.rein();
        cmd.envs(vars.iter().copied()).env(base_var, base).args(["-p", "go"]);
        let out = cmd.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(stdout, "recovered\n", "{name}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 4, "{name}: rate limit, cut stream, cut by max_tokens, the rest");
        let asked = reqs[3].body["messages"].to_string();
        assert!(asked.contains("Part one, ") && asked.contains("cut off by the output token limit"), "{name}: {asked}");
    }
}
