//! SDK mode (`--input-format stream-json --output-format stream-json`, with or without
//! `-p`): the Agent SDKs drive rein over stdin/stdout. The first line is `initialize`
//! (answered once the session is built, before any turn) or a user message; user
//! messages then run one turn each, in order (those written while a turn runs wait);
//! control requests are answered at any time, during a turn too. Each turn prints
//! `system/init`, its messages and one `result`. When stdin closes, the pending turns
//! finish and rein exits: 0, or 1 right after an error result.

use std::collections::VecDeque;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use rein_policy::SharedPolicy;
use rein_protocol::ContentBlock;
use rein_sdk::{Inbound, Peer, PermissionTargets, SdkApprover, SessionState, TurnAbort, UserLine};
use rein_session::Input;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::args::{Args, OutputFormat};
use crate::print::Frontend;
use crate::sdk_control::{Control, apply_initialize, initialize_reply};
use crate::session::Setup;

pub fn run(args: &Args, runtime: tokio::runtime::Runtime) -> anyhow::Result<ExitCode> {
    let mut setup = Setup::from_options(&args.options())?;
    runtime.block_on(async move {
        let peer = Arc::new(Peer::new(Box::new(std::io::stdout())));
        let mut inbox = rein_sdk::inbound::spawn_reader(tokio::io::stdin(), peer.clone());
        let mut queue: VecDeque<UserLine> = VecDeque::new();
        // The SDKs write `initialize` first; a plain stream of user lines works too.
        let mut init_id = None;
        let mut sdk_servers: Vec<String> = Vec::new();
        while init_id.is_none() && queue.is_empty() {
            match inbox.recv().await {
                Some(Inbound::Control { id, request }) if subtype(&request) == "initialize" => {
                    if let Err(e) = apply_initialize(&mut setup, &request, &peer) {
                        peer.respond(&id, Err(e.to_string()));
                        return Ok(ExitCode::FAILURE);
                    }
                    sdk_servers = rein_sdk::inbound::strings(request.get("sdkMcpServers"));
                    init_id = Some(id);
                }
                Some(Inbound::Control { id, request }) => {
                    peer.respond(&id, Err(format!("{} before initialize", subtype(&request))));
                }
                Some(Inbound::User(u)) => queue.push_back(u),
                Some(Inbound::Bad(why)) => crate::messages::message!("ignoring {why}"),
                Some(_) => {}
                None => return Ok(ExitCode::SUCCESS),
            }
        }
        let tunnel = rein_mcp::TunnelHandle(Arc::new(rein_sdk::McpTunnel { peer: peer.clone() }));
        crate::mcp::start_with(&args.options(), &mut setup, Some(tunnel), &sdk_servers)?;
        let model = setup.anthropic_model()?;
        let policy = SharedPolicy::from(setup.policy.clone());
        let abort = Arc::new(TurnAbort::default());
        let states = crate::env::Env::lookup("CLAUDE_CODE_SDK_READS_SESSION_STATE")
            .is_some_and(|v| v == "1")
            .then(|| Arc::new(SessionState { peer: peer.clone(), session_id: setup.session_id.clone() }));
        let approver: Option<Arc<dyn rein_engine::Approver>> = match args.permission_prompt_tool.as_deref() {
            Some("stdio") => Some(Arc::new(SdkApprover {
                peer: peer.clone(),
                policy: policy.clone(),
                targets: PermissionTargets {
                    project_root: rein_prompt::find_git_root(&setup.cwd).unwrap_or_else(|| setup.cwd.clone()),
                    user_dir: setup.env.home.as_ref().map(|h| h.join(".claude")),
                },
                abort: abort.clone(),
                states: states.clone(),
            })),
            Some(other) => crate::prompt_tool::approver(other, &setup)?,
            None => None,
        };
        let mut session = crate::engine::build(&setup, model, policy.clone(), approver)?;
        if let Some(id) = init_id {
            peer.respond(&id, Ok(initialize_reply(&setup, &policy)));
        }
        let mut frontend =
            Frontend::new(OutputFormat::StreamJson, true).with_partial_messages(args.include_partial_messages);
        let mut control = Control {
            policy,
            abort: abort.clone(),
            next_model: None,
            model: setup.model.clone(),
            context_tokens: 0,
            mcp: setup.mcp.clone(),
        };
        let mut open = true;
        let mut last_failed = false;
        loop {
            let user = match queue.pop_front() {
                Some(u) => u,
                None if !open => break,
                None => match wait_for_prompt(&mut inbox, &peer, &mut control, session.engine_mut()).await {
                    Some(u) => u,
                    None => break,
                },
            };
            if let Some(m) = control.next_model.take() {
                session.set_model(&m);
                control.model = m;
            }
            frontend.set_turn(&control.model, control.policy.get().mode);
            session.engine_mut().settle_tools().await;
            frontend.set_tools(session.engine().tool_names());
            abort.set(session.engine_mut().fresh_abort());
            let started = Instant::now();
            setup.clear_structured_output();
            if let Some(s) = &states {
                s.send("running");
            }
            frontend.start(&setup);
            // The prompt's id: the SDK's, else a new one; `rewind_files` names it.
            let id = user.uuid.clone().unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
            session.engine_mut().tag_next_prompt(id.clone());
            if args.replay_user_messages {
                peer.send(&serde_json::json!({
                    "type": "user", "message": {"role": "user", "content": user.content}, "uuid": id,
                    "session_id": setup.session_id, "parent_tool_use_id": null,
                }));
            }
            let outcome = {
                let mut sink = |e| frontend.event(e);
                let turn = session.prompt(prompt_input(user), &mut sink);
                tokio::pin!(turn);
                loop {
                    tokio::select! {
                        outcome = &mut turn => break outcome.map_err(|e| e.to_string()),
                        line = inbox.recv(), if open => match line {
                            Some(Inbound::User(u)) => queue.push_back(u),
                            Some(Inbound::Control { id, request }) => peer.respond(&id, control.handle(&request)),
                            Some(Inbound::Bad(why)) => crate::messages::message!("ignoring {why}"),
                            Some(_) => {}
                            None => open = false,
                        },
                    }
                }
            };
            abort.clear();
            let outcome = match outcome {
                Ok(outcome) => outcome,
                Err(e) => rein_engine::Outcome::not_sent(rein_engine::EngineError::PromptStopped(e)),
            };
            frontend.finish(&setup, &outcome, started.elapsed());
            if let Some(s) = &states {
                s.send("idle");
            }
            last_failed = outcome.is_error();
            control.context_tokens = context_tokens(session.engine());
        }
        session.end("other", &mut |e| frontend.event(e)).await;
        Ok(if last_failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
    })
}

/// Between turns: answer control requests until a user message arrives (`None`: stdin
/// closed).
async fn wait_for_prompt(
    inbox: &mut UnboundedReceiver<Inbound>,
    peer: &Peer,
    control: &mut Control,
    engine: &mut rein_engine::Engine,
) -> Option<UserLine> {
    loop {
        match inbox.recv().await? {
            Inbound::User(u) => return Some(u),
            Inbound::Control { id, request } if subtype(&request) == "rewind_files" => {
                peer.respond(&id, rewind_files(engine, &request));
            }
            Inbound::Control { id, request } => peer.respond(&id, control.handle(&request)),
            Inbound::Bad(why) => crate::messages::message!("ignoring {why}"),
            _ => {}
        }
    }
}

/// `rewind_files`: the files rein's file tools changed since the named user message go
/// back to what they held before it (the conversation stays). A file changed outside
/// rein since is not overwritten: the SDK gets an error naming it.
fn rewind_files(engine: &mut rein_engine::Engine, request: &Value) -> Result<Value, String> {
    let id = request.get("user_message_id").and_then(Value::as_str).ok_or("rewind_files needs user_message_id")?;
    let n = engine.prompt_of(id).ok_or_else(|| format!("No file checkpoint found for message {id}"))?;
    let restored = engine.rewind(n, true, false, false).map_err(|e| e.to_string())?;
    let files: Vec<String> = restored.iter().map(|p| p.display().to_string()).collect();
    Ok(serde_json::json!({"filesChanged": files}))
}

fn subtype(request: &Value) -> &str {
    request.get("subtype").and_then(Value::as_str).unwrap_or_default()
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

/// The conversation's size in tokens (estimated from its bytes).
fn context_tokens(engine: &rein_engine::Engine) -> u64 {
    let bytes: usize = engine.conversation().messages().map(|m| serde_json::to_string(m).map_or(0, |s| s.len())).sum();
    rein_engine::estimate_tokens(bytes)
}
