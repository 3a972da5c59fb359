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
