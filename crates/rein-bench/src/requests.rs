//! What rein sends: the first request with the default tools, and its guidance (system
//! prompt and every tool description) against Claude Code's for the same tools, as
//! crates/rein-prompt/claude_code_sizes.json records them; and a 50-turn session whose
//! command outputs include ten of 1 MB, measured in request bytes, and what each of
//! those outputs costs in every later request — against Claude Code's measured preview
//! of 2 239 characters.

use std::path::Path;

use anyhow::bail;
use rein_testkit::{FakeServer, Scenario, Step, reply, text, tool_use};
use serde_json::{Value, json};

use crate::rein;

/// Claude Code 2.1.332's preview of a spilled output (measured with `seq 1 200000`).
const CLAUDE_CODE_PREVIEW: usize = 2_239;

/// Claude Code's measured sizes (scripts/measure-claude-code-prompt).
const CLAUDE_CODE_SIZES: &str = include_str!("../../rein-prompt/claude_code_sizes.json");

fn first_request(bin: &Path, work: &Path, home: &Path, tool_search: &str) -> anyhow::Result<Value> {
    let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
    let r =
        crate::run(rein(bin, work, home, Some(&server))?.env("ENABLE_TOOL_SEARCH", tool_search).args(["-p", "hi"]))?;
    let Some(req) = server.requests().into_iter().next().filter(|_| r.ok) else { bail!("rein -p hi failed") };
    Ok(json!({"bytes": req.body_len, "system": req.system_text().len(), "tools": req.body["tools"]}))
}

fn first_request_rows(bin: &Path, work: &Path, home: &Path) -> anyhow::Result<Vec<(String, String, String)>> {
    let first = first_request(bin, work, home, "auto")?;
    let every = first_request(bin, work, home, "false")?;
    let tools = every["tools"].as_array().cloned().unwrap_or_default();
    let description = |t: &Value| t["description"].as_str().map_or(0, str::len);
    let ours = every["system"].as_u64().unwrap_or(0) as usize + tools.iter().map(description).sum::<usize>();
    let recorded: Value = serde_json::from_str(CLAUDE_CODE_SIZES)?;
    let theirs = |mode: &str| {
        let cc = &recorded[mode];
        let same = tools.iter().filter_map(|t| cc["tools"][t["name"].as_str()?].as_u64()).sum::<u64>();
        cc["system"].as_u64().unwrap_or(0) + same
    };
    let version = recorded["claude_code"].as_str().unwrap_or("?");
    Ok(vec![
        (
            "first request, default tools: bytes".into(),
            format!("{:.1} KB", first["bytes"].as_u64().unwrap_or(0) as f64 / 1024.0),
            "≤ 14 KB".into(),
        ),
        (
            "guidance (system prompt + every tool description): bytes".into(),
            format!("{:.1} KB", ours as f64 / 1024.0),
            format!(
                "≤ {:.1} KB (half of Claude Code {version}'s for the same tools, -p; interactive {:.1} KB)",
                theirs("print") as f64 / 2048.0,
                theirs("interactive") as f64 / 2048.0
            ),
        ),
    ])
}

pub(crate) fn rows(bin: &Path, work: &Path, home: &Path) -> anyhow::Result<Vec<(String, String, String)>> {
    let mut rows = first_request_rows(bin, work, home)?;
    // 100 000 lines of 10 characters: 1 MB, five times what `seq 1 200000` prints.
    let big = session(bin, work, home, "yes 123456789 | head -n 100000")?;
    let small = session(bin, work, home, "echo small")?;
    let total: usize = big.iter().map(|q| q.body_len).sum();
    let added = total.saturating_sub(small.iter().map(|q| q.body_len).sum());
    // Claude Code sends each output's preview in every request after the one it came in.
    let later_requests: usize = (1..=10).map(|j| 51 - 5 * j).sum();
    // The largest result of a 1 MB output as the model got it, in the last request.
    let largest = big
        .last()
        .and_then(|q| q.body["messages"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| result_chars(&b["content"]))
        .max()
        .unwrap_or(0);
    rows.extend([
        (
            "50 turns, ten 1 MB outputs: request bytes (all 51)".into(),
            format!("{:.2} MB", total as f64 / 1e6),
            String::new(),
        ),
        (
            "50 turns, ten 1 MB outputs: bytes the outputs add".into(),
            format!("{:.0} KB", added as f64 / 1e3),
            format!("≤ {:.0} KB (Claude Code)", (CLAUDE_CODE_PREVIEW * later_requests) as f64 / 1e3),
        ),
        (
            "50 turns, ten 1 MB outputs: one output as sent".into(),
            format!("{largest} chars"),
            format!("≤ {CLAUDE_CODE_PREVIEW} (Claude Code)"),
        ),
    ]);
    Ok(rows)
}

/// A 50-turn session where every fifth command is `every_fifth`; the requests it sent.
fn session(
    bin: &Path,
    work: &Path,
    home: &Path,
    every_fifth: &str,
) -> anyhow::Result<Vec<rein_testkit::RecordedRequest>> {
    let steps: Vec<Step> = (1..=50)
        .map(|turn| {
            let command = if turn % 5 == 0 { every_fifth.to_string() } else { format!("echo turn {turn}") };
            reply([tool_use("Bash", json!({"command": command}))]).into()
        })
        .chain([reply([text("done")]).into()])
        .collect();
    let server = FakeServer::start(Scenario::new(steps))?;
    let r = crate::run(rein(bin, work, home, Some(&server))?.args([
        "-p",
        "go",
        "--max-turns",
        "100",
        "--dangerously-skip-permissions",
    ]))?;
    if !r.ok {
        bail!("the 50-turn session ({every_fifth}) failed");
    }
    let reqs = server.requests();
    if reqs.len() != 51 {
        bail!("expected 51 requests, saw {}", reqs.len());
    }
    Ok(reqs)
}

fn result_chars(content: &Value) -> usize {
    match content {
        Value::String(s) => s.chars().count(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).map(|t| t.chars().count()).sum(),
        _ => 0,
    }
}
