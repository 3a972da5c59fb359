//! `rein-testkit serve SCENARIO.json [--port N] [--record FILE]`: run the fake Anthropic
//! server from the command line so anyone can drive rein offline
//! (`ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=x rein -p …`).

// A binary: what it prints is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

use rein_testkit::{FakeServer, Scenario};

const USAGE: &str = "usage: rein-testkit serve SCENARIO.json [--port N] [--record FILE]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rein-testkit: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let mut it = args.into_iter();
    if it.next().as_deref() != Some("serve") {
        return Err(USAGE.into());
    }
    let path = it.next().ok_or(USAGE)?;
    let (mut port, mut record) = (0u16, None);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?;
        match flag.as_str() {
            "--port" => port = value.parse().map_err(|e| format!("bad --port {value:?}: {e}"))?,
            "--record" => record = Some(value.into()),
            _ => return Err(format!("unknown flag {flag}\n{USAGE}")),
        }
    }
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let scenario = Scenario::from_json(&text).map_err(|e| format!("{path}: {e}"))?;
    let steps = scenario.steps.len();
    let server = FakeServer::start_on(scenario, port, record).map_err(|e| format!("cannot listen: {e}"))?;
    println!("listening on {} ({steps} scripted responses)", server.url());
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}
