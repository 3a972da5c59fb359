//! Write: create or overwrite a file inside the workspace.

use schemars::JsonSchema;
use serde::Deserialize;

use super::files::{read_for_change, writable_target, write_atomic};
use crate::{Access, Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

pub struct Write;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteInput {
    pub file_path: String,
    pub content: String,
}

impl Tool for Write {
    type Input = WriteInput;

    fn name(&self) -> &'static str {
        "Write"
    }

    fn description(&self) -> String {
        "Writes a file, creating its directories. An existing file must have been Read first and be unchanged \
         since. Prefer Edit for changes; Write is for new files and complete rewrites."
            .to_string()
    }

    fn validate(&self, input: &WriteInput, ctx: &ToolContext) -> Result<(), crate::InputError> {
        writable_target(&input.file_path, ctx)?;
        Ok(())
    }

    fn effects(&self, input: &WriteInput, ctx: &ToolContext) -> Effects {
        Effects::editing([ctx.effect_path(&input.file_path)])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Write, field: "file_path" }
    }

    fn path_fields(&self) -> &'static [&'static str] {
        &["file_path"]
    }

    async fn call(&self, input: WriteInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let path = writable_target(&input.file_path, ctx).map_err(|e| ToolError::new(e.to_string()))?;
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
