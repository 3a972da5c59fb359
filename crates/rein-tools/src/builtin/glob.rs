//! Glob: files matching a pattern, newest first.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Tool, ToolContext, ToolError, ToolOutput};

const MAX_RESULTS: usize = 100;

pub struct Glob;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GlobInput {
    /// The glob pattern to match files against, e.g. `**/*.rs` or `src/**/*.{ts,tsx}`.
    pub pattern: String,
    /// The directory to search in. Defaults to the working directory.
    pub path: Option<String>,
}

impl Tool for Glob {
    type Input = GlobInput;

    fn name(&self) -> &'static str {
        "Glob"
    }

    fn description(&self) -> String {
        format!(
            "Fast file pattern matching for any codebase size. Supports glob patterns like `**/*.js` or \
             `src/**/*.ts`. Returns matching file paths sorted by modification time, newest first, at most \
             {MAX_RESULTS}. Respects .gitignore and skips .git. Use it to find files by name."
        )
    }

    fn is_read_only(&self, _: &GlobInput) -> bool {
        true
    }

    async fn call(&self, input: GlobInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let root = input.path.as_deref().map(|p| ctx.resolve(p)).unwrap_or_else(|| ctx.cwd.clone());
        tokio::task::spawn_blocking(move || glob(&root, &input.pattern))
            .await
            .map_err(|e| ToolError::new(format!("Glob failed: {e}")))?
    }
}

fn glob(root: &Path, pattern: &str) -> Result<ToolOutput, ToolError> {
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
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    let walker = ignore::WalkBuilder::new(root).hidden(false).filter_entry(|e| e.file_name() != ".git").build();
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else { continue };
        if matcher.is_match(rel) {
            let mtime = entry.metadata().ok().and_then(|m| m.modified().ok()).unwrap_or(SystemTime::UNIX_EPOCH);
            found.push((mtime, entry.into_path()));
        }
    }
    if found.is_empty() {
        return Ok(ToolOutput::text("No files found"));
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let total = found.len();
    let mut out: Vec<String> = found.iter().take(MAX_RESULTS).map(|(_, p)| p.display().to_string()).collect();
    if total > MAX_RESULTS {
        out.push(format!(
            "(Results are truncated: showing {MAX_RESULTS} of {total} files. Use a more specific path or pattern.)"
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
        std::fs::write(d.path().join("src/a.rs"), "").unwrap();
        std::fs::write(d.path().join("src/inner/b.rs"), "").unwrap();
        std::fs::write(d.path().join("top.rs"), "").unwrap();
        std::fs::write(d.path().join("ignored.rs"), "").unwrap();
        std::fs::write(d.path().join(".gitignore"), "ignored.rs\n").unwrap();
        let all = text(glob(d.path(), "**/*.rs").unwrap());
        assert_eq!(all.lines().count(), 3, "{all}");
        assert!(!all.contains("ignored.rs"));
        let shallow = text(glob(d.path(), "*.rs").unwrap());
        assert_eq!(shallow.trim(), d.path().join("top.rs").display().to_string());
        assert_eq!(text(glob(d.path(), "*.py").unwrap()), "No files found");
        assert!(glob(d.path(), "a[").is_err());
    }
}
