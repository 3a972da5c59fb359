//! `rein-job-host`: a background session's host in a binary of its own (see
//! `rein_jobs::host`). rein starts it instead of itself when it lies beside the rein
//! binary: it links the host only, so each background session's host holds a few
//! megabytes less for as long as the session lives.

// A binary: what it prints is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.get(1).is_none_or(|a| a != rein_jobs::HOST_ARG) {
        eprintln!("rein-job-host: run by rein only ({})", rein_jobs::HOST_ARG);
        return ExitCode::from(2);
    }
    match rein_jobs::host::run(&argv[2..]) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        Err(e) => {
            eprintln!("rein: {e}");
            ExitCode::FAILURE
        }
    }
}
