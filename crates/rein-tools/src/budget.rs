//! Result budgets: a result larger than its tool's budget is written to a file under the
//! session directory, and the model receives a preview plus the path to Read it from.

use rein_protocol::ToolResultContent;

use crate::{ToolContext, ToolOutput};

/// How much of a spilled result the model sees inline.
pub const PREVIEW_BYTES: usize = 2048;

/// Apply `budget` (characters) to `output`.
pub(crate) fn apply_budget(tool: &str, output: ToolOutput, budget: Option<usize>, ctx: &ToolContext) -> ToolOutput {
    let Some(budget) = budget else { return output };
    // Text, or a list of text blocks (an MCP tool's result), which keeps its shape.
    let (text, listed) = match &output.content {
        ToolResultContent::Text(text) => (text.clone(), false),
        ToolResultContent::Blocks(blocks) => {
            let texts: Option<Vec<&str>> = blocks
                .iter()
                .map(|b| match b {
                    rein_protocol::ContentBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            let Some(texts) = texts else { return output };
            (texts.join("\n"), true)
        }
    };
    if text.len() <= budget || text.chars().count() <= budget {
        return output;
    }
    let (preview, saved) = spill_whole(tool, &text, ctx);
    let content = if listed {
        ToolResultContent::Blocks(vec![rein_protocol::ContentBlock::text(preview)])
    } else {
        ToolResultContent::Text(preview)
    };
    ToolOutput { content, is_error: output.is_error, saved }
}

/// Save `text` under the session directory; return a preview with the path — through
/// the same mechanism a command's output is saved with ([`crate::spilling`]).
pub fn spill(tool: &str, text: &str, ctx: &ToolContext) -> String {
    spill_whole(tool, text, ctx).0
}

/// [`spill`], and the file the text went to.
fn spill_whole(tool: &str, text: &str, ctx: &ToolContext) -> (String, Option<std::path::PathBuf>) {
    let mut saving = crate::spilling::Spilling::new(0, &crate::spilling::new_file(ctx, tool));
    saving.push_str(text);
    let collected = saving.finish();
    (collected.for_model(), collected.saved())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_results_spill_to_a_file_with_a_preview() {
        let d = tempfile::tempdir().unwrap();
        let ctx = ToolContext::new(d.path().to_path_buf(), d.path().join("session"));
        let big = "line\n".repeat(10_000);
        let out = apply_budget("Grep", ToolOutput::text(big.clone()), Some(20_000), &ctx);
        let ToolResultContent::Text(t) = &out.content else { panic!() };
        assert!(t.len() < PREVIEW_BYTES + 400, "{}", t.len());
        let path = t.split("saved to ").nth(1).unwrap().split(". Use Read").next().unwrap();
        assert!(t.contains("10000 lines"), "{t}");
        assert_eq!(std::fs::read_to_string(path).unwrap(), big);
        let small = apply_budget("Grep", ToolOutput::text("ok"), Some(20_000), &ctx);
        assert_eq!(small, ToolOutput::text("ok"));
        let exempt = apply_budget("Read", ToolOutput::text(big.clone()), None, &ctx);
        assert_eq!(exempt, ToolOutput::text(big));
    }
}
