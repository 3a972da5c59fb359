//! Glob: files matching a pattern, newest first.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use schemars::JsonSchema;
use serde::Deserialize;

use super::walk::{Collected, for_each_file, walker};
use crate::{Access, Effects, PathNames, ReadGuard, RuleKind, Tool, ToolContext, ToolError, ToolOutput};

const MAX_RESULTS: usize = 100;
/// A walk stops after this many matches, so a pattern matching millions returns fast.
const MAX_SCANNED: usize = 20_000;

pub struct Glob;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobInput {
    pub pattern: String,
    /// Default: the working directory.
    pub path: Option<String>,
}

impl Tool for Glob {
    type Input = GlobInput;

    fn name(&self) -> &'static str {
        "Glob"
    }

    /// It reads and changes nothing: a repeat of an earlier identical result is a pointer.
    fn collapses_repeats(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        format!(
            "Finds files by glob pattern (`**/*.rs`, `web/**/*.{{ts,tsx}}`; `*` stays within a directory), newest \
             first, at most {MAX_RESULTS}. Respects .gitignore."
        )
    }

    /// The folder searched, and where the walk really starts: a pattern's leading
    /// folders may pass through a link to somewhere else, whose names the rules then judge.
    fn effects(&self, input: &GlobInput, ctx: &ToolContext) -> Effects {
        let folder = input.path.as_deref().unwrap_or(".");
        let root = ctx.resolve(folder);
        let relative = Path::new(&input.pattern).strip_prefix(&root).map(|p| p.to_string_lossy().into_owned());
        let start = root.join(literal_prefix(relative.as_deref().unwrap_or(&input.pattern)));
        Effects::reading([ctx.effect_path(folder), ctx.effect_path(&start.to_string_lossy())])
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Path { access: Access::Read, field: "path" }
    }

    async fn call(&self, input: GlobInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = input.path.as_deref().map(|p| ctx.resolve(p)).unwrap_or_else(|| ctx.cwd.clone());
        let guard = ctx.read_guard.clone();
        let names = PathNames::relative_to(&ctx.cwd);
        tokio::task::spawn_blocking(move || glob(&root, &input.pattern, guard.as_deref(), &names))
            .await
            .map_err(|e| ToolError::new(format!("Glob failed: {e}")))?
    }
}

/// The leading directories of a pattern that hold no glob syntax: the walk starts there.
fn literal_prefix(pattern: &str) -> PathBuf {
    let mut prefix = PathBuf::new();
    let parts: Vec<&str> = pattern.split('/').collect();
    for part in &parts[..parts.len().saturating_sub(1)] {
        if part.is_empty() || part.contains(['*', '?', '[', '{', '\\']) || *part == ".." {
            break;
        }
        prefix.push(part);
    }
    prefix
}

/// The files under `root` matching `pattern`, newest first, named by `names`.
pub(super) fn glob(
    root: &Path,
    pattern: &str,
    guard: Option<&dyn ReadGuard>,
    names: &PathNames,
) -> Result<ToolOutput, ToolError> {
    if !root.is_dir() {
        return Err(ToolError::new(format!("{} is not a directory", root.display())));
    }
    // An absolute pattern under the root is matched relative to it.
    let relative = Path::new(pattern).strip_prefix(root).map(|p| p.to_string_lossy().into_owned());
    let pattern = relative.as_deref().unwrap_or(pattern);
    let matcher = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| ToolError::new(format!("Invalid glob pattern {pattern:?}: {e}")))?
        .compile_matcher();
    let start = root.join(literal_prefix(pattern));
    if !start.is_dir() {
        return Ok(ToolOutput::text("No files found"));
    }
    let found: Collected<(SystemTime, PathBuf)> = Collected::new();
    let seen = AtomicUsize::new(0);
    for_each_file(&walker(&start), guard, |entry| {
        let Ok(rel) = entry.path().strip_prefix(root) else { return true };
        if !matcher.is_match(rel) {
            return true;
        }
        if seen.fetch_add(1, Ordering::Relaxed) >= MAX_SCANNED {
            return false;
        }
        let mtime = entry.metadata().ok().and_then(|m| m.modified().ok()).unwrap_or(SystemTime::UNIX_EPOCH);
        found.push((mtime, entry.path().to_path_buf()));
        true
    });
    let mut found = found.into_inner();
    if found.is_empty() {
        return Ok(ToolOutput::text("No files found"));
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut out: Vec<String> = found.iter().take(MAX_RESULTS).map(|(_, p)| names.name(p)).collect();
    if seen.load(Ordering::Relaxed) > MAX_SCANNED {
        out.push(format!(
            "(More than {MAX_SCANNED} files match; showing the newest {MAX_RESULTS} of the first {MAX_SCANNED} found. \
             Use a more specific pattern or path.)"
        ));
    } else if total > MAX_RESULTS {
        out.push(format!(
            "(Results are truncated: showing {MAX_RESULTS} of {total} files, {} more. Use a more specific path or \
             pattern.)",
            total - MAX_RESULTS
        ));
    }
    Ok(ToolOutput::text(out.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rein_protocol::ToolResultContent;

    fn text(o: ToolOutput) -> String {
        match o.content {
            ToolResultContent::Text(t) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn matches_relative_to_root_and_respects_gitignore() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src/inner")).unwrap();
        std::fs::create_dir_all(d.path().join(".git")).unwrap();
        std::fs::write(d.path().join(".git/x.rs"), "").unwrap();
        std::fs::write(d.path().join("src/a.rs"), "").unwrap();
        std::fs::write(d.path().join("src/inner/b.rs"), "").unwrap();
        std::fs::write(d.path().join("top.rs"), "").unwrap();
        std::fs::write(d.path().join("ignored.rs"), "").unwrap();
        std::fs::write(d.path().join(".gitignore"), "ignored.rs\n").unwrap();
        let all = text(glob(d.path(), "**/*.rs", None, &PathNames::absolute()).unwrap());
        assert_eq!(all.lines().count(), 3, "{all}");
        assert!(!all.contains("ignored.rs") && !all.contains(".git/"));
        let shallow = text(glob(d.path(), "*.rs", None, &PathNames::absolute()).unwrap());
        assert_eq!(shallow.trim(), d.path().join("top.rs").display().to_string());
        let prefixed = text(glob(d.path(), "src/inner/*.rs", None, &PathNames::absolute()).unwrap());
        assert!(prefixed.ends_with("src/inner/b.rs"), "{prefixed}");
        assert_eq!(text(glob(d.path(), "*.py", None, &PathNames::absolute()).unwrap()), "No files found");
        assert_eq!(text(glob(d.path(), "nowhere/*.py", None, &PathNames::absolute()).unwrap()), "No files found");
        assert!(glob(d.path(), "a[", None, &PathNames::absolute()).is_err());
    }

    #[test]
    fn newest_first_and_capped_with_a_count() {
        let d = tempfile::tempdir().unwrap();
        for i in 0..130 {
            std::fs::write(d.path().join(format!("f{i:03}.txt")), "").unwrap();
        }
        let newest = d.path().join("f007.txt");
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        std::fs::File::options().write(true).open(&newest).unwrap().set_modified(later).unwrap();
        let out = text(glob(d.path(), "*.txt", None, &PathNames::absolute()).unwrap());
        assert_eq!(out.lines().next().unwrap(), newest.display().to_string());
        assert_eq!(out.lines().count(), 101);
        assert!(out.contains("showing 100 of 130 files, 30 more"), "{out}");
    }
}
