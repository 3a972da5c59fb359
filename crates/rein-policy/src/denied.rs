//! The files Read deny rules protect, found once per session: their paths and their
//! identities (device and inode). A file is the same file under any name — a hard link,
//! a bind mount, `/proc/self/root/…`, `/dev/fd/N` — so reads are compared by identity as
//! well as by path, and a recursive reader of a directory that holds a protected file
//! is denied.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::paths::PathPattern;

/// At most this many directory entries are looked at to find protected files.
const MAX_ENTRIES: usize = 50_000;
/// Directories deeper than this below a pattern's base are not searched.
const MAX_DEPTH: usize = 24;

/// The protected files that exist now.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeniedFiles {
    pub paths: Vec<PathBuf>,
    /// (device, inode) of each.
    pub ids: HashSet<(u64, u64)>,
    /// Inodes alone, for walks that know a file's inode but not its device.
    pub inodes: HashSet<u64>,
    /// Some protected file has more than one name (hard links elsewhere).
    pub linked: bool,
}

impl DeniedFiles {
    /// Find the files `patterns` match: below each pattern's literal base, or below the
    /// workspace `roots` when the base is `/`.
    pub(crate) fn find(patterns: &[&PathPattern], roots: &[PathBuf]) -> DeniedFiles {
        let mut out = DeniedFiles::default();
        for p in patterns {
            // A pattern that matches at any depth searches the workspace; any other, the
            // tree below its literal start. Either listing is made once for all the
            // patterns that share it (a settings file often has many).
            let listing = if p.base == Path::new("/") {
                crate::listing::of(roots, MAX_ENTRIES, MAX_DEPTH)
            } else {
                crate::listing::of(std::slice::from_ref(&p.base), MAX_ENTRIES, MAX_DEPTH)
            };
            for (path, meta) in listing.iter() {
                out.consider(path, meta, p);
            }
        }
        out
    }

    /// What the search does with one entry it meets: a protected directory protects
    /// everything in it; through a symlink, the file it names is protected too.
    fn consider(&mut self, path: &Path, meta: &std::fs::Metadata, p: &PathPattern) {
        if meta.is_dir() {
            if p.matches_exactly(path) {
                self.add(path, meta);
            }
        } else if p.matches(path) {
            let followed = std::fs::metadata(path).unwrap_or_else(|_| meta.clone());
            self.add(path, &followed);
        }
    }

    fn add(&mut self, path: &Path, meta: &std::fs::Metadata) {
        self.paths.push(path.to_path_buf());
        self.ids.insert((meta.dev(), meta.ino()));
        self.inodes.insert(meta.ino());
        self.linked |= meta.is_file() && meta.nlink() > 1;
    }

    /// Whether a hard link of a protected file lies anywhere below `dir` (a tree too big
    /// to walk counts as holding one).
    pub(crate) fn linked_within(&self, dir: &Path) -> bool {
        if !self.linked {
            return false;
        }
        crate::links::any_below(dir, MAX_ENTRIES, |e, kind| {
            kind.is_file() && e.metadata().is_ok_and(|m| m.nlink() > 1 && self.ids.contains(&(m.dev(), m.ino())))
        })
    }

    /// Whether `path` (following symlinks) is one of the protected files.
    pub(crate) fn is_same_file(&self, path: &Path) -> bool {
        !self.ids.is_empty() && std::fs::metadata(path).is_ok_and(|m| self.ids.contains(&(m.dev(), m.ino())))
    }

    /// Whether a protected file lies inside `dir` (by path, or `dir` is protected itself).
    pub(crate) fn inside(&self, dir: &Path) -> bool {
        let canonical = std::fs::canonicalize(dir).ok();
        self.paths.iter().any(|p| p.starts_with(dir) || canonical.as_ref().is_some_and(|c| p.starts_with(c)))
    }
}
