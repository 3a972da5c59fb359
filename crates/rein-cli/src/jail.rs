//! `rein-jail`: the sandbox's own stages in a binary of their own — the helper that
//! confines a command inside bubblewrap (`__sandbox-exec`) and the trial's mount stage
//! (`__sandbox-overlay`). rein runs it instead of re-executing itself when it lies beside
//! the rein binary: it links the sandbox crate only, so every confined command starts
//! faster (rein's own binary costs milliseconds to load).

// A binary: what it prints is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let err = match argv.get(1).and_then(|a| a.to_str()) {
        Some(rein_sandbox::trial::STAGE_ARG) => rein_sandbox::trial::stage(&argv[2..]),
        Some(rein_sandbox::HELPER_ARG) => rein_sandbox::helper::run(&argv[2..]),
        _ => {
            eprintln!(
                "rein-jail: run by rein only ({} or {})",
                rein_sandbox::HELPER_ARG,
                rein_sandbox::trial::STAGE_ARG
            );
            return ExitCode::from(2);
        }
    };
    eprintln!("rein: {err}");
    ExitCode::from(126)
}
