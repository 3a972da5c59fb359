//! The session's task list as TaskCreated and TaskCompleted hooks see it: which items
//! it has held and which are done (the chain's task hooks raise the events).

use rein_hooks::HookInput;
use serde_json::Value;

/// The items the task list has held, in the order they first appeared (an item's id is
/// its place here), and whether each is done.
#[derive(Debug, Default)]
pub struct TaskList {
    pub(crate) seen: Vec<(String, bool)>,
}

impl TaskList {
    /// The events a new list would raise, and the list as it would then be.
    pub(crate) fn events(&self, input: &Value) -> (Vec<HookInput>, Vec<(String, bool)>) {
        let mut seen = self.seen.clone();
        let mut events = Vec::new();
        for todo in input.get("todos").and_then(Value::as_array).into_iter().flatten() {
            let Some(subject) = todo.get("content").and_then(Value::as_str) else { continue };
            let done = todo.get("status").and_then(Value::as_str) == Some("completed");
            let at = match seen.iter().position(|(s, _)| s == subject) {
                Some(at) => at,
                None => {
                    seen.push((subject.to_string(), false));
                    let task_id = seen.len().to_string();
                    events.push(HookInput::TaskCreated {
                        task_id,
                        task_subject: subject.to_string(),
                        task_description: None,
                    });
                    seen.len() - 1
                }
            };
            if done && !seen[at].1 {
                seen[at].1 = true;
                events.push(HookInput::TaskCompleted {
                    task_id: (at + 1).to_string(),
                    task_subject: subject.to_string(),
                    task_description: None,
                });
            }
        }
        (events, seen)
    }
}
