//! `@path` mentions: the project's files (walked once with the `ignore` crate, so
//! `.gitignore` holds) matched fuzzily against what follows the `@`; Tab takes the best.

use std::path::Path;

/// Files walked at most.
const MAX_FILES: usize = 20_000;
/// Candidates shown.
pub(crate) const SHOWN: usize = 5;

/// The project's files, relative to `root`; with `respect_gitignore` (the
/// `respectGitignore` setting, on by default) what git ignores is left out.
pub(crate) fn project_files(root: &Path, respect_gitignore: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut walk = ignore::WalkBuilder::new(root);
    walk.hidden(false).filter_entry(|e| e.file_name() != ".git");
    if !respect_gitignore {
        walk.git_ignore(false).git_global(false).git_exclude(false);
    }
    for entry in walk.build().flatten() {
        if entry.file_type().is_some_and(|t| t.is_file())
            && let Ok(rel) = entry.path().strip_prefix(root)
        {
            out.push(rel.display().to_string());
            if out.len() >= MAX_FILES {
                break;
            }
        }
    }
    out.sort();
    out
}

/// Files whose path holds the letters of `query` in order, best first (shorter spans
/// and matches in the file name first).
pub(crate) fn matches<'a>(files: &'a [String], query: &str) -> Vec<&'a str> {
    let q: Vec<char> = query.to_lowercase().chars().collect();
    let mut scored: Vec<(usize, &str)> =
        files.iter().filter_map(|f| score(&f.to_lowercase(), &q).map(|s| (s, f.as_str()))).collect();
    scored.sort();
    scored.into_iter().take(SHOWN).map(|(_, f)| f).collect()
}

/// Lower is better: the span the letters cover, plus a penalty outside the file name.
fn score(path: &str, q: &[char]) -> Option<usize> {
    if q.is_empty() {
        return Some(path.len());
    }
    let chars: Vec<char> = path.chars().collect();
    let name_start = path.rfind('/').map(|i| path[..i + 1].chars().count()).unwrap_or(0);
    let mut best: Option<usize> = None;
    for start in (0..chars.len()).filter(|&i| chars[i] == q[0]) {
        let mut at = start;
        let mut ok = true;
        for c in &q[1..] {
            match chars[at + 1..].iter().position(|x| x == c) {
                Some(p) => at += 1 + p,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            let span = at - start + if start < name_start { 50 } else { 0 } + chars.len() / 10;
            best = Some(best.map_or(span, |b: usize| b.min(span)));
        }
    }
    best
}

/// The `@word` the cursor is in, if any: its byte range in `text` and the query.
pub(crate) fn current(text: &str) -> Option<(usize, String)> {
    let start = text.rfind(|c: char| c.is_whitespace()).map(|i| i + 1).unwrap_or(0);
    let word = &text[start..];
    word.strip_prefix('@').map(|q| (start, q.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_matching_prefers_the_file_name() {
        let files: Vec<String> =
            ["src/main.rs", "src/matching.rs", "docs/manual.md", "Cargo.toml"].iter().map(|s| s.to_string()).collect();
        assert_eq!(matches(&files, "main")[0], "src/main.rs");
        assert_eq!(matches(&files, "mtch")[0], "src/matching.rs");
        assert!(matches(&files, "zzz").is_empty());
        assert_eq!(current("look at @src/ma"), Some((8, "src/ma".into())));
        assert_eq!(current("no mention"), None);
    }
}
