//! Grep: ripgrep's regex engine, searcher and walker, in process, with ripgrep's
//! semantics (.gitignore respected, `-g` globs as overrides, `--type` from ripgrep's
//! own type table, binary files skipped).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use schemars::JsonSchema;
use serde::Deserialize;

use super::grep_sink::{FileHits, HitSink};
use super::walk::{Collected, for_each_file, walker};
use crate::{Access, Effects, PathNames, ReadGuard, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

const DEFAULT_HEAD_LIMIT: usize = 250;

pub struct Grep;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines, with line numbers and any context lines asked for.
    Content,
    /// Paths of files that match, newest first (the default).
    #[default]
    FilesWithMatches,
    /// Matching lines per file.
    Count,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct GrepInput {
    pub pattern: String,
    /// Default: the working directory.
    pub path: Option<String>,
    /// Only files matching this glob, e.g. `*.{ts,tsx}`.
    pub glob: Option<String>,
    /// Only files of this type, e.g. `py`, `rust`.
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    pub output_mode: Option<OutputMode>,
    #[serde(rename = "-i")]
    pub case_insensitive: Option<bool>,
    /// Line numbers in content mode (default true).
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    // Context lines after, before and around each match, named as rg names them (and
    // left undescribed: the names say it, and every request carries the schema).
    #[serde(rename = "-A")]
    pub after: Option<usize>,
    #[serde(rename = "-B")]
    pub before: Option<usize>,
    #[serde(rename = "-C")]
    pub context: Option<usize>,
    pub multiline: Option<bool>,
    /// At most this many results (default 250; 0: all).
    pub head_limit: Option<usize>,
    /// Skip this many results first.
    pub offset: Option<usize>,
}

impl Tool for Grep {
    type Input = GrepInput;

    fn name(&self) -> &'static str {
        "Grep"
    }

    /// It reads and changes nothing: a repeat of an earlier identical result is a pointer.
    fn collapses_repeats(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Searches file contents with ripgrep regexes (`fn \\w+_test`; escape literal braces: `Vec\\{\\}`). \
         Modes: files_with_matches (default; newest first), content (lines; -A/-B/-C context, -n numbers), \
         count. Respects .gitignore."
            .to_string()
    }

    fn validate(&self, input: &GrepInput, _: &ToolContext) -> Result<(), crate::InputError> {
        matcher(input).map(|_| ()).map_err(|e| e.0.into())
    }

    fn effects(&self, input: &GrepInput, ctx: &ToolContext) -> Effects {
        Effects::reading([ctx.effect_path(input.path.as_deref().unwrap_or("."))])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Read, field: "path" }
    }

    fn max_result_chars(&self) -> Option<usize> {
        Some(20_000)
    }

    async fn call(&self, input: GrepInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = input.path.as_deref().map(|p| ctx.resolve(p)).unwrap_or_else(|| ctx.cwd.clone());
        let guard = ctx.read_guard.clone();
        let names = PathNames::relative_to(&ctx.cwd);
        tokio::task::spawn_blocking(move || grep(&root, &input, guard.as_deref(), &names))
            .await
            .map_err(|e| ToolError::new(format!("Grep failed: {e}")))?
    }
}

fn matcher(input: &GrepInput) -> Result<RegexMatcher, ToolError> {
    let multiline = input.multiline.unwrap_or(false);
    RegexMatcherBuilder::new()
        .case_insensitive(input.case_insensitive.unwrap_or(false))
        .multi_line(true)
        .dot_matches_new_line(multiline)
        .build(&input.pattern)
        .map_err(|e| ToolError::new(format!("Invalid regex {:?}: {e}", input.pattern)))
}

fn searcher(input: &GrepInput, mode: OutputMode) -> Searcher {
    let (before, after) = match mode {
        OutputMode::Content => {
            let c = input.context.unwrap_or(0);
            (input.before.unwrap_or(c), input.after.unwrap_or(c))
        }
        _ => (0, 0),
    };
    SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .multi_line(input.multiline.unwrap_or(false))
        .before_context(before)
        .after_context(after)
        .build()
}

/// Search under `root`; files are named by `names`.
pub(super) fn grep(
    root: &Path,
    input: &GrepInput,
    guard: Option<&dyn ReadGuard>,
    names: &PathNames,
) -> Result<ToolOutput, ToolError> {
    let matcher = matcher(input)?;
    let mode = input.output_mode.unwrap_or_default();
    if !root.exists() {
        return Err(ToolError::new(format!("{} does not exist", root.display())));
    }
    let single_file = root.is_file();
    let mut builder = walker(root);
    if let Some(globs) = &input.glob {
        let mut o = ignore::overrides::OverrideBuilder::new(root);
        for g in globs.split_whitespace() {
            o.add(g).map_err(|e| ToolError::new(format!("Invalid glob {g:?}: {e}")))?;
        }
        builder.overrides(o.build().map_err(|e| ToolError::new(format!("Invalid glob: {e}")))?);
    }
    if let Some(t) = &input.file_type {
        let mut types = ignore::types::TypesBuilder::new();
        types.add_defaults();
        if !types.definitions().iter().any(|d| d.name() == t) {
            return Err(ToolError::new(format!(
                "Unknown file type {t:?}; use ripgrep's type names (rust, py, js, ts, go, …)"
            )));
        }
        types.select(t);
        builder.types(types.build().map_err(|e| ToolError::new(format!("Invalid type {t:?}: {e}")))?);
    }
    let hits: Collected<(PathBuf, FileHits)> = Collected::new();
    let failed = AtomicBool::new(false);
    let search = |path: &Path| {
        let mut searcher = searcher(input, mode);
        let mut sink = HitSink::new(mode == OutputMode::FilesWithMatches);
        if searcher.search_path(&matcher, path, &mut sink).is_err() {
            failed.store(true, Ordering::Relaxed);
            return;
        }
        if let Some(h) = sink.finish() {
            hits.push((path.to_path_buf(), h));
        }
    };
    if single_file {
        search(root);
    } else {
        for_each_file(&builder, guard, |entry| {
            search(entry.path());
            true
        });
    }
    let mut hits = hits.into_inner();
    if hits.is_empty() {
        return Ok(ToolOutput::text("No matches found"));
    }
    let mut lines: Vec<String> = Vec::new();
    match mode {
        OutputMode::FilesWithMatches => {
            let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
            let mut with_time: Vec<(SystemTime, PathBuf)> = hits.into_iter().map(|(p, _)| (mtime(&p), p)).collect();
            with_time.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            lines.extend(with_time.into_iter().map(|(_, p)| names.name(&p)));
        }
        OutputMode::Count => {
            hits.sort_by(|a, b| a.0.cmp(&b.0));
            lines.extend(hits.iter().map(|(p, h)| format!("{}:{}", names.name(p), h.match_lines)));
        }
        OutputMode::Content => {
            hits.sort_by(|a, b| a.0.cmp(&b.0));
            let numbers = input.line_numbers.unwrap_or(true);
            for (path, h) in &hits {
                let prefix = if single_file { String::new() } else { names.name(path) };
                lines.extend(h.render(&prefix, numbers));
            }
        }
    }
    Ok(ToolOutput::text(page(lines, input.offset.unwrap_or(0), input.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT))))
}

/// Apply offset and head_limit, with a note when more remain.
fn page(lines: Vec<String>, offset: usize, limit: usize) -> String {
    let total = lines.len();
    let limit = if limit == 0 { usize::MAX } else { limit };
    let shown: Vec<String> = lines.into_iter().skip(offset).take(limit).collect();
    let end = offset + shown.len();
    let mut out = shown.join("\n");
    if shown.is_empty() {
        out = format!("No results at offset {offset} ({total} in all)");
    } else if end < total {
        out.push_str(&format!(
            "\n\n(Showing results {}-{end} of {total}. Use offset {end} to see more, or narrow the search.)",
            offset + 1
        ));
    }
    out
}
