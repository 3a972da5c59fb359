//! Print mode's one prompt, on the session the owner builds (`rein_session`).

use std::time::Instant;

use rein_session::Builder;
use rein_session::events::End;

use crate::print::Frontend;

pub(crate) use rein_session::{Setup, builtin_kinds, builtin_tools, resolve_model};

/// Run one prompt to its end.
pub(crate) async fn run(builder: Builder<'_>, prompt: &str, frontend: &mut Frontend) -> RunEnd {
    let started = Instant::now();
    let setup = builder.setup();
    let mut session = match crate::engine::build(builder) {
        Ok(s) => s,
        Err(e) => {
            crate::messages::err_message!("{e}");
            return RunEnd::Failed;
        }
    };
    // Headless waits for the configured MCP servers (their tools are in the first
    // request and in the init line); the session is built while they start.
    if let Some(wait) = rein_session::mcp::ready_wait(setup, &session) {
        let _ = tokio::time::timeout(wait, session.settle_tools()).await;
    }
    let abort = session.turn_token();
    let interrupts = crate::interrupt::watch(abort.clone());
    frontend.set_tools(session.tool_names());
    frontend.start(setup, &session);
    // A built-in command the owner answers (`rein -p /context`): its reply is the result.
    if let Some(outcome) = session.answer_command(prompt, &mut |e| frontend.event(e)).await {
        session.end("other", &mut |event| frontend.event(event)).await;
        frontend.finish(setup, &outcome, started.elapsed());
        interrupts.abort();
        return if outcome.is_error() { RunEnd::Failed } else { RunEnd::Ok };
    }
    let mut input = rein_session::Input::Text(prompt.to_string());
    // One deadline for the whole run, and the run's turn and budget limits across its
    // follow-up turns: background agents cannot keep a headless run going.
    let until = Instant::now() + std::time::Duration::from_millis(setup.env.background_wait_ms.unwrap_or(600_000));
    let (mut turns, mut cost) = (0u32, 0.0f64);
    let (mut usage, mut api) = (rein_protocol::Usage::default(), std::time::Duration::ZERO);
    let mut outcome = loop {
        let outcome = match session.prompt(input, &mut |e| frontend.event(e)).await {
            Ok(outcome) => outcome,
            Err(e) => {
                crate::messages::err_message!("{e}");
                return RunEnd::Failed;
            }
        };
        // Background agents the turn started report when they end, as another turn
        // (headless has no person to wait with), up to the ceiling.
        (turns, cost) = (turns + outcome.num_turns, cost + outcome.cost_usd);
        usage.add(&outcome.usage);
        api += outcome.api_duration;
        let spent = setup.max_turns.is_some_and(|m| turns >= m) || setup.max_budget_usd.is_some_and(|b| cost >= b);
        if outcome.is_error() || outcome.end == End::Interrupted || spent {
            session.stop_background();
            break outcome;
        }
        match session.background_news(until, &abort).await {
            Some(news) if !abort.is_cancelled() => input = rein_session::Input::Text(news),
            _ => break outcome,
        }
    };
    // The result is the whole run's: its follow-up turns' requests and cost too.
    (outcome.num_turns, outcome.cost_usd, outcome.usage, outcome.api_duration) = (turns, cost, usage, api);
    session.end("other", &mut |event| frontend.event(event)).await;
    frontend.finish(setup, &outcome, started.elapsed());
    interrupts.abort();
    if outcome.end == End::Interrupted {
        return RunEnd::Interrupted;
    }
    if outcome.is_error() { RunEnd::Failed } else { RunEnd::Ok }
}

/// How a run ended, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunEnd {
    Ok,
    Failed,
    /// Interrupted by the user (exit code 130, as a shell reports SIGINT).
    Interrupted,
}

impl RunEnd {
    pub(crate) fn exit_code(self) -> std::process::ExitCode {
        match self {
            RunEnd::Ok => std::process::ExitCode::SUCCESS,
            RunEnd::Failed => std::process::ExitCode::FAILURE,
            RunEnd::Interrupted => std::process::ExitCode::from(130),
        }
    }
}

/// `--init-only`: the Setup hooks (trigger `init`), then exit; what they say goes to
/// stderr. Exit 1 when the session could not be put together.
pub(crate) async fn init_only(setup: &Setup) -> RunEnd {
    let mut session = match crate::engine::build(Builder::new(setup)) {
        Ok(s) => s,
        Err(e) => {
            crate::messages::err_message!("{e}");
            return RunEnd::Failed;
        }
    };
    session
        .run_setup(&mut |e| {
            if let rein_session::events::EngineEvent::Notice(n) = e {
                crate::messages::note_message!("{n}");
            }
        })
        .await;
    RunEnd::Ok
}
