//! One door for what rein itself prints to the person (as ripgrep's `messages.rs`):
//! errors, warnings, notes and plain status lines, each on stderr with the `rein:`
//! prefix. While the interactive UI owns the terminal a line printed there would tear
//! its screen, so the messages wait and are printed when it gives the terminal back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

static TERMINAL_OWNED: AtomicBool = AtomicBool::new(false);
static WAITING: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The interactive UI takes (or gives back) the terminal; given back, the messages that
/// waited are printed.
#[allow(clippy::print_stderr)] // the one door
pub fn terminal_owned(owned: bool) {
    TERMINAL_OWNED.store(owned, Ordering::Relaxed);
    if !owned {
        for line in std::mem::take(&mut *WAITING.lock().unwrap_or_else(PoisonError::into_inner)) {
            eprintln!("{line}");
        }
    }
}

/// Print one message: `kind` is `error`, `note` or empty (a status line; the session's
/// notices carry their own `warning:`).
#[allow(clippy::print_stderr)] // the one door
pub fn emit(kind: &str, text: std::fmt::Arguments<'_>) {
    let line = if kind.is_empty() { format!("rein: {text}") } else { format!("rein: {kind}: {text}") };
    if TERMINAL_OWNED.load(Ordering::Relaxed) {
        WAITING.lock().unwrap_or_else(PoisonError::into_inner).push(line);
    } else {
        eprintln!("{line}");
    }
}

/// `rein: error: …`
#[macro_export]
macro_rules! err_message {
    ($($arg:tt)*) => { $crate::messages::emit("error", format_args!($($arg)*)) };
}

/// `rein: note: …`
#[macro_export]
macro_rules! note_message {
    ($($arg:tt)*) => { $crate::messages::emit("note", format_args!($($arg)*)) };
}

/// `rein: …` (a status line).
#[macro_export]
macro_rules! message {
    ($($arg:tt)*) => { $crate::messages::emit("", format_args!($($arg)*)) };
}

/// How a turn ended, told to the person when it was not a plain completion (print mode
/// and the Agent SDK alike; the result line or text carries the rest).
pub fn report_end(outcome: &rein_engine::Outcome, session_id: &str) {
    use rein_engine::End;
    match &outcome.end {
        End::Completed => {}
        End::Stopped(reason) => message!("stopped by a hook: {reason}"),
        End::Interrupted => message!("interrupted"),
        End::Deferred(call) => message!(
            "a hook deferred the {} call {}; run `rein -p … --resume {session_id}` to carry on",
            call.name,
            call.id,
        ),
        End::MaxBudget => err_message!("reached the budget of ${:.4}", outcome.cost_usd),
        End::MaxTurns => err_message!("reached the maximum number of turns ({})", outcome.num_turns),
        End::Failed(msg) => err_message!("{msg}"),
    }
}
