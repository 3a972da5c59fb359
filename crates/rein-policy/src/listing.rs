//! The entries below a folder, listed once for all the Read deny patterns that search
//! it (`**/.env`, `secrets/**` in a deny list search the workspace; `./build/**` the
//! tree below `build`): each such pattern used to walk the tree on its own. A listing is
//! reused for the same roots for a moment only (the patterns of one start), never across
//! a session's later changes.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a listing is reused.
const FRESH: Duration = Duration::from_secs(2);
/// How many recent listings are kept (one per distinct set of roots).
const KEPT: usize = 8;

type Entries = Arc<Vec<(PathBuf, std::fs::Metadata)>>;

static RECENT: Mutex<Vec<(Vec<PathBuf>, Instant, Entries)>> = Mutex::new(Vec::new());

/// Every entry below `roots` (the roots included), no link followed, at most `budget`
/// entries and `max_depth` levels, in the order a depth-first walk meets them.
pub(crate) fn of(roots: &[PathBuf], budget: usize, max_depth: usize) -> Entries {
    let mut recent = RECENT.lock().unwrap_or_else(|p| p.into_inner());
    recent.retain(|(_, at, _)| at.elapsed() < FRESH);
    if let Some((_, _, entries)) = recent.iter().find(|(r, _, _)| r.as_slice() == roots) {
        return entries.clone();
    }
    let mut out = Vec::new();
    let mut left = budget;
    for root in roots {
        walk(root, 0, max_depth, &mut left, &mut out);
    }
    let entries = Arc::new(out);
    if recent.len() >= KEPT {
        recent.remove(0);
    }
    recent.push((roots.to_vec(), Instant::now(), entries.clone()));
    entries
}

fn walk(path: &Path, depth: usize, max_depth: usize, left: &mut usize, out: &mut Vec<(PathBuf, std::fs::Metadata)>) {
    if *left == 0 || depth > max_depth {
        return;
    }
    *left -= 1;
    let Ok(meta) = std::fs::symlink_metadata(path) else { return };
    let is_dir = meta.is_dir();
    out.push((path.to_path_buf(), meta));
    if is_dir {
        let Ok(entries) = std::fs::read_dir(path) else { return };
        for e in entries.flatten() {
            walk(&e.path(), depth + 1, max_depth, left, out);
        }
    }
}
