//! Write: create or overwrite a file inside the workspace.

use schemars::JsonSchema;
use serde::Deserialize;

use super::files::{read_for_change, writable_target, write_atomic};
use crate::{Access, Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

pub struct Write;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteInput {
    /// The absolute path of the file to write.
    pub file_path: String,
    /// The whole new content of the file.
    pub content: String,
}

impl Tool for Write {
    type Input = WriteInput;

    fn name(&self) -> &'static str {
        "Write"
    }

    fn description(&self) -> String {
        "Writes a file to the local filesystem, creating parent directories as needed. Overwrites an existing \
         file, which must have been Read in this session first and not changed since. Prefer Edit for changes \
         to existing files; use Write for new files or complete rewrites. file_path must be absolute and inside \
         the workspace."
            .to_string()
    }

    fn validate(&self, input: &WriteInput, ctx: &ToolContext) -> Result<(), String> {
        writable_target(&input.file_path, ctx).map(|_| ())
    }

    fn effects(&self, input: &WriteInput, ctx: &ToolContext) -> Effects {
        Effects::writing([ctx.effect_path(&input.file_path)])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Write, field: "file_path" }
    }

    async fn call(&self, input: WriteInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = writable_target(&input.file_path, ctx).map_err(ToolError::new)?;
        let existed = path.exists();
        if existed {
            read_for_change(&path, ctx)?;
        }
        write_atomic(&path, input.content.as_bytes(), ctx)?;
        let lines = input.content.lines().count();
        Ok(ToolOutput::text(if existed {
            format!("Updated {} ({lines} lines).", path.display())
        } else {
            format!("Created {} ({lines} lines).", path.display())
        }))
    }
}
