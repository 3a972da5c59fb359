//! Headless frontends: `text` output, the `json` and `stream-json` lines (rein-sdk's
//! [`Lines`], shared with the Agent SDK loop), and the human-readable transcript used by
//! `rein demo` and `-p --verbose`.

use std::io::IsTerminal;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use rein_sdk::{Lines, Peer};
use rein_session::events::{EngineEvent, Outcome};

use crate::args::OutputFormat;
use crate::human::Human;
use rein_session::Setup;

enum Mode {
    Text,
    Lines(Lines),
    Human(Human),
}

pub(crate) struct Frontend {
    mode: Mode,
    session_id: String,
    /// The human transcript goes to stderr when stdout carries the result.
    result_on_stdout: bool,
}

impl Frontend {
    pub(crate) fn new(format: OutputFormat, verbose: bool) -> Self {
        let stdout = || Arc::new(Peer::new(Box::new(std::io::stdout())));
        let mode = match format {
            OutputFormat::Text if verbose => {
                Mode::Human(Human::new(Box::new(std::io::stderr()), std::io::stderr().is_terminal()))
            }
            OutputFormat::Text => Mode::Text,
            OutputFormat::Json => Mode::Lines(Lines::json(stdout())),
            OutputFormat::StreamJson => Mode::Lines(Lines::stream_json(stdout(), false)),
        };
        Frontend { mode, session_id: String::new(), result_on_stdout: true }
    }

    /// The readable transcript on stdout, for the demo.
    pub(crate) fn human() -> Self {
        Frontend {
            mode: Mode::Human(Human::new(Box::new(std::io::stdout()), std::io::stdout().is_terminal())),
            session_id: String::new(),
            result_on_stdout: false,
        }
    }

    pub(crate) fn set_tools(&mut self, tools: Vec<String>) {
        if let Mode::Lines(lines) = &mut self.mode {
            lines.set_tools(tools);
        }
    }

    pub(crate) fn start(&mut self, setup: &Setup, session: &rein_session::Session) {
        self.session_id = session.session_id();
        if let Mode::Lines(lines) = &mut self.mode {
            lines.start(setup, session);
        }
    }

    pub(crate) fn event(&mut self, event: EngineEvent) {
        match (&mut self.mode, &event) {
            (Mode::Lines(lines), _) => lines.event(&event),
            (_, EngineEvent::Notice(n)) => crate::messages::message!("{n}"),
            (_, EngineEvent::ApiRetry { attempt, max_retries, delay, error, .. }) => {
                crate::messages::message!(
                    "{error}; retrying in {:.1} s ({attempt}/{max_retries})",
                    delay.as_secs_f64()
                );
            }
            (Mode::Human(_), EngineEvent::Compacted { pre_tokens, post_tokens, .. }) => {
                crate::messages::message!("compacted the conversation ({pre_tokens} → {post_tokens} tokens)");
            }
            (Mode::Human(h), _) => h.event(&event),
            (Mode::Text, _) => {}
        }
    }

    pub(crate) fn finish(&mut self, setup: &Setup, outcome: &Outcome, elapsed: Duration) {
        match &mut self.mode {
            Mode::Lines(lines) => return lines.finish(setup, outcome, elapsed),
            Mode::Text => {
                if !outcome.result_text.is_empty() {
                    let _ = writeln!(std::io::stdout().lock(), "{}", outcome.result_text);
                }
            }
            Mode::Human(h) => {
                h.finish(outcome, elapsed);
                if self.result_on_stdout && !outcome.result_text.is_empty() {
                    let _ = writeln!(std::io::stdout().lock(), "{}", outcome.result_text);
                }
            }
        }
        rein_session::messages::report_end(outcome, &self.session_id);
    }
}
