//! Sessions: appending to a transcript, loading a 100 MB one, and a 2000-turn session
//! in a 20 000-token window.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::bail;
use rein_protocol::{AssistantMessage, ContentBlock, Message, ToolUse};
use rein_testkit::{FakeServer, Scenario, Step, reply, text, tool_use};
use rein_transcript::Transcript;
use serde_json::json;

use crate::Row;

fn mb(kb: i64) -> String {
    format!("{:.1} MB", kb as f64 / 1024.0)
}

pub(crate) fn rows(bin: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    let mut rows = Vec::new();
    let dir = tempfile::tempdir()?;
    let cwd = std::fs::canonicalize(dir.path())?;
    // Append cost.
    let path = cwd.join("append.jsonl");
    let mut t = Transcript::open(&path, "bench", &cwd, None)?;
    let msg = Message::user(vec![ContentBlock::tool_result("toolu_1", "x".repeat(200), false)]);
    let n = 20_000;
    let start = Instant::now();
    for _ in 0..n {
        t.user(&msg, false)?;
    }
    let per = start.elapsed() / n;
    rows.push((
        "transcript append, per line (average of 20 000)".into(),
        format!("{:.1} µs", per.as_secs_f64() * 1e6),
        "< 50 µs".into(),
    ));

    // A 100 MB transcript in this directory's project folder, loaded by `rein sessions`.
    let rein_home = home.join(".rein");
    let big = rein_transcript::transcript_path(&rein_home, &cwd, "00000000-0000-4000-8000-000000000100");
    let mut t = Transcript::open(&big, "00000000-0000-4000-8000-000000000100", &cwd, None)?;
    let filler = "lorem ipsum dolor sit amet ".repeat(70);
    let mut turn = 0;
    while std::fs::metadata(&big).map(|m| m.len()).unwrap_or(0) < 100 * 1024 * 1024 {
        for _ in 0..200 {
            let id = format!("toolu_{turn:08}");
            let mut a = AssistantMessage::new(format!("msg_{turn}"), "m");
            a.content = vec![
                ContentBlock::text(&filler[..400]),
                ContentBlock::ToolUse(ToolUse {
                    id: id.clone(),
                    name: "Read".into(),
                    input: json!({"file_path": "/x"}),
                }),
            ];
            t.assistant(&a)?;
            t.user(&Message::user(vec![ContentBlock::tool_result(&id, filler.clone(), false)]), false)?;
            turn += 1;
        }
    }
    let size = std::fs::metadata(&big)?.len();
    let out = Command::new(std::env::current_exe()?)
        .arg("--measure")
        .arg(bin)
        .arg("sessions")
        .current_dir(&cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .output()?;
    let printed = String::from_utf8_lossy(&out.stdout);
    let parts: Vec<&str> = printed.split_whitespace().collect();
    if parts.len() < 3 || parts[2] != "true" {
        bail!("rein sessions failed on the big transcript: {printed}");
    }
    let wall_ns: u128 = parts[0].parse()?;
    let rss: i64 = parts[1].parse()?;
    rows.push((
        format!("load a {} MB transcript (`rein sessions`): wall / peak RSS", size / 1024 / 1024),
        format!("{:.0} ms / {}", wall_ns as f64 / 1e6, mb(rss)),
        "< 1 s / < 2× size".into(),
    ));
    std::fs::remove_file(&big)?;

    // 2000 turns in a 20 000-token window.
    let mut steps: Vec<Step> =
        (0..2000).map(|_| reply([tool_use("Glob", json!({"pattern": "*.txt"}))]).into()).collect();
    steps.push(reply([text("done")]).into());
    let server = FakeServer::start(Scenario::new(steps).with_summary("SUMMARY: listing files, turn after turn."))?;
    let out = Command::new(std::env::current_exe()?)
        .arg("--measure")
        .arg(bin)
        .args(["-p", "go", "--max-turns", "100000"])
        .current_dir(&cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "bench")
        .env("REIN_CONTEXT_WINDOW", "20000")
        .output()?;
    let printed = String::from_utf8_lossy(&out.stdout);
    let parts: Vec<&str> = printed.split_whitespace().collect();
    if parts.len() < 3 || parts[2] != "true" {
        bail!("the 2000-turn session failed: {printed}");
    }
    let reqs = server.requests();
    let with_tools = reqs.iter().filter(|r| r.body["tools"].as_array().is_some_and(|t| !t.is_empty()));
    let largest = with_tools.map(|r| r.body.to_string().len() / 4).max().unwrap_or(0);
    let summaries = reqs.iter().filter(|r| r.body["tools"].as_array().is_none_or(|t| t.is_empty())).count();
    rows.push((
        "2000-turn session, 20 000-token window: wall / peak RSS".into(),
        format!("{:.1} s / {}", parts[0].parse::<f64>()? / 1e9, mb(parts[1].parse()?)),
        "completes / < 60 MB".into(),
    ));
    rows.push((
        "…largest request (≈ tokens) / compactions".into(),
        format!("{largest} / {summaries}"),
        "< 20 000".into(),
    ));
    Ok(rows)
}
