//! Read/Edit path patterns with gitignore anchors (spec §B3), and the files Read deny
//! rules protect, found once per session: their paths and their identities (device and
//! inode). A file is the same file under any name — a hard link, a bind mount,
//! `/proc/self/root/…`, `/dev/fd/N` — so reads are compared by identity as well as by
//! path, and a recursive reader of a directory that holds a protected file is denied.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rein_effects::lexical;

use crate::ListKind;

/// A compiled path pattern.
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    matcher: globset::GlobMatcher,
    /// The absolute pattern's literal start (up to its first glob character): where
    /// the files it names can be found.
    pub base: PathBuf,
    /// The files it names, found the first time a decision needs them.
    files: std::sync::Arc<std::sync::OnceLock<DeniedFiles>>,
}

impl PathPattern {
    /// `//abs`, `~/p`, `/p` (relative to `anchor`, the settings file's root), `p` or
    /// `./p` (relative to cwd). A bare name matches at any depth; a one-segment directory
    /// pattern (`src/**`) does too in deny and ask lists.
    pub(crate) fn new(
        spec: &str,
        kind: ListKind,
        cwd: &Path,
        anchor: &Path,
        home: Option<&Path>,
    ) -> Result<Self, crate::spec_error::SpecError> {
        let absolute = rein_effects::rule_glob(spec, kind != ListKind::Allow, cwd, anchor, home)?;
        let glob = globset::GlobBuilder::new(&absolute)
            .literal_separator(true)
            .build()
            .map_err(crate::spec_error::SpecError::Glob)?;
        let literal = absolute.find(['*', '?', '[', '{']).map_or(absolute.as_str(), |i| &absolute[..i]);
        let base = match literal.rfind('/') {
            Some(i) if literal.len() < absolute.len() => PathBuf::from(&literal[..i.max(1)]),
            _ => PathBuf::from(literal),
        };
        Ok(PathPattern { matcher: glob.compile_matcher(), base, files: Default::default() })
    }

    /// The files the pattern names now (found once; below `roots` when it names no
    /// directory of its own).
    pub(crate) fn files(&self, roots: &[PathBuf]) -> &DeniedFiles {
        self.files.get_or_init(|| DeniedFiles::find(&[self], roots))
    }

    /// The pattern matches `path` itself.
    pub(crate) fn matches_exactly(&self, path: &Path) -> bool {
        self.matcher.is_match(path)
    }

    /// The pattern matches `path` or a directory above it.
    pub(crate) fn matches(&self, path: &Path) -> bool {
        path.ancestors().any(|p| p.as_os_str().len() > 1 && self.matcher.is_match(p))
    }

    /// Like [`matches`](Self::matches), and also when `path` is a directory holding
    /// matching files (a search of it would read them).
    pub(crate) fn matches_within(&self, path: &Path) -> bool {
        self.matches(path) || self.matcher.is_match(path.join("\u{1}probe"))
    }
}

/// `path` as written (made absolute) and with symlinks resolved, both.
pub(crate) fn spellings(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let canonical = canonical_guess(path);
    if canonical != path {
        out.push(canonical);
    }
    out
}

/// Canonical form of a path that may not exist: resolve what exists, append the rest.
pub(crate) fn canonical_guess(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(n), Some(p)) => {
                rest.push(n);
                existing = p;
            }
            _ => break,
        }
    }
    let mut out = std::fs::canonicalize(existing).unwrap_or_else(|_| lexical(existing));
    for part in rest.iter().rev() {
        if *part == ".." {
            out.pop();
        } else if *part != "." {
            out.push(part);
        }
    }
    out
}

/// Whether `path` lies inside one of `roots` (whole components).
pub(crate) fn inside(path: &Path, roots: &[PathBuf]) -> bool {
    let c = canonical_guess(path);
    roots.iter().any(|r| c.starts_with(r))
}

// The files Read deny rules protect, found once per session.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str, kind: ListKind) -> PathPattern {
        PathPattern::new(s, kind, Path::new("/w"), Path::new("/anchor"), Some(Path::new("/home/u"))).unwrap()
    }

    #[test]
    fn anchors() {
        assert!(pat("//etc/passwd", ListKind::Deny).matches(Path::new("/etc/passwd")));
        assert!(pat("~/.ssh/**", ListKind::Deny).matches(Path::new("/home/u/.ssh/id_rsa")));
        assert!(pat("/secrets/*", ListKind::Deny).matches(Path::new("/anchor/secrets/a")));
        assert!(pat("./.env", ListKind::Deny).matches(Path::new("/w/.env")));
        assert!(!pat("./.env", ListKind::Deny).matches(Path::new("/w/sub/.env")));
        assert!(pat(".env", ListKind::Deny).matches(Path::new("/w/sub/deep/.env")));
        assert!(pat("src/*.rs", ListKind::Allow).matches(Path::new("/w/src/a.rs")));
        assert!(!pat("src/*.rs", ListKind::Allow).matches(Path::new("/w/src/x/a.rs")));
        assert!(pat("src/**", ListKind::Deny).matches(Path::new("/w/a/src/b")));
        assert!(!pat("src/**", ListKind::Allow).matches(Path::new("/w/a/src/b")));
        assert!(
            pat("secrets", ListKind::Deny).matches(Path::new("/w/secrets/key.pem")),
            "directories cover their files"
        );
        assert!(pat("./secrets/**", ListKind::Deny).matches_within(Path::new("/w/secrets")));
    }
}
