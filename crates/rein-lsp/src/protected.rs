//! Before a server starts: does its workspace hold a file the Read rules protect that the
//! server would read (one of its languages, or JSON, which code imports)? A server reads
//! the files itself, and its hovers and diagnostics quote what it read, so rein cannot
//! filter what it says; it is not started instead. One walk, every file (hidden and
//! ignored ones too: a server reads those), `.git` left out, bounded.

use std::path::{Path, PathBuf};

use crate::ServerSpec;

/// At most this many entries are looked at.
const MAX_ENTRIES: usize = 200_000;

/// The first protected file `spec`'s server would read under `root`.
pub(crate) fn file_it_would_read(
    spec: &ServerSpec,
    root: &Path,
    guard: &dyn rein_effects::ReadGuard,
) -> Option<PathBuf> {
    let walk = ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walk.take(MAX_ENTRIES).flatten() {
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file() || t.is_symlink()) {
            continue;
        }
        let read = spec.language_of(path).is_some() || path.extension().is_some_and(|e| e == "json");
        if read && guard.denies(path, None) {
            return Some(path.to_path_buf());
        }
    }
    None
}
