//! Edit and MultiEdit: exact string replacement, never fuzzy.

use schemars::JsonSchema;
use serde::Deserialize;

use super::files::{numbered, read_for_change, writable_target, write_atomic};
use crate::{Access, Effects, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

/// Lines of context shown around an edit.
const SNIPPET_CONTEXT: usize = 4;

pub struct Edit;
pub struct MultiEdit;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EditInput {
    pub file_path: String,
    pub old_string: String,
    /// Its replacement (must differ).
    pub new_string: String,
    #[serde(default)]
    pub replace_all: bool,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct OneEdit {
    pub old_string: String,
    pub new_string: String,
    #[serde(default)]
    pub replace_all: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MultiEditInput {
    pub file_path: String,
    pub edits: Vec<OneEdit>,
}

impl Tool for Edit {
    type Input = EditInput;

    fn name(&self) -> &'static str {
        "Edit"
    }

    fn description(&self) -> String {
        "Replaces exact text in a file you have Read. old_string must match exactly (indentation too, no \
         line-number prefixes) and occur once, unless replace_all; add surrounding lines to make it unique. An \
         empty old_string creates a new file. A file with CRLF line endings keeps them."
            .to_string()
    }

    fn validate(&self, input: &EditInput, ctx: &ToolContext) -> Result<(), crate::InputError> {
        check_edit(&input.old_string, &input.new_string)?;
        writable_target(&input.file_path, ctx)?;
        Ok(())
    }

    fn effects(&self, input: &EditInput, ctx: &ToolContext) -> Effects {
        Effects::editing([ctx.effect_path(&input.file_path)])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Write, field: "file_path" }
    }

    fn path_fields(&self) -> &'static [&'static str] {
        &["file_path"]
    }

    async fn call(&self, input: EditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let one =
            OneEdit { old_string: input.old_string, new_string: input.new_string, replace_all: input.replace_all };
        apply_to_file(&input.file_path, &[one], ctx)
    }
}

impl Tool for MultiEdit {
    type Input = MultiEditInput;

    fn name(&self) -> &'static str {
        "MultiEdit"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Several Edits to one file you have Read, in order and atomically (all or none); each sees the result \
         of the ones before."
            .to_string()
    }

    fn validate(&self, input: &MultiEditInput, ctx: &ToolContext) -> Result<(), crate::InputError> {
        if input.edits.is_empty() {
            return Err("edits is empty".into());
        }
        for (i, e) in input.edits.iter().enumerate() {
            check_edit(&e.old_string, &e.new_string).map_err(|m| format!("edit {}: {m}", i + 1))?;
        }
        writable_target(&input.file_path, ctx)?;
        Ok(())
    }

    fn effects(&self, input: &MultiEditInput, ctx: &ToolContext) -> Effects {
        Effects::editing([ctx.effect_path(&input.file_path)])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Write, field: "file_path" }
    }

    fn path_fields(&self) -> &'static [&'static str] {
        &["file_path"]
    }

    async fn call(&self, input: MultiEditInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        apply_to_file(&input.file_path, &input.edits, ctx)
    }
}

fn check_edit(old: &str, new: &str) -> Result<(), EditError> {
    if old == new {
        return Err(EditError::Unchanged);
    }
    Ok(())
}

/// Why an edit cannot be made.
#[derive(Debug, Clone, thiserror::Error)]
enum EditError {
    #[error("old_string and new_string are the same; there is nothing to change")]
    Unchanged,
    /// Not found; `hint` points at the closest line (or is empty).
    #[error("old_string was not found in the file.{hint}")]
    NotFound { hint: String },
    #[error(
        "old_string occurs {0} times. Include more surrounding lines to make it unique, or set replace_all to change \
         every occurrence."
    )]
    NotUnique(usize),
}

impl From<EditError> for crate::InputError {
    fn from(why: EditError) -> Self {
        crate::InputError::Refused(why.to_string())
    }
}

fn apply_to_file(file_path: &str, edits: &[OneEdit], ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
    let path = writable_target(file_path, ctx).map_err(|e| ToolError::new(e.to_string()))?;
    if !path.exists() {
        // Creating a file: the first edit's old_string must be empty.
        let Some(first) = edits.first().filter(|e| e.old_string.is_empty()) else {
            return Err(ToolError::new(format!(
                "{} does not exist. To create it, use Write or an Edit with an empty old_string.",
                path.display()
            )));
        };
        let mut text = first.new_string.clone();
        for (i, e) in edits.iter().enumerate().skip(1) {
            text = replace(&text, e).map_err(|m| ToolError::new(format!("edit {}: {m}", i + 1)))?;
        }
        write_atomic(&path, text.as_bytes(), ctx)?;
        return Ok(ToolOutput::text(format!("Created {}.", path.display())));
    }
    let bytes = read_for_change(&path, ctx)?;
    let original = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "{} is not valid UTF-8; Edit refuses to rewrite it rather than corrupt it. Use Bash tools that handle \
             its encoding.",
            path.display()
        ))
    })?;
    let crlf = original.contains("\r\n");
    let mut text = if crlf { original.replace("\r\n", "\n") } else { original };
    let mut first_change: Option<usize> = None;
    let mut last_new = 0usize;
    for (i, e) in edits.iter().enumerate() {
        let e = normalise(e);
        if e.old_string.is_empty() {
            return Err(ToolError::new(format!(
                "edit {}: old_string is empty but {} already exists; give the text to replace",
                i + 1,
                path.display()
            )));
        }
        let at = text.find(&e.old_string);
        text = replace(&text, &e).map_err(|m| {
            let m = if edits.len() > 1 { format!("edit {}: {m}", i + 1) } else { m.to_string() };
            ToolError::new(format!("{m}\nNo change was made to {}.", path.display()))
        })?;
        if let Some(at) = at {
            first_change = Some(first_change.map_or(at, |f| f.min(at)));
            last_new = last_new.max(at + e.new_string.len());
        }
    }
    let out = if crlf { text.replace('\n', "\r\n") } else { text.clone() };
    write_atomic(&path, out.as_bytes(), ctx)?;
    let start_line = first_change.map(|b| text[..b].matches('\n').count() + 1).unwrap_or(1);
    let end_line = text[..last_new.min(text.len())].matches('\n').count() + 1;
    let snippet = numbered(&text, start_line.saturating_sub(SNIPPET_CONTEXT).max(1), end_line + SNIPPET_CONTEXT);
    Ok(ToolOutput::text(format!("Edited {}; the changed lines now read:\n{snippet}", path.display())))
}

/// Models write LF; a CRLF file is matched and changed in LF form, then written back.
fn normalise(e: &OneEdit) -> OneEdit {
    OneEdit {
        old_string: e.old_string.replace("\r\n", "\n"),
        new_string: e.new_string.replace("\r\n", "\n"),
        replace_all: e.replace_all,
    }
}

/// Apply one edit to `text`, or explain why not.
fn replace(text: &str, e: &OneEdit) -> Result<String, EditError> {
    let count = text.matches(&e.old_string).count();
    match count {
        0 => Err(EditError::NotFound { hint: closest_hint(text, &e.old_string) }),
        1 => Ok(text.replacen(&e.old_string, &e.new_string, 1)),
        n if e.replace_all => {
            let _ = n;
            Ok(text.replace(&e.old_string, &e.new_string))
        }
        n => Err(EditError::NotUnique(n)),
    }
}

/// Point at the line most like the first line of `old` (a hint only; never applied).
fn closest_hint(text: &str, old: &str) -> String {
    let Some(want) = old.lines().map(str::trim).find(|l| !l.is_empty()) else { return String::new() };
    let mut best: Option<(f32, usize, &str)> = None;
    for (i, line) in text.lines().enumerate().take(20_000) {
        let line_t = line.trim();
        if line_t.is_empty() {
            continue;
        }
        let ratio = similar::TextDiff::from_chars(want, line_t).ratio();
        if best.is_none_or(|(r, _, _)| ratio > r) {
            best = Some((ratio, i + 1, line));
        }
    }
    match best {
        Some((r, n, line)) if r >= 0.6 => format!(
            " The closest line is {n}: {:?}. Check whitespace and exact characters, and Read the file again if it \
             may have changed.",
            line
        ),
        _ => " Read the file again to see its current content.".to_string(),
    }
}
