//! The engine on its own task: it takes prompts, runs each turn to its end with a fresh
//! interrupt token, and reports every engine event to the UI, which never waits on it.

use std::path::PathBuf;

use rein_engine::{Engine, EngineEvent, Outcome};
use rein_prompt::commands::CommandDef;
use rein_protocol::Message;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What the engine's task tells the UI.
pub enum FromEngine {
    /// A turn began; cancelling the token interrupts it.
    Started(CancellationToken),
    Event(Box<EngineEvent>),
    /// The turn ended.
    Finished(Box<Outcome>),
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
    /// `/clear` started a new session with this id.
    NewSession(String),
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
}

/// What the engine's task needs besides the engine.
/// Expands `/mcp__server__prompt args` (an MCP prompt); `None` when the line is not one.
pub type PromptExpander =
    std::sync::Arc<dyn Fn(String) -> futures::future::BoxFuture<'static, Option<Result<String, String>>> + Send + Sync>;

/// Names a session from its first prompt (the small model); `None` when it could not.
pub type Titler = std::sync::Arc<dyn Fn(String) -> futures::future::BoxFuture<'static, Option<String>> + Send + Sync>;

pub struct Session {
    pub commands: Vec<CommandDef>,
    /// Titles a new session (not a resumed one) after its first turn, in the background;
    /// `None`: no titles (an offline model cannot spare a request).
    pub titler: Option<Titler>,
    pub expand_mcp: Option<PromptExpander>,
    pub project_dir: PathBuf,
    pub session_id: String,
    /// Where transcripts go (`/clear` starts a new one); `None` without persistence.
    pub rein_home: Option<PathBuf>,
}

/// Run prompts until the channel closes, then end the session (SessionEnd hooks).
/// `!cmd` runs the command through the chain; `/name args` expands a custom command.
pub async fn run(
    mut engine: Engine,
    session: Session,
    mut prompts: mpsc::UnboundedReceiver<ToEngine>,
    ui: mpsc::UnboundedSender<FromEngine>,
) {
    let mut context: Vec<String> = Vec::new();
    // Titles arrive tagged with the session they name (`/clear` starts another).
    let (titled_tx, mut titled) = mpsc::unbounded_channel::<(u64, String)>();
    let mut untitled = session.titler.is_some() && engine.user_prompts().is_empty();
    let mut generation = 0u64;
    loop {
        let asked = tokio::select! {
            Some((of, title)) = titled.recv() => {
                if of == generation {
                    engine.record_title(&title);
                }
                continue;
            }
            asked = prompts.recv() => match asked {
                Some(asked) => asked,
                None => break,
            },
        };
        let prompt = match asked {
            ToEngine::Prompt(p) => p,
            ToEngine::Prompts => {
                let _ = ui.send(FromEngine::Prompts(engine.user_prompts()));
                continue;
            }
            ToEngine::Clear => {
                // A new session: its own id and transcript.
                let id = uuid::Uuid::new_v4().to_string();
                if let Some(home) = &session.rein_home {
                    let path = rein_session::transcript_path(home, &session.project_dir, &id);
                    match rein_session::Transcript::open(&path, &id, &session.project_dir, None) {
                        Ok(t) => engine.set_transcript(t),
                        Err(e) => tracing::warn!(error = %e, "no transcript for the new session"),
                    }
                }
                engine.clear_conversation();
                untitled = session.titler.is_some();
                generation += 1;
                let _ = ui.send(FromEngine::NewSession(id));
                let _ = ui.send(FromEngine::Info(vec!["Started a new session".into()]));
                continue;
            }
            other => {
                let _ = ui.send(FromEngine::Info(housekeeping(&mut engine, other, &ui).await));
                continue;
            }
        };
        if let Some(command) = prompt.strip_prefix('!') {
            let command = command.trim().to_string();
            let (output, failed) = engine.run_shell(&command).await;
            context.push(format!("<bash-input>{command}</bash-input>\n<bash-stdout>{output}</bash-stdout>"));
            let _ = ui.send(FromEngine::Shell { command, output, failed });
            continue;
        }
        // An MCP prompt: its messages are what is sent; an error is shown, nothing sent.
        let mut prompt = prompt;
        if let Some(expand) = &session.expand_mcp
            && prompt.starts_with("/mcp__")
            && let Some(expanded) = expand(prompt.clone()).await
        {
            match expanded {
                Ok(text) => prompt = text,
                Err(e) => {
                    let _ = ui.send(FromEngine::Info(vec![format!("  ⎿  {e}")]));
                    continue;
                }
            }
        }
        let token = engine.fresh_abort();
        let _ = ui.send(FromEngine::Started(token));
        let called = prompt.strip_prefix('/').and_then(|rest| {
            let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            session.commands.iter().find(|c| c.name == name).map(|c| (c.clone(), args.trim().to_string()))
        });
        // A command's `model` holds for its turn.
        let previous_model = called.as_ref().and_then(|(def, _)| def.model.clone()).map(|m| {
            let before = engine.model().to_string();
            engine.set_model(&m);
            before
        });
        let mut text = match &called {
            Some((def, args)) => engine.expand_command(def, args, &session.project_dir, &session.session_id).await,
            None => engine.attach_mentions(prompt).await,
        };
        if !context.is_empty() {
            text = format!("{}\n\n{text}", std::mem::take(&mut context).join("\n"));
        }
        let sender = ui.clone();
        let outcome = engine
            .run(Message::user_text(text), &mut |e| {
                let _ = sender.send(FromEngine::Event(Box::new(e)));
            })
            .await;
        if let Some((def, _)) = &called {
            engine.end_command_turn(def);
        }
        if let Some(model) = previous_model {
            engine.set_model(&model);
        }
        let (used, window, compact_at) = engine.context_usage();
        let _ = ui.send(FromEngine::Context(used, window, compact_at));
        let _ = ui.send(FromEngine::Finished(Box::new(outcome)));
        // After the first turn of a new session, its title, without holding up the next.
        if let (true, Some(titler), Some(first)) = (untitled, &session.titler, engine.user_prompts().first()) {
            untitled = false;
            let (titler, first, done, of) = (titler.clone(), first.clone(), titled_tx.clone(), generation);
            tokio::spawn(async move {
                if let Some(title) = titler(first).await {
                    let _ = done.send((of, title));
                }
            });
        }
    }
    engine.end_session("prompt_input_exit", &mut |_| {}).await;
}

/// `/compact`, `/context`, `/clear`.
async fn housekeeping(engine: &mut Engine, asked: ToEngine, ui: &mpsc::UnboundedSender<FromEngine>) -> Vec<String> {
    match asked {
        ToEngine::Compact(instructions) => {
            let sender = ui.clone();
            let result = engine
                .compact_now(&instructions, &mut |e| {
                    let _ = sender.send(FromEngine::Event(Box::new(e)));
                })
                .await;
            match result {
                Ok(()) => vec!["Compacted the conversation".into()],
                Err(e) => vec![format!("Could not compact: {e}")],
            }
        }
        ToEngine::Context => {
            let (used, window, compact_at) = engine.context_usage();
            let width = 40usize;
            let filled = ((used as f64 / window.max(1) as f64) * width as f64).round() as usize;
            let bar: String = (0..width).map(|i| if i < filled.min(width) { '█' } else { '░' }).collect();
            vec![
                format!("{bar} {used} / {window} tokens ({:.0}%)", used as f64 * 100.0 / window.max(1) as f64),
                format!("Compaction starts at {compact_at} tokens ({} left)", compact_at.saturating_sub(used)),
            ]
        }
        ToEngine::Rewind { n, files, conversation, force } => match engine.rewind(n, files, conversation, force) {
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
            Err(rein_engine::RewindFailed::Files(rein_tools::RewindError::ChangedOutside(paths))) => {
                let _ = ui.send(FromEngine::RewindConflict { n, files, conversation, paths });
                Vec::new()
            }
            Err(e) => vec![format!("Could not go back: {e}")],
        },
        ToEngine::Model(name) => {
            engine.set_model(&name);
            vec![format!("The model is now {name}")]
        }
        ToEngine::Prompt(_) | ToEngine::Prompts | ToEngine::Clear => Vec::new(),
    }
}
