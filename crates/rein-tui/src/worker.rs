//! The session on its own task: it maps what the UI asks to the session's commands, runs
//! each turn to its end with a fresh interrupt token, and reports every event to the UI,
//! which never waits on it.

use std::path::PathBuf;

use rein_engine::{EngineEvent, Outcome};
use rein_session::{Input, Session};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What the engine's task tells the UI.
pub enum FromEngine {
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
pub enum ToEngine {
    /// A message (or `!cmd`, or `/name args` of a custom command).
    Prompt(String),
    /// A message with the images pasted into it.
    Attached {
        text: String,
        images: Vec<rein_protocol::ContentBlock>,
    },
    Compact(String),
    Context,
    Clear,
    /// The prompts so far (Esc Esc).
    Prompts,

    /// Go back to before prompt `n`: its files, its conversation; `force` overwrites
    /// files changed outside rein.
    Rewind {
        n: usize,
        files: bool,
        conversation: bool,
        force: bool,
    },
    /// The model for later turns.
    Model(String),
    /// `/export [FILE]`: the conversation as Markdown, to `FILE` (relative to the working
    /// directory) or, without one, back to the interface for the clipboard.
    Export(Option<std::path::PathBuf>),
    /// `/rename NAME`: the session's title.
    Rename(String),
    /// `/effort [LEVEL]`: the reasoning effort (`auto` or nothing: the model's default).
    Effort(String),
    /// `/mcp`: the servers, their state and tools; `/mcp reconnect NAME`.
    Mcp(String),
    /// `/add-dir PATH`: another working directory for the session.
    AddDir(std::path::PathBuf),
}

/// Names a session from its first prompt (the small model); `None` when it could not.
pub type Titler = std::sync::Arc<dyn Fn(String) -> futures::future::BoxFuture<'static, Option<String>> + Send + Sync>;

/// Run prompts until the channel closes, then end the session (SessionEnd hooks). Each
/// key the person presses becomes one of the session's commands: a prompt, `!cmd`,
/// `/clear`, `/compact`, a rewind, a model.
pub async fn run(
    mut session: Session,
    titler: Option<Titler>,
    mut prompts: mpsc::UnboundedReceiver<ToEngine>,
    ui: mpsc::UnboundedSender<FromEngine>,
) {
    // Titles arrive tagged with the session they name (`/clear` starts another).
    let (titled_tx, mut titled) = mpsc::unbounded_channel::<(u64, String)>();
    let mut untitled = titler.is_some() && session.engine().user_prompts().is_empty();
    let mut generation = 0u64;
    // SessionStart hooks run as the session opens, not at the first prompt.
    let opening = ui.clone();
    session.open(&mut |e| _ = opening.send(FromEngine::Event(Box::new(e)))).await;
    let agents = session.engine().session_shell().map(|s| s.agents());
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
                    session.engine().record_title(&title);
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
            ToEngine::Prompts => {
                let _ = ui.send(FromEngine::Prompts(session.engine().user_prompts()));
                continue;
            }
            ToEngine::Clear => {
                let id = session.clear();
                untitled = titler.is_some();
                generation += 1;
                let _ = ui.send(FromEngine::NewSession(id));
                let _ = ui.send(FromEngine::Info(vec!["Started a new session".into()]));
                continue;
            }
            other => {
                let _ = ui.send(FromEngine::Info(housekeeping(&mut session, other, &ui).await));
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
        let token = session.engine_mut().fresh_abort();
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
        let (used, window, compact_at) = session.engine().context_usage();
        let _ = ui.send(FromEngine::Context(used, window, compact_at));
        let _ = ui.send(FromEngine::Finished(Box::new(outcome)));
        // After the first turn of a new session, its title, without holding up the next.
        if let (true, Some(titler), Some(first)) = (untitled, &titler, session.engine().user_prompts().first()) {
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

/// `/compact`, `/context`, `/clear`.
async fn housekeeping(session: &mut Session, asked: ToEngine, ui: &mpsc::UnboundedSender<FromEngine>) -> Vec<String> {
    match asked {
        ToEngine::Compact(instructions) => {
            let sender = ui.clone();
            let result = session
                .compact(&instructions, &mut |e| {
                    let _ = sender.send(FromEngine::Event(Box::new(e)));
                })
                .await;
            match result {
                // The Compacted event has said so, with the sizes.
                Ok(()) => Vec::new(),
                Err(e) => vec![format!("Could not compact: {e}")],
            }
        }
        ToEngine::Context => {
            let (used, window, compact_at) = session.engine().context_usage();
            let width = 40usize;
            let filled = ((used as f64 / window.max(1) as f64) * width as f64).round() as usize;
            let bar: String = (0..width).map(|i| if i < filled.min(width) { '█' } else { '░' }).collect();
            let mut lines = vec![
                format!("{bar} {used} / {window} tokens ({:.0}%)", used as f64 * 100.0 / window.max(1) as f64),
                format!("Compaction starts at {compact_at} tokens ({} left)", compact_at.saturating_sub(used)),
            ];
            for (part, tokens) in session.engine().context_breakdown() {
                let pct = tokens as f64 * 100.0 / window.max(1) as f64;
                lines.push(format!("  {part:<26} {tokens:>8} tokens ({pct:.1}%)"));
            }
            let free = window.saturating_sub(used);
            lines.push(format!(
                "  {:<26} {free:>8} tokens ({:.1}%)",
                "Free",
                free as f64 * 100.0 / window.max(1) as f64
            ));
            lines
        }
        ToEngine::Rewind { n, files, conversation, force } => match session.rewind(n, files, conversation, force) {
            Ok(restored) => {
                let what = match (files, conversation) {
                    (true, true) => "the code and the conversation",
                    (false, _) => "the conversation",
                    (true, false) => "the code",
                };
                let mut lines = vec![format!("Went back to before prompt {}: {what}", n + 1)];
                lines.extend(restored.iter().map(|p| format!("  restored {}", p.display())));
                lines
            }
            Err(e) => match e.changed_outside() {
                Some(paths) => {
                    let _ = ui.send(FromEngine::RewindConflict { n, files, conversation, paths: paths.to_vec() });
                    Vec::new()
                }
                None => vec![format!("Could not go back: {e}")],
            },
        },
        ToEngine::Model(name) => match session.set_model(&name, "user").await {
            Ok(()) => {
                let _ = ui.send(FromEngine::Model(session.engine().model().to_string()));
                vec![format!("The model is now {}", session.engine().model())]
            }
            Err(why) => vec![format!("The model stays {}: {why}", session.engine().model())],
        },
        ToEngine::Export(to) => {
            let title = format!("rein session {}", session.live().session_id());
            let messages: Vec<rein_protocol::Message> = session.engine().conversation().messages().cloned().collect();
            let text = rein_session::export::markdown(&title, &messages);
            match to {
                Some(path) => match path
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(&path, &text))
                {
                    Ok(()) => vec![format!("Exported the conversation to {}", path.display())],
                    Err(e) => vec![format!("Could not write {}: {e}", path.display())],
                },
                None => {
                    let _ = ui.send(FromEngine::Copy { what: "the conversation".into(), text });
                    Vec::new()
                }
            }
        }
        ToEngine::Rename(title) => {
            session.engine().record_title(&title);
            vec![format!("Session renamed to {title:?}")]
        }
        ToEngine::Effort(level) => match level.trim() {
            "" => vec![format!(
                "Effort: {} (/effort low|medium|high|xhigh|max|auto changes it)",
                session
                    .engine()
                    .effort()
                    .map_or("the model's default".to_string(), |e| format!("{e:?}").to_lowercase())
            )],
            "auto" => {
                session.engine_mut().set_effort(None);
                vec!["Effort set to the model's default".into()]
            }
            other => match rein_model::Effort::parse_arg(other) {
                Ok(effort) => {
                    session.engine_mut().set_effort(Some(effort));
                    vec![format!("Effort set to {} for the turns that follow", other.to_lowercase())]
                }
                Err(e) => vec![e],
            },
        },
        ToEngine::Mcp(args) => crate::mcp_view::run(session, &args, ui).await,
        ToEngine::AddDir(dir) => {
            let mut notes = Vec::new();
            let mut keep = |e| {
                if let EngineEvent::Notice(n) = e {
                    notes.push(n);
                }
            };
            let added = session.add_directory(&dir, "slash_command", &mut keep).await;
            match added {
                Ok(()) => notes.insert(0, format!("Added {} as a working directory for this session", dir.display())),
                Err(e) => notes.insert(0, format!("Could not add {}: {e}", dir.display())),
            }
            notes
        }
        ToEngine::Prompt(_) | ToEngine::Attached { .. } | ToEngine::Prompts | ToEngine::Clear => Vec::new(),
    }
}
