//! A command's output on its way to the model: read from the pipe as it comes, decoded
//! across reads, into memory (spilled to a file past its limit) or a job's log; and the
//! types a foreground run is described by.

use std::io::Read as _;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::shell_state::Saving;
use crate::spilling::{Collected, Spilling};

/// Read the pipe to its end into `sink`, decoding UTF-8 across reads: the collected
/// result, or nothing when the command went to the background on the way.
pub(super) fn collect(mut reader: std::io::PipeReader, sink: &Mutex<Sink>) -> Collected {
    use std::io::Write as _;
    let mut buf = [0u8; 16384];
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        match &mut *lock(sink) {
            Sink::Memory(capped) => {
                carry.extend_from_slice(&buf[..n]);
                let valid = utf8_prefix(&carry);
                capped.push_str(&String::from_utf8_lossy(&carry[..valid]));
                carry.drain(..valid);
            }
            Sink::Log(log) => {
                let _ = log.write_all(&buf[..n]);
            }
            Sink::Done => break,
        }
    }
    match std::mem::replace(&mut *lock(sink), Sink::Done) {
        Sink::Memory(mut capped) => {
            capped.push_str(&String::from_utf8_lossy(&carry));
            capped.finish()
        }
        _ => Collected::Whole(String::new()),
    }
}

/// How much of `bytes` to decode now: all of it, except a character cut at the end.
pub(super) fn utf8_prefix(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    }
}

/// How a command runs: with a profile's powers (`None`: unconfined), its writes kept
/// for rewind where they can be — a foreground command's (through a layer where one
/// can be made), a background one's (as it makes them); or as a trial.
pub(super) enum How {
    Recorded(Option<rein_sandbox::Profile>),
    Watched(Option<rein_sandbox::Profile>),
    Trial,
}

/// The bounds of one foreground command.
pub(super) struct Limits<'a> {
    pub(super) timeout: Duration,
    pub(super) abort: &'a CancellationToken,
    pub(super) limit: usize,
    pub(super) spill: &'a Path,
}

/// A foreground command that ended (or went to the background).
pub(super) struct Ran {
    pub(super) output: String,
    pub(super) ending: Ending,
    /// The state it saved, to adopt when its result is kept.
    pub(super) saving: Option<Saving>,
    pub(super) after: Option<rein_sandbox::After>,
}

/// How a foreground command ended.
#[derive(Debug, Clone)]
pub enum Ending {
    Exited(Option<i32>),
    TimedOut,
    Cancelled,
    /// The person moved it to the background (Ctrl+B): it runs on as this job.
    Backgrounded(String),
}

/// Where a foreground command's output goes: collected for its result, or — once it
/// was moved to the background — its job's log.
pub(super) enum Sink {
    Memory(Spilling),
    Log(std::fs::File),
    Done,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
