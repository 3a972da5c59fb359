//! A command's output on its way to the model: read from the pipe as it comes, decoded
//! across reads, into memory (spilled to a file past its limit) or a job's log.

use std::io::Read as _;
use std::sync::Mutex;

use super::shell::{Sink, lock};
use crate::spilling::Collected;

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
