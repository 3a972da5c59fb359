//! Grep: ripgrep's regex engine and searcher, in process.

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, SearcherBuilder, sinks};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Tool, ToolContext, ToolError, ToolOutput};

const DEFAULT_HEAD_LIMIT: usize = 250;

pub struct Grep;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Lines that match, with line numbers.
    Content,
    /// Paths of files that match (the default).
    #[default]
    FilesWithMatches,
    /// Match counts per file.
    Count,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepInput {
    /// The regular expression to search for (ripgrep syntax).
    pub pattern: String,
    /// File or directory to search in. Defaults to the working directory.
    pub path: Option<String>,
    /// Only search files whose path matches this glob, e.g. `*.js` or `*.{ts,tsx}`.
    pub glob: Option<String>,
    /// What to return: `content`, `files_with_matches` (default) or `count`.
    pub output_mode: Option<OutputMode>,
    /// Case-insensitive search.
    #[serde(rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Show line numbers in content mode (default true).
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    /// Return at most this many lines or entries (default 250).
    pub head_limit: Option<usize>,
}

impl Tool for Grep {
    type Input = GrepInput;

    fn name(&self) -> &'static str {
        "Grep"
    }

    fn description(&self) -> String {
        "A powerful search tool built on ripgrep. Supports full regex syntax (e.g. `log.*Error`, `fn\\s+\\w+`). \
         Filter files with `glob`. Output modes: `files_with_matches` (default, file paths), `content` (matching \
         lines), `count`. Respects .gitignore. Use it instead of grep or rg through Bash."
            .to_string()
    }

    fn is_read_only(&self, _: &GrepInput) -> bool {
        true
    }

    async fn call(&self, input: GrepInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = input.path.as_deref().map(|p| ctx.resolve(p)).unwrap_or_else(|| ctx.cwd.clone());
        tokio::task::spawn_blocking(move || grep(&root, &input))
            .await
            .map_err(|e| ToolError::new(format!("Grep failed: {e}")))?
    }
}

fn grep(root: &Path, input: &GrepInput) -> Result<ToolOutput, ToolError> {
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(input.case_insensitive.unwrap_or(false))
        .build(&input.pattern)
        .map_err(|e| ToolError::new(format!("Invalid regex {:?}: {e}", input.pattern)))?;
    let filter = match &input.glob {
        Some(g) => Some(
            globset::Glob::new(g).map_err(|e| ToolError::new(format!("Invalid glob {g:?}: {e}")))?.compile_matcher(),
        ),
        None => None,
    };
    let mode = input.output_mode.unwrap_or_default();
    let numbers = input.line_numbers.unwrap_or(true);
    let limit = input.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT);
    let mut searcher = SearcherBuilder::new().binary_detection(BinaryDetection::quit(0)).line_number(true).build();
    let mut out: Vec<String> = Vec::new();
    let mut truncated = false;
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .filter_entry(|e| e.file_name() != ".git")
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        if let Some(f) = &filter {
            let name_only = path.file_name().map(Path::new).unwrap_or(path);
            if !f.is_match(name_only) && !f.is_match(path.strip_prefix(root).unwrap_or(path)) {
                continue;
            }
        }
        let mut lines: Vec<String> = Vec::new();
        let result = searcher.search_path(
            &matcher,
            path,
            sinks::UTF8(|n, line| {
                lines.push(format!("{n}:{}", line.trim_end_matches(['\n', '\r'])));
                Ok(true)
            }),
        );
        if result.is_err() || lines.is_empty() {
            continue;
        }
        let shown = path.display();
        match mode {
            OutputMode::FilesWithMatches => out.push(shown.to_string()),
            OutputMode::Count => out.push(format!("{shown}:{}", lines.len())),
            OutputMode::Content => {
                for l in lines {
                    let l = if numbers { l } else { l.split_once(':').map(|x| x.1.to_string()).unwrap_or(l) };
                    out.push(format!("{shown}:{l}"));
                }
            }
        }
        if out.len() > limit {
            truncated = true;
            out.truncate(limit);
            break;
        }
    }
    if out.is_empty() {
        return Ok(ToolOutput::text("No matches found"));
    }
    if truncated {
        out.push(format!("(Results are truncated at {limit}; narrow the search or raise head_limit.)"));
    }
    Ok(ToolOutput::text(out.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::ToolResultContent;

    fn input(pattern: &str) -> GrepInput {
        GrepInput {
            pattern: pattern.into(),
            path: None,
            glob: None,
            output_mode: None,
            case_insensitive: None,
            line_numbers: None,
            head_limit: None,
        }
    }

    fn text(o: ToolOutput) -> String {
        match o.content {
            ToolResultContent::Text(t) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn modes_and_filters() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.rs"), "fn main() {}\nfn helper() {}\n").unwrap();
        std::fs::write(d.path().join("b.py"), "def main():\n    pass\n").unwrap();
        let files = text(grep(d.path(), &input("main")).unwrap());
        assert_eq!(files.lines().count(), 2);
        let content =
            text(grep(d.path(), &GrepInput { output_mode: Some(OutputMode::Content), ..input("fn \\w+") }).unwrap());
        assert!(content.contains("a.rs:2:fn helper() {}"), "{content}");
        let count = text(grep(d.path(), &GrepInput { output_mode: Some(OutputMode::Count), ..input("fn") }).unwrap());
        assert!(count.ends_with("a.rs:2"), "{count}");
        let only_py = text(grep(d.path(), &GrepInput { glob: Some("*.py".into()), ..input("MAIN") }).unwrap());
        assert_eq!(only_py, "No matches found");
        let ci = text(
            grep(d.path(), &GrepInput { glob: Some("*.py".into()), case_insensitive: Some(true), ..input("MAIN") })
                .unwrap(),
        );
        assert!(ci.ends_with("b.py"), "{ci}");
        assert!(grep(d.path(), &input("(unclosed")).unwrap_err().0.contains("Invalid regex"));
    }
}
