//! A background session keeps its record current (`rein-jobs`): between the session's
//! task and the UI, these relays pass everything on unchanged and tell the record when a
//! turn starts (with its prompt), when it ends (its answer and cost), and while a
//! question waits for a person.

use std::sync::{Arc, Mutex};

use rein_jobs::Reporter;
use tokio::sync::{mpsc, oneshot};

use crate::approver::Question;
use crate::worker::{FromEngine, ToEngine};

/// The channels the UI and the session's task use instead of the direct ones.
pub(crate) struct Relayed {
    pub prompts: mpsc::UnboundedSender<ToEngine>,
    pub prompt_rx: mpsc::UnboundedReceiver<ToEngine>,
    pub ui: mpsc::UnboundedSender<FromEngine>,
    pub ui_rx: mpsc::UnboundedReceiver<FromEngine>,
    pub questions: mpsc::UnboundedReceiver<Question>,
}

/// Put `reporter` between the UI and the session: `questions` is where the approver's
/// questions arrive.
/// `live` and `cwd` name the conversation again after `/clear` starts another.
pub(crate) fn relay(
    reporter: Arc<Reporter>,
    mut questions: mpsc::UnboundedReceiver<Question>,
    live: Arc<rein_session::Live>,
    cwd: std::path::PathBuf,
) -> Relayed {
    let last_prompt = Arc::new(Mutex::new(String::new()));
    let (prompts, mut from_ui) = mpsc::unbounded_channel::<ToEngine>();
    let (to_engine, prompt_rx) = mpsc::unbounded_channel();
    {
        let last_prompt = last_prompt.clone();
        tokio::spawn(async move {
            while let Some(asked) = from_ui.recv().await {
                if let ToEngine::Prompt(text) | ToEngine::Attached { text, .. } = &asked
                    && let Ok(mut last) = last_prompt.lock()
                {
                    last.clone_from(text);
                }
                if to_engine.send(asked).is_err() {
                    break;
                }
            }
        });
    }
    let (ui, mut from_engine) = mpsc::unbounded_channel::<FromEngine>();
    let (to_ui, ui_rx) = mpsc::unbounded_channel();
    {
        let reporter = reporter.clone();
        tokio::spawn(async move {
            while let Some(m) = from_engine.recv().await {
                match &m {
                    FromEngine::Started(_) => {
                        let prompt = last_prompt.lock().map(|p| p.clone()).unwrap_or_default();
                        let reporter = reporter.clone();
                        tokio::task::spawn_blocking(move || reporter.working(&prompt));
                    }
                    FromEngine::Finished(outcome) => {
                        let (text, cost) = (outcome.result_text.clone(), outcome.cost_usd);
                        let reporter = reporter.clone();
                        tokio::task::spawn_blocking(move || reporter.turn_ended(&text, cost));
                    }
                    FromEngine::NewSession(id) => {
                        let (id, transcript, cwd) = (id.clone(), live.transcript(), cwd.clone());
                        let reporter = reporter.clone();
                        tokio::task::spawn_blocking(move || reporter.opened(&id, &cwd, Some(transcript), true));
                    }
                    _ => {}
                }
                if to_ui.send(m).is_err() {
                    break;
                }
            }
        });
    }
    let (to_dialogs, questions_rx) = mpsc::unbounded_channel::<Question>();
    tokio::spawn(async move {
        while let Some(mut q) = questions.recv().await {
            let what = format!("{} wants to run: {}", q.call.name, first_text(&q.call.input));
            let (reply, answer) = oneshot::channel();
            let person = std::mem::replace(&mut q.reply, reply);
            let reporter = reporter.clone();
            tokio::task::spawn_blocking({
                let reporter = reporter.clone();
                move || reporter.blocked(&what)
            });
            tokio::spawn(async move {
                if let Ok(a) = answer.await {
                    let _ = person.send(a);
                }
                let _ = tokio::task::spawn_blocking(move || reporter.answered_question()).await;
            });
            if to_dialogs.send(q).is_err() {
                break;
            }
        }
    });
    Relayed { prompts, prompt_rx, ui, ui_rx, questions: questions_rx }
}

/// The first text a call's input names (its command, its file), in a line.
fn first_text(input: &serde_json::Value) -> String {
    let keys = ["command", "file_path", "path", "url", "pattern", "description"];
    keys.iter()
        .find_map(|k| input.get(*k).and_then(serde_json::Value::as_str))
        .and_then(|s| s.lines().next())
        .unwrap_or_default()
        .to_string()
}
