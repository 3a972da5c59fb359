//! Auto mode's cost: a session of 30 Write calls the rules would ask about, judged
//! (allow) by the fake server's judge script, against the same calls allowed by a rule.
//! The harness time between a response and the next request, less the judge's own
//! latency at the server, over the rule-allowed run's, is the judge's overhead per call;
//! the same session in auto mode with the rule shows what calls the rules decide cost.

use std::path::Path;
use std::time::Duration;

use anyhow::bail;
use rein_testkit::{FakeServer, RecordedRequest, Scenario, Step, reply, text, tool_use};
use serde_json::json;

use crate::{Row, ms, percentile, rein_direct};

const CALLS: usize = 30;

fn scenario(dir: &Path, judged: bool) -> Scenario {
    let mut steps: Vec<Step> = (0..CALLS)
        .map(|i| {
            let input = json!({"file_path": dir.join(format!("judged{i}.txt")), "content": "x\n"});
            reply([tool_use("Write", input)]).into()
        })
        .collect();
    steps.push(reply([text("done")]).into());
    let verdict = text(&json!({"decision": "allow", "reason": "the user asked for these files"}).to_string());
    let judge: Vec<Step> =
        if judged { (0..CALLS).map(|_| reply([verdict.clone()]).into()).collect() } else { Vec::new() };
    Scenario::new(steps).with_judge(judge)
}

/// Per call: the harness gap after each response, less the judge's latency when judged.
fn gaps(requests: &[RecordedRequest]) -> Vec<Duration> {
    let main: Vec<&RecordedRequest> = requests.iter().filter(|r| !r.is_judge()).collect();
    let judge: Vec<&RecordedRequest> = requests.iter().filter(|r| r.is_judge()).collect();
    main.windows(2)
        .filter_map(|w| {
            let gap = w[1].received_at.checked_duration_since(w[0].response_done_at?)?;
            // The judge request made between these two main requests, if any.
            let judged: Duration = judge
                .iter()
                .filter(|j| j.received_at > w[0].received_at && j.received_at < w[1].received_at)
                .filter_map(|j| j.response_done_at?.checked_duration_since(j.received_at))
                .sum();
            gap.checked_sub(judged)
        })
        .collect()
}

fn session(bin: &Path, cwd: &Path, home: &Path, mode: &str, rule: bool) -> anyhow::Result<Vec<Duration>> {
    let dir = tempfile::tempdir_in(cwd)?;
    let judged = mode == "auto" && !rule;
    let server = FakeServer::start(scenario(dir.path(), judged))?;
    let mut cmd = rein_direct(bin, cwd, home, &server);
    cmd.args(["-p", "write the files", "--permission-mode", mode, "--max-turns", "1000"]);
    if rule {
        cmd.args(["--allowedTools", "Write"]);
    }
    let out = cmd.output()?;
    let written = (0..CALLS).filter(|i| dir.path().join(format!("judged{i}.txt")).exists()).count();
    if !out.status.success() || written != CALLS {
        bail!("the {mode} session failed ({written}/{CALLS} files): {}", String::from_utf8_lossy(&out.stderr));
    }
    let mut g = gaps(&server.requests());
    g.sort();
    Ok(g)
}

pub(crate) fn rows(bin: &Path, cwd: &Path, home: &Path) -> anyhow::Result<Vec<Row>> {
    let by_rule = session(bin, cwd, home, "default", true)?;
    let judged = session(bin, cwd, home, "auto", false)?;
    let auto_rule = session(bin, cwd, home, "auto", true)?;
    let base = percentile(&by_rule, 0.5);
    let over = percentile(&judged, 0.5).saturating_sub(base);
    Ok(vec![
        (
            "auto mode: judge overhead per judged call, beyond the judge's own latency (median)".into(),
            ms(over),
            "≤ 2 ms".into(),
        ),
        (
            "auto mode: per call the rules decide, auto vs default (median)".into(),
            format!("{} vs {}", ms(percentile(&auto_rule, 0.5)), ms(base)),
            "no difference".into(),
        ),
    ])
}
