//! Parallel directory walks with ripgrep's `ignore` crate, shared by Glob and Grep:
//! .gitignore, .ignore and git's excludes respected, `.git` skipped, hidden files seen.

use std::path::Path;
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};
use rein_effects::ReadGuard;

/// How many threads a walk uses.
fn threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get().min(8)).unwrap_or(2)
}

/// A walker over `root` with rein's defaults; callers add filters.
pub(super) fn walker(root: &Path) -> WalkBuilder {
    let mut b = WalkBuilder::new(root);
    b.hidden(false).filter_entry(|e| e.file_name() != ".git").threads(threads());
    b
}

/// Trees with at most this many files are walked on the calling thread: starting the
/// parallel walker's threads costs more than a small walk (about 1 ms a call, measured
/// with scripts/bench).
const SMALL_TREE: usize = 2_000;

/// Visit every file under the walk, in parallel when the tree is large, leaving out
/// the files `guard` forbids reading (a Read deny rule, by any name of the file).
/// `visit` returns `false` to stop the whole walk early. Results are gathered by the
/// caller through `visit`'s captures.
pub(super) fn for_each_file<F>(builder: &WalkBuilder, guard: Option<&dyn ReadGuard>, visit: F)
where
    F: Fn(&ignore::DirEntry) -> bool + Sync,
{
    let denied = |e: &ignore::DirEntry| guard.is_some_and(|g| g.denies(e.path(), e.ino()));
    let visit = |e: &ignore::DirEntry| denied(e) || visit(e);
    let mut small = Vec::new();
    let mut large = false;
    for entry in builder.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if small.len() == SMALL_TREE {
            large = true;
            break;
        }
        small.push(entry);
    }
    if !large {
        for entry in &small {
            if !visit(entry) {
                return;
            }
        }
        return;
    }
    drop(small);
    let visit = &visit;
    builder.build_parallel().run(|| {
        Box::new(move |entry| {
            let Ok(entry) = entry else { return WalkState::Continue };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            if visit(&entry) { WalkState::Continue } else { WalkState::Quit }
        })
    });
}

/// A vector many walker threads can push to.
pub(super) struct Collected<T>(Mutex<Vec<T>>);

impl<T> Collected<T> {
    pub(super) fn new() -> Self {
        Collected(Mutex::new(Vec::new()))
    }

    /// Push and return the new length.
    pub(super) fn push(&self, item: T) -> usize {
        let mut v = self.0.lock().unwrap_or_else(|p| p.into_inner());
        v.push(item);
        v.len()
    }

    pub(super) fn into_inner(self) -> Vec<T> {
        self.0.into_inner().unwrap_or_else(|p| p.into_inner())
    }
}
