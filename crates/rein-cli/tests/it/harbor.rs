//! rein as a Harbor agent (integrations/harbor, issue 33), with the real Harbor from PyPI
//! in `.ci/harbor-venv` (Python 3.12): the adapter's own tests against a recording
//! environment, and a real rein run — headless, as the adapter starts it in a trial —
//! whose transcript Harbor turns into ATIF, validated by Harbor's model, with its tool
//! calls, the fake model's token counts and rein's refusals.

use std::path::PathBuf;

use crate::common::{Env, serve};
use rein_protocol::Usage;
use rein_testkit::{Scenario, reply, text, tool_use_with_id as call};
use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python of `.ci/harbor-venv`, with Harbor and the adapter installed.
fn harbor_python() -> Option<PathBuf> {
    let python = root().join(".ci/harbor-venv/bin/python");
    let ok = std::process::Command::new(&python)
        .args(["-c", "import harbor, rein_harbor, pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        crate::common::unavailable("Harbor and rein_harbor are not installed in .ci/harbor-venv");
    }
    ok.then_some(python)
}

#[test]
fn the_adapters_own_tests_pass() {
    let Some(python) = harbor_python() else { return };
    let out = std::process::Command::new(python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_agent.py"])
        .current_dir(root().join("integrations/harbor"))
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .output()
        .unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && report.contains("4 passed"), "{report}");
}

#[test]
fn a_rein_transcript_becomes_harbor_atif_with_tool_calls_tokens_and_refusals() {
    let Some(python) = harbor_python() else { return };
    let env = Env::new();
    let logs = tempfile::tempdir().unwrap();
    let usage = |input, output| Usage { input_tokens: input, output_tokens: output, ..Usage::default() };
    let server = serve(Scenario::new([
        reply([
            call("b", "Bash", json!({"command": "echo built > out.txt"})),
            call("r", "Bash", json!({"command": "rm -rf build"})),
        ])
        .usage(usage(1200, 40)),
        reply([text("Built it; removing build was refused.")]).usage(usage(1500, 12)),
    ]));
    // As the adapter runs it in a trial: the instruction on stdin, IS_SANDBOX, bypass,
    // REIN_HOME in the agent's log folder, stream-json kept in rein.txt.
    let out = env
        .rein_at(&server)
        .env("IS_SANDBOX", "1")
        .env("REIN_HOME", logs.path().join("sessions"))
        .args(["--verbose", "--output-format=stream-json", "--permission-mode=bypassPermissions"])
        .args(["--disallowedTools", "Bash(rm:*)", "--print"])
        .write_stdin("Build the project.")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(logs.path().join("rein.txt"), &out.stdout).unwrap();
    assert!(env.cwd().join("out.txt").exists());

    let rein = assert_cmd::cargo::cargo_bin("rein");
    let summary = std::process::Command::new(python)
        .arg(root().join("integrations/harbor/tests/atif_summary.py"))
        .arg(logs.path())
        .arg(&rein)
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .output()
        .unwrap();
    assert!(summary.status.success(), "{}", String::from_utf8_lossy(&summary.stderr));
    let s: Value = serde_json::from_slice(summary.stdout.trim_ascii()).unwrap();
    assert!(s["schema_version"].as_str().unwrap().starts_with("ATIF"), "{s}");
    assert_eq!(s["agent"], "rein");
    assert_eq!(s["tool_calls"], json!(["Bash", "Bash"]), "{s}");
    assert!(s["observations"].as_u64().unwrap() >= 2, "{s}");
    let m = &s["final_metrics"];
    assert_eq!(
        (m["total_prompt_tokens"].as_u64(), m["total_completion_tokens"].as_u64()),
        (Some(2700), Some(52)),
        "{s}"
    );
    let c = &s["context"];
    assert_eq!((c["n_input_tokens"].as_u64(), c["n_output_tokens"].as_u64()), (Some(2700), Some(52)), "{s}");
    let denials = c["metadata"]["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{s}");
    assert_eq!(denials[0]["tool_input"]["command"], "rm -rf build");
    assert!(c["cost_usd"].as_f64().unwrap() > 0.0, "rein's own price: {s}");
}

#[test]
fn run_offline_runs_four_concurrent_trials_through_harbor_each_with_reward_one() {
    let Some(_) = harbor_python() else { return };
    if !crate::common::have_bwrap() {
        return;
    }
    // SAFETY: getuid cannot fail.
    if unsafe { libc::getuid() } != 0 {
        crate::common::unavailable("run_offline.sh enters each trial's network namespace with nsenter, as root");
        return;
    }
    let jobs = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(root().join("integrations/harbor/run_offline.sh"))
        .arg("4")
        .env("REIN_BINARY", assert_cmd::cargo::cargo_bin("rein"))
        .env("REIN_TESTKIT_BIN", assert_cmd::cargo::cargo_bin("rein-testkit"))
        .env("REIN_HARBOR_JOBS_DIR", jobs.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let job = PathBuf::from(stdout.trim().lines().last().unwrap());
    assert!(job.starts_with(jobs.path()), "the job directory is printed last: {stdout}");
    let trials: Vec<Value> = std::fs::read_dir(&job)
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.unwrap().path().join("result.json")).ok())
        .map(|text| serde_json::from_str(&text).unwrap())
        .collect();
    assert_eq!(trials.len(), 4, "{stderr}");
    for t in &trials {
        assert_eq!(t["verifier_result"]["rewards"]["reward"], 1.0, "{t}");
        assert_eq!(t["agent_result"]["n_input_tokens"], 2550, "rein's input tokens: {t}");
        assert_eq!(t["agent_result"]["metadata"]["rein_result"], "success", "{t}");
        assert!(t["exception_info"].is_null(), "{t}");
    }
}
