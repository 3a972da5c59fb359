//! TaskCreated and TaskCompleted, raised from the session's task list (TodoWrite): an
//! item the list did not have before fires TaskCreated, an item newly marked done fires
//! TaskCompleted. A hook that blocks (exit 2, `decision: "block"`, or `continue:
//! false`) cancels the change: the call is refused with the hook's reason, the list
//! stays as it was, and the model can act on why.

use std::sync::Mutex;

use rein_hooks::Hooks;
use serde_json::Value;

use super::{Flow, Step};
pub use crate::task_list::TaskList;

/// Fire the events `input` raises; the reason the first hook that blocks gave.
/// A task hook that would not let the call run.
#[derive(Debug, thiserror::Error)]
enum TaskHookRefusal {
    #[error("the {event} hook `{hook}` refused: {reason}")]
    Blocked { event: rein_hooks::HookEvent, hook: String, reason: String },
    #[error("a {event} hook stopped it: {reason}")]
    Stopped { event: rein_hooks::HookEvent, reason: String },
}

async fn check(hooks: &Hooks, tasks: &Mutex<TaskList>, input: &Value) -> Result<(), TaskHookRefusal> {
    let (events, next) = tasks.lock().unwrap_or_else(|p| p.into_inner()).events(input);
    for event in &events {
        if !hooks.has(event.event()) {
            continue;
        }
        let out = hooks.fire_input(event, |_| true).await;
        if let Some((reason, hook)) = out.block() {
            return Err(TaskHookRefusal::Blocked { event: event.event(), hook, reason });
        }
        if let Some(reason) = out.stop() {
            return Err(TaskHookRefusal::Stopped { event: event.event(), reason });
        }
    }
    tasks.lock().unwrap_or_else(|p| p.into_inner()).seen = next;
    Ok(())
}

impl Flow<'_> {
    /// Stage 4b, task hooks: a TodoWrite call that adds or completes items passes the
    /// TaskCreated and TaskCompleted hooks before it runs.
    pub(super) async fn task_hooks(&mut self) -> Step {
        let Some(hooks) = &self.gate.hooks else { return Step::Continue };
        if self.call.name != "TodoWrite" {
            return Step::Continue;
        }
        match check(hooks, &self.gate.tasks, &self.call.input).await {
            Ok(()) => Step::Continue,
            Err(why) => self.stopped(format!("The task list was not changed: {why}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_items_are_created_and_newly_done_ones_completed_once() {
        let mut list = TaskList::default();
        let first = serde_json::json!({"todos": [
            {"content": "a", "status": "in_progress", "activeForm": "A"},
            {"content": "b", "status": "completed", "activeForm": "B"},
        ]});
        let (events, next) = list.events(&first);
        let names: Vec<_> = events.iter().map(|e| (e.event().name(), e.fields()["task_id"].clone())).collect();
        assert_eq!(
            names,
            vec![("TaskCreated", "1".into()), ("TaskCreated", "2".into()), ("TaskCompleted", "2".into())]
        );
        list.seen = next;
        let second = serde_json::json!({"todos": [
            {"content": "b", "status": "completed", "activeForm": "B"},
            {"content": "a", "status": "completed", "activeForm": "A"},
        ]});
        let (events, _) = list.events(&second);
        let names: Vec<_> = events.iter().map(|e| (e.event().name(), e.fields()["task_subject"].clone())).collect();
        assert_eq!(names, vec![("TaskCompleted", "a".into())]);
    }
}
