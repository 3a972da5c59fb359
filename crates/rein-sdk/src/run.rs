//! SDK mode (`--input-format stream-json --output-format stream-json`, with or without
//! `-p`): the Agent SDKs drive rein over stdin/stdout. The first line is `initialize`
//! (answered once the session is built, before any turn) or a user message; user
//! messages then run one turn each, in order (those written while a turn runs wait);
//! control requests are answered at any time, during a turn too. Each turn prints
//! `system/init`, its messages and one `result`. When stdin closes, the pending turns
//! finish and the loop ends (the binary exits 1 right after an error result).

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use rein_protocol::ContentBlock;
use rein_session::events::Approver;
use rein_session::{Builder, Input, Options, Session, Setup};
use serde_json::Value;
use tokio::io::AsyncRead;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::control::{Control, initialize_reply};
use crate::output::Lines;
use crate::requests::ControlRequest;
use crate::{Inbound, Peer, PermissionTargets, SdkApprover, SdkError, SessionState, TurnAbort, UserLine};

/// The SDK mode's own flags.
#[derive(Debug, Clone, Default)]
pub struct SdkFlags {
    /// `--permission-prompt-tool`: `stdio` (questions as `can_use_tool`) or an MCP tool.
    pub permission_prompt_tool: Option<String>,
    pub include_partial_messages: bool,
    pub replay_user_messages: bool,
}

/// How the binary builds the session once `initialize` is in (it says the setup's
/// notices and applies `--rewind-to`).
pub type BuildSession<'a> = Box<dyn FnOnce(Builder<'_>) -> Result<Session, SdkError> + 'a>;

/// How the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SdkEnd {
    /// stdin closed after turns that ended well (or none ran).
    Done,
    /// The last turn's result was an error.
    LastTurnFailed,
    /// `initialize` could not be applied (the SDK got the error).
    InitializeFailed,
}

/// Serve the SDK on `input`/`output` until `input` closes.
pub async fn run(
    options: &Options,
    setup: Setup,
    flags: &SdkFlags,
    input: impl AsyncRead + Unpin + Send + 'static,
    output: Box<dyn Write + Send>,
    build: BuildSession<'_>,
) -> Result<SdkEnd, SdkError> {
    let peer = Arc::new(Peer::new(output));
    let mut inbox = crate::inbound::spawn_reader(input, peer.clone());
    let mut queue: VecDeque<UserLine> = VecDeque::new();
    // The SDKs write `initialize` first; a plain stream of user lines works too.
    let mut init_id = None;
    let mut sdk_servers: Vec<String> = Vec::new();
    // No one is there to approve the project's `.mcp.json` servers: as under Claude
    // Code, an SDK session starts them as a headless one does, subagents' own servers too.
    let mut overrides = rein_session::Overrides { headless_mcp: true, ..Default::default() };
    while init_id.is_none() && queue.is_empty() {
        match inbox.recv().await {
            Some(Inbound::Control { id, request: ControlRequest::Initialize(init) }) => {
                match crate::control::overrides(&init, &peer) {
                    Ok(o) => overrides = o,
                    Err(e) => {
                        peer.respond(&id, Err(e.to_string()));
                        return Ok(SdkEnd::InitializeFailed);
                    }
                }
                sdk_servers = init.sdk_mcp_servers.clone();
                init_id = Some(id);
            }
            Some(Inbound::Control { id, request }) => {
                peer.respond(&id, Err(format!("{} before initialize", request.subtype())));
            }
            Some(Inbound::BadControl { id, why }) => peer.respond(&id, Err(why)),
            Some(Inbound::User(u)) => queue.push_back(u),
            Some(Inbound::Bad(why)) => rein_session::message!("ignoring {why}"),
            Some(_) => {}
            None => return Ok(SdkEnd::Done),
        }
    }
    // What `initialize` registered, applied by the owner.
    let setup = match setup.with_overrides(overrides) {
        Ok(s) => s,
        Err(e) => {
            if let Some(id) = &init_id {
                peer.respond(id, Err(e.to_string()));
            }
            return Ok(SdkEnd::InitializeFailed);
        }
    };
    let tunnel = rein_mcp::TunnelHandle(Arc::new(crate::McpTunnel { peer: peer.clone() }));
    let builder = Builder::new(&setup).mcp_through(options, tunnel, sdk_servers);
    let abort = Arc::new(TurnAbort::default());
    let states = rein_session::env::Env::lookup("CLAUDE_CODE_SDK_READS_SESSION_STATE")
        .is_some_and(|v| v == "1")
        .then(|| Arc::new(SessionState { peer: peer.clone(), session_id: setup.session_id.clone() }));
    let builder = match flags.permission_prompt_tool.as_deref() {
        Some("stdio") => {
            let approver: Arc<dyn Approver> = Arc::new(SdkApprover {
                peer: peer.clone(),
                policy: builder.policy().clone(),
                targets: PermissionTargets {
                    project_root: rein_prompt::find_git_root(&setup.cwd).unwrap_or_else(|| setup.cwd.clone()),
                    user_dir: setup.env.home.as_ref().map(|h| h.join(".claude")),
                },
                abort: abort.clone(),
                states: states.clone(),
            });
            builder.approver(approver)
        }
        Some(other) => builder.prompt_tool(other)?,
        None => builder,
    };
    let mut session = build(builder)?;
    if let Some(id) = init_id {
        peer.respond(&id, initialize_reply(&setup, &session));
    }
    let mut lines = Lines::stream_json(peer.clone(), flags.include_partial_messages);
    let control = Control { handle: session.handle(), abort: abort.clone() };
    let mut open = true;
    let mut last_failed = false;
    // Once stdin closes, background agents still running are waited for (one deadline),
    // and each report is another turn, as a headless run does.
    let mut until: Option<Instant> = None;
    loop {
        let user = match crate::inbound::next_prompt(&mut queue) {
            Some(u) => u,
            None if !open => {
                let ceiling = std::time::Duration::from_millis(setup.env.background_wait_ms.unwrap_or(600_000));
                let until = *until.get_or_insert_with(|| Instant::now() + ceiling);
                let never = tokio_util::sync::CancellationToken::new();
                match session.background_news(until, &never).await {
                    Some(news) => UserLine { content: serde_json::Value::String(news), uuid: None },
                    None => break,
                }
            }
            None => match wait_for_prompt(&mut inbox, &peer, &control, &mut session).await {
                Some(u) => u,
                None => {
                    open = false;
                    continue;
                }
            },
        };
        session.settle_tools().await;
        session.apply_next_model(&mut |e| lines.event(&e)).await;
        lines.set_turn(session.model(), session.mode());
        lines.set_tools(session.tool_names());
        abort.set(session.turn_token());
        let started = Instant::now();
        // A built-in command the owner answers (`/context`, `/compact`, `/model NAME`, …)
        // is answered as it is at the terminal: its reply is the result, no model turn.
        if let Some(text) = user.content.as_str()
            && let Some(outcome) = session.answer_command(text, &mut |e| lines.event(&e)).await
        {
            lines.start(&setup, &session);
            abort.clear();
            lines.finish(&setup, &outcome, started.elapsed());
            last_failed = outcome.is_error();
            continue;
        }
        setup.clear_structured_output();
        if let Some(s) = &states {
            s.send("running");
        }
        lines.start(&setup, &session);
        // The prompt's id: the SDK's, else a new one; `rewind_files` names it.
        let id = user.uuid.clone().unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        session.tag_next_prompt(id.clone());
        if flags.replay_user_messages {
            lines.replay_prompt(&user.content, &id);
        }
        let outcome = {
            let mut sink = |e| lines.event(&e);
            let turn = session.prompt(prompt_input(user), &mut sink);
            tokio::pin!(turn);
            loop {
                tokio::select! {
                    outcome = &mut turn => break outcome.map_err(|e| e.to_string()),
                    line = inbox.recv(), if open => match line {
                        Some(Inbound::User(u)) => queue.push_back(u),
                        Some(Inbound::Control { id, request }) => peer.respond(&id, control.during_turn(&request).await),
                        Some(Inbound::BadControl { id, why }) => peer.respond(&id, Err(why)),
                        Some(Inbound::Bad(why)) => rein_session::message!("ignoring {why}"),
                        Some(_) => {}
                        None => open = false,
                    },
                }
            }
        };
        abort.clear();
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => rein_session::events::Outcome::not_sent(rein_session::events::EngineError::PromptStopped(e)),
        };
        lines.finish(&setup, &outcome, started.elapsed());
        if let Some(s) = &states {
            s.send("idle");
        }
        last_failed = outcome.is_error();
    }
    session.end("other", &mut |e| lines.event(&e)).await;
    Ok(if last_failed { SdkEnd::LastTurnFailed } else { SdkEnd::Done })
}

/// The report of the background agents that ended, once one has (never without any).
async fn agent_notice(agents: Option<&rein_session::BackgroundAgents>) -> Option<String> {
    let agents = agents?;
    loop {
        if let Some(news) = agents.take_notice() {
            return Some(news);
        }
        agents.ended().await;
    }
}

/// Between turns: answer control requests until a user message arrives (`None`: stdin
/// closed).
async fn wait_for_prompt(
    inbox: &mut UnboundedReceiver<Inbound>,
    peer: &Peer,
    control: &Control,
    session: &mut Session,
) -> Option<UserLine> {
    let agents = session.background_agents();
    loop {
        // A background agent that ends while the program waits reports at once, as
        // another turn (as in the terminal).
        let line = tokio::select! {
            Some(news) = agent_notice(agents.as_ref()) => {
                return Some(UserLine { content: serde_json::Value::String(news), uuid: None });
            }
            line = inbox.recv() => line?,
        };
        match line {
            Inbound::User(u) => return Some(u),
            Inbound::Control { id, request } => peer.respond(&id, control.between_turns(session, &request).await),
            Inbound::BadControl { id, why } => peer.respond(&id, Err(why)),
            Inbound::Bad(why) => rein_session::message!("ignoring {why}"),
            _ => {}
        }
    }
}

/// The user line as the turn's prompt: text (which may call a custom command or an MCP
/// prompt), or content blocks.
fn prompt_input(user: UserLine) -> Input {
    match user.content {
        Value::String(text) => Input::Text(text),
        blocks => Input::Blocks(
            serde_json::from_value::<Vec<ContentBlock>>(blocks.clone())
                .unwrap_or_else(|e| vec![ContentBlock::text(format!("(content rein could not read: {e}) {blocks}"))]),
        ),
    }
}
