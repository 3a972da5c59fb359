//! TodoWrite: the session's task list, kept in session state and shown to the user.

use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Effects, Tool, ToolContext, ToolError, ToolOutput};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Todo {
    /// The task, imperative ("Fix the parser").
    pub content: String,
    pub status: TodoStatus,
    /// Present continuous ("Fixing the parser").
    #[serde(rename = "activeForm")]
    pub active_form: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoWriteInput {
    pub todos: Vec<Todo>,
}

/// The list lives as long as the session's tool table.
#[derive(Default)]
pub struct TodoWrite {
    todos: Arc<Mutex<Vec<Todo>>>,
}

impl TodoWrite {
    /// The current list.
    pub fn todos(&self) -> Vec<Todo> {
        self.todos.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Tool for TodoWrite {
    type Input = TodoWriteInput;

    fn name(&self) -> &'static str {
        "TodoWrite"
    }

    fn description(&self) -> String {
        "Keeps the session's task list, shown to the user. Send the \
         whole list each time, keep one task in_progress, and mark each completed as soon as it is done."
            .to_string()
    }

    fn validate(&self, input: &TodoWriteInput, _: &ToolContext) -> Result<(), crate::InputError> {
        if let Some(i) = input.todos.iter().position(|t| t.content.trim().is_empty()) {
            return Err(format!("todo {} has empty content", i + 1).into());
        }
        Ok(())
    }

    fn effects(&self, _: &TodoWriteInput, _: &ToolContext) -> Effects {
        Effects { own_result: true, ..Effects::session_only(false) }
    }

    async fn call(&self, input: TodoWriteInput, _: &ToolContext) -> Result<ToolOutput, ToolError> {
        let list: Vec<String> = input
            .todos
            .iter()
            .map(|t| {
                let mark = match t.status {
                    TodoStatus::Pending => "[ ]",
                    TodoStatus::InProgress => "[~]",
                    TodoStatus::Completed => "[x]",
                };
                format!("{mark} {}", if t.status == TodoStatus::InProgress { &t.active_form } else { &t.content })
            })
            .collect();
        *self.todos.lock().unwrap_or_else(|p| p.into_inner()) = input.todos;
        Ok(ToolOutput::text(format!("Task list saved; carry on with the item in progress.\n{}", list.join("\n"))))
    }
}
