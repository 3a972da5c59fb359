//! The engine on its own task: it takes prompts, runs each turn to its end with a fresh
//! interrupt token, and reports every engine event to the UI, which never waits on it.

use rein_engine::{Engine, EngineEvent, Outcome};
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
}

/// Run prompts until the channel closes, then end the session (SessionEnd hooks).
pub async fn run(
    mut engine: Engine,
    mut prompts: mpsc::UnboundedReceiver<String>,
    ui: mpsc::UnboundedSender<FromEngine>,
) {
    while let Some(prompt) = prompts.recv().await {
        let token = engine.fresh_abort();
        let _ = ui.send(FromEngine::Started(token));
        let sender = ui.clone();
        let outcome = engine
            .run(Message::user_text(prompt), &mut |e| {
                let _ = sender.send(FromEngine::Event(Box::new(e)));
            })
            .await;
        let _ = ui.send(FromEngine::Finished(Box::new(outcome)));
    }
    engine.end_session("prompt_input_exit", &mut |_| {}).await;
}
