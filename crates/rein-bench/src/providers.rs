//! Each provider's 50-turn Glob session against its fake wire format: harness time per
//! turn and the bytes sent; and the Messages fake writing its chunked terminator 40 ms
//! after `message_stop` (as a server without `TCP_NODELAY` does), which must add nothing.
//! Every call of the session is the same, so from the second on each result repeats the
//! first and is sent as a pointer to it; the same session with a different pattern each
//! turn (the same files found, nothing repeated) shows the size without that.

use std::path::Path;
use std::time::Duration;

use anyhow::bail;
use rein_testkit::{FakeServer, Scenario, Step, reply, text, tool_use};
use serde_json::json;

use crate::{Row, ms, percentile, rein, run};

const TURNS: usize = 50;

fn session(late_end_ms: u64, distinct: bool) -> Scenario {
    let pattern = |i: usize| if distinct { format!("{{*.txt,none{i}}}") } else { "*.txt".to_string() };
    let mut steps: Vec<Step> = (0..TURNS)
        .map(|i| reply([tool_use("Glob", json!({"pattern": pattern(i)}))]).end_body_after_ms(late_end_ms).into())
        .collect();
    steps.push(reply([text("done")]).into());
    Scenario::new(steps)
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    let cases: [(&str, &[&str], u64, bool); 7] = [
        ("anthropic", &[], 0, false),
        ("anthropic, terminator 40 ms late", &[], 40, false),
        ("openai-chat", &["--provider", "openai-chat"], 0, false),
        ("openai-responses", &["--provider", "openai-responses"], 0, false),
        ("bedrock", &["--provider", "bedrock"], 0, false),
        ("vertex", &["--provider", "vertex"], 0, false),
        ("anthropic, a different pattern each turn", &[], 0, true),
    ];
    for (name, args, late, distinct) in cases {
        let server = FakeServer::start(session(late, distinct))?;
        let mut cmd = rein(bin, cwd, home, Some(&server))?;
        // Every provider's endpoint is the fake; `--provider` picks one (the clouds' through
        // a gateway that authenticates itself, as the tests do).
        cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
            .env("ANTHROPIC_BEDROCK_BASE_URL", server.url())
            .env("CLAUDE_CODE_SKIP_BEDROCK_AUTH", "1")
            .env("AWS_REGION", "us-east-1")
            .env("ANTHROPIC_VERTEX_BASE_URL", format!("{}/v1", server.url()))
            .env("ANTHROPIC_VERTEX_PROJECT_ID", "bench")
            .env("CLAUDE_CODE_SKIP_VERTEX_AUTH", "1")
            .args(args)
            .args(["-p", "go", "--max-turns", "1000"]);
        let r = run(&mut cmd)?;
        let reqs = server.requests();
        if !r.ok || reqs.len() != TURNS + 1 {
            bail!("{name}: the {TURNS}-turn session failed ({} requests)", reqs.len());
        }
        let mut gaps: Vec<Duration> =
            reqs.windows(2).filter_map(|w| Some(w[1].received_at.duration_since(w[0].response_done_at?))).collect();
        gaps.sort();
        rows.push((
            format!("{TURNS}-turn Glob session, {name}: per turn (median / p95)"),
            format!("{} / {}", ms(percentile(&gaps, 0.5)), ms(percentile(&gaps, 0.95))),
            "< 1 ms".into(),
        ));
        if late == 0 {
            let bytes: usize = reqs.iter().map(|r| r.body_len).sum();
            rows.push((
                format!("{TURNS}-turn Glob session, {name}: bytes sent"),
                format!("{:.2} MB", bytes as f64 / 1e6),
                if distinct { "(nothing repeated)" } else { "≤ 1 MB" }.into(),
            ));
        }
    }
    Ok(rows)
}
