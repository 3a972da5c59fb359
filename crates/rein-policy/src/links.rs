//! Trees read following symbolic links (`grep -R`, `rg -L`, `find -L`): a link inside
//! the tree can lead anywhere, so such a read stays in the workspace only when no link
//! in the tree resolves outside it.

use std::path::{Path, PathBuf};

/// At most this many entries are looked at; a bigger tree is taken as leading out.
const BUDGET: usize = 20_000;

/// Whether some symbolic link below `dir` resolves outside `roots` (or the tree is too
/// big to tell).
pub(crate) fn leads_outside(dir: &Path, roots: &[PathBuf]) -> bool {
    any_below(dir, BUDGET, |e, kind| {
        kind.is_symlink() && !std::fs::canonicalize(e.path()).is_ok_and(|t| roots.iter().any(|r| t.starts_with(r)))
    })
}

/// Why bash's splitting and globbing of a listing of `trees` would not give back exactly
/// their files (`cat $(find src)`): a name, on disk or in the index, holding whitespace, a
/// glob character or what git quotes, or starting with `-` or `@` (or a tree too big to
/// look at, an unreadable index, a changed IFS).
pub(crate) fn split_hazard(shell: &rein_effects::ShellCommand, trees: &[rein_bash::Word]) -> Option<String> {
    if shell.state.changed_env.iter().any(|v| v == "IFS") {
        return Some("the session shell's IFS was changed".into());
    }
    // Also what git prints C-quoted (`"src/\303\251"`): non-ASCII, `"`, `\`, controls.
    let odd = |name: &str| {
        name.starts_with(['-', '@'])
            || name.contains(['*', '?', '[', '"', '\\'])
            || name.chars().any(|c| c.is_whitespace() || c.is_control() || !c.is_ascii())
    };
    // `git ls-files` prints the index's names, which need not be on disk (read once).
    let tracked = match shell.in_repository(None).then(|| shell.tracked_in(None)) {
        Some(None) => return Some("the repository's index cannot be read".into()),
        Some(Some(t)) => Some(t),
        None => None,
    };
    for w in trees {
        if odd(&w.text) {
            return Some(format!("`{}` holds whitespace, a glob character or what git quotes", w.text));
        }
        let Some(dirs) = shell.paths_of(w) else {
            return Some(format!("`{}` is only known at run time", w.text));
        };
        if let Some(tracked) = &tracked {
            let hit = tracked.iter().find(|t| {
                dirs.iter().any(|d| {
                    t.strip_prefix(d).is_ok_and(|rest| rest.components().any(|c| odd(&c.as_os_str().to_string_lossy())))
                })
            });
            if let Some(t) = hit {
                return Some(format!("{} (in the index)", t.display()));
            }
        }
        for dir in dirs {
            let mut hit = None;
            let big = any_below(&dir, BUDGET, |e, _| {
                let name = e.file_name().to_string_lossy().into_owned();
                let found = odd(&name);
                if found {
                    hit = Some(e.path().display().to_string());
                }
                found
            });
            if big {
                return Some(hit.unwrap_or_else(|| format!("{} (too many files to look at)", dir.display())));
            }
        }
    }
    None
}

/// Whether `found` holds for some entry below `dir` (links not followed), or the tree
/// has more than `budget` entries: a tree too big to look at counts as holding one.
pub(crate) fn any_below(
    dir: &Path,
    mut budget: usize,
    mut found: impl FnMut(&std::fs::DirEntry, std::fs::FileType) -> bool,
) -> bool {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            if budget == 0 {
                return true;
            }
            budget -= 1;
            let Ok(kind) = e.file_type() else { continue };
            if found(&e, kind) {
                return true;
            }
            if kind.is_dir() {
                stack.push(e.path());
            }
        }
    }
    false
}
