//! The session on its own task: it maps what the UI asks to the session's commands, runs
//! each turn to its end with a fresh interrupt token, and reports every event to the UI,
//! which never waits on it.

use std::path::PathBuf;

use rein_session::events::{EngineEvent, Outcome};
use rein_session::{Command, CommandError, Input, Reply, Session};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What the engine's task tells the UI.
pub(crate) enum FromEngine {
    /// A turn began; cancelling the token interrupts it.
    Started(CancellationToken),
    Event(Box<EngineEvent>),
    /// The turn ended.
    Finished(Box<Outcome>),
    /// The prompt was not sent (a command's shell line failed): why.
    Aborted(String),
    /// A `!cmd` the person ran: its output joins the next prompt.
    Shell {
        command: String,
        output: String,
        failed: bool,
    },
    /// Lines answering `/context`, `/compact` or `/clear`.
    Info(Vec<String>),
    /// The prompts of the conversation, for the Esc Esc picker.
    Prompts(Vec<String>),
    /// Tokens in use, the window, where compaction starts (after each turn).
    Context(u64, u64, u64),
    /// `/model` changed the model to this id.
    Model(String),
    /// `/clear` started a new session with this id.
    NewSession(String),
    /// Text for the clipboard (`/export` without a file).
    Copy {
        what: String,
        text: String,
    },
    /// A rewind stopped: these files changed outside rein since their checkpoint.
    RewindConflict {
        n: usize,
        files: bool,
        conversation: bool,
        paths: Vec<PathBuf>,
    },
}

/// What the UI asks of the engine's task.
pub(crate) enum ToEngine {
    /// A message (or `!cmd`, or `/name args` of a custom command).
    Prompt(String),
    /// A message with the images pasted into it.
    Attached { text: String, images: Vec<rein_protocol::ContentBlock> },
    /// One of the session owner's commands (`/model`, `/compact`, `/context`, `/clear`,
    /// `/export`, `/rename`, `/effort`, `/mcp`, `/add-dir`, a rewind, …).
    Command(Command),
    /// `/mcp authenticate NAME`: sign in to a server that needs OAuth (the terminal's
    /// own: a browser opens).
    McpSignIn(String),
}

pub use rein_session::Titler;

/// Run prompts until the channel closes, then end the session (SessionEnd hooks). Each
/// key the person presses becomes one of the session's commands: a prompt, `!cmd`,
/// `/clear`, `/compact`, a rewind, a model.
pub(crate) async fn run(
    mut session: Session,
    titler: Option<Titler>,
    mut prompts: mpsc::UnboundedReceiver<ToEngine>,
    ui: mpsc::UnboundedSender<FromEngine>,
) {
    // Titles arrive tagged with the session they name (`/clear` starts another).
    let (titled_tx, mut titled) = mpsc::unbounded_channel::<(u64, String)>();
    let mut untitled = titler.is_some() && session.prompts().is_empty();
    let mut generation = 0u64;
    // SessionStart hooks run as the session opens, not at the first prompt.
    let opening = ui.clone();
    session.open(&mut |e| _ = opening.send(FromEngine::Event(Box::new(e)))).await;
    let agents = session.background_agents();
    loop {
        let asked = tokio::select! {
            // A background agent ended while the session waits for the person: its
            // report goes to the model at once, as another turn.
            Some((lines, news)) = agent_news(agents.as_ref()) => {
                let _ = ui.send(FromEngine::Info(lines));
                ToEngine::Prompt(news)
            }
            Some((of, title)) = titled.recv() => {
                if of == generation {
                    let _ = session.command(Command::Rename { title }, &mut |_| {}).await;
                }
                continue;
            }
            asked = prompts.recv() => match asked {
                Some(asked) => asked,
                None => break,
            },
        };
        let (prompt, images) = match asked {
            ToEngine::Prompt(p) => (p, Vec::new()),
            ToEngine::Attached { text, images } => (text, images),
            ToEngine::Command(Command::Clear) => {
                if let Ok(reply @ Reply::Cleared { .. }) = session.command(Command::Clear, &mut |_| {}).await {
                    untitled = titler.is_some();
                    generation += 1;
                    if let Reply::Cleared { session_id } = &reply {
                        let _ = ui.send(FromEngine::NewSession(session_id.clone()));
                    }
                    let _ = ui.send(FromEngine::Info(reply.lines()));
                }
                continue;
            }
            // The branch goes on under a new id (its history kept, its title too).
            ToEngine::Command(Command::Branch) => {
                let lines = match session.command(Command::Branch, &mut |_| {}).await {
                    Ok(reply) => {
                        if let Reply::Branched { session_id, .. } = &reply {
                            let _ = ui.send(FromEngine::NewSession(session_id.clone()));
                        }
                        reply.lines()
                    }
                    Err(e) => vec![e.to_string()],
                };
                let _ = ui.send(FromEngine::Info(lines));
                continue;
            }
            ToEngine::Command(command) => {
                let _ = ui.send(FromEngine::Info(answer(&mut session, command, &ui).await));
                continue;
            }
            ToEngine::McpSignIn(name) => {
                let later = ui.clone();
                let later = Box::new(move |line| _ = later.send(FromEngine::Info(vec![line])));
                let _ = ui.send(FromEngine::Info(crate::mcp_view::sign_in(&session, &name, later).await));
                continue;
            }
        };
        if let Some(command) = prompt.strip_prefix('!') {
            let command = command.trim().to_string();
            let (output, failed) = session.shell(&command).await;
            let _ = ui.send(FromEngine::Shell { command, output, failed });
            continue;
        }
        // An MCP prompt that does not expand is shown, and nothing is sent.
        let prompt = match session.expand_mcp(prompt).await {
            Ok(p) => p,
            Err(e) => {
                let _ = ui.send(FromEngine::Info(vec![format!("  ⎿  {e}")]));
                continue;
            }
        };
        let token = session.turn_token();
        let _ = ui.send(FromEngine::Started(token));
        let sender = ui.clone();
        let sent = session
            .prompt(Input::TextWith { text: prompt, attachments: images }, &mut |e| {
                let _ = sender.send(FromEngine::Event(Box::new(e)));
            })
            .await;
        let outcome = match sent {
            Ok(outcome) => outcome,
            Err(e) => {
                let _ = ui.send(FromEngine::Aborted(e.to_string()));
                continue;
            }
        };
        let usage = session.context_usage();
        let _ = ui.send(FromEngine::Context(usage.used, usage.window, usage.compact_at));
        let _ = ui.send(FromEngine::Finished(Box::new(outcome)));
        // After the first turn of a new session, its title, without holding up the next.
        if let (true, Some(titler), Some(first)) = (untitled, &titler, session.prompts().first()) {
            untitled = false;
            let (titler, first, done, of) = (titler.clone(), first.clone(), titled_tx.clone(), generation);
            tokio::spawn(async move {
                if let Some(title) = titler(first).await {
                    let _ = done.send((of, title));
                }
            });
        }
    }
    session.end("prompt_input_exit", &mut |_| {}).await;
}

/// What the model is to be told of background agents that ended, once one has; `None`
/// when the end was told already (with a turn's tool results).
async fn agent_news(agents: Option<&rein_tools::BackgroundAgents>) -> Option<(Vec<String>, String)> {
    let agents = agents?;
    agents.ended().await;
    let ended = agents.take_ended();
    let lines =
        ended.iter().map(|a| format!("The background agent {} ({}) {}", a.name, a.id, a.state.describe())).collect();
    Some((lines, rein_tools::ended_notice(&ended)?))
}

/// What the terminal shows for a line typed at it that the session owner answers
/// (`/context`, `/model NAME`, `/effort high`, …); `None` for any other line.
pub async fn owner_answer(session: &mut Session, line: &str, cwd: &std::path::Path) -> Option<Vec<String>> {
    let command = rein_session::slash::parse(line, cwd)?;
    let (ui, _seen) = mpsc::unbounded_channel();
    Some(answer(session, command, &ui).await)
}

/// One of the owner's commands: the lines that answer it, and what else the interface
/// is to know (the new model, the prompts for the picker, text for the clipboard, a
/// rewind that needs a yes).
async fn answer(session: &mut Session, command: Command, ui: &mpsc::UnboundedSender<FromEngine>) -> Vec<String> {
    let asked_model = matches!(command, Command::SetModel { .. });
    let rewinding = match &command {
        Command::Rewind { prompt, files, conversation, .. } => Some((*prompt, *files, *conversation)),
        _ => None,
    };
    let sender = ui.clone();
    let mut sink = |e| {
        let _ = sender.send(FromEngine::Event(Box::new(e)));
    };
    match session.command(command, &mut sink).await {
        Ok(Reply::Model { model }) => {
            let _ = ui.send(FromEngine::Model(model.clone()));
            Reply::Model { model }.lines()
        }
        Ok(Reply::Prompts { prompts }) => {
            let _ = ui.send(FromEngine::Prompts(prompts));
            Vec::new()
        }
        Ok(Reply::Markdown { text }) => {
            let _ = ui.send(FromEngine::Copy { what: "the conversation".into(), text });
            Vec::new()
        }
        Ok(reply) => {
            // The footer's figure follows what the command did (a compaction, a rewind).
            let u = session.context_usage();
            let _ = ui.send(FromEngine::Context(u.used, u.window, u.compact_at));
            reply.lines()
        }
        Err(CommandError::Rewind(e)) if e.changed_outside().is_some() => {
            if let (Some((n, files, conversation)), Some(paths)) = (rewinding, e.changed_outside()) {
                let _ = ui.send(FromEngine::RewindConflict { n, files, conversation, paths: paths.to_vec() });
            }
            Vec::new()
        }
        Err(e) if asked_model => vec![format!("The model stays {}: {e}", session.model())],
        Err(CommandError::Rewind(e)) => vec![format!("Could not go back: {e}")],
        Err(e) => vec![capitalised(&e.to_string())],
    }
}

/// `text` with its first letter a capital, as the interface's lines begin.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
