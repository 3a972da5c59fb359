//! One walk of the writable roots, at any depth and with nothing hidden (hidden files,
//! `.gitignore` and ignore files do not filter it): it finds every git directory (a
//! `.git` directory, a directory holding `HEAD` with `objects/` and `refs/` or a
//! `commondir`), every `.git` file, the protected names, and the paths the deny globs
//! match. It runs on all cores and does not enter a git directory's object store, the
//! only part of a repository that is large and that git never reads as configuration.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

/// Whether a path's own name (and its parent's, when asked for) makes it protected.
pub(super) type Named<'a> = &'a (dyn Fn(&OsStr, Option<&OsStr>) -> bool + Sync);

/// What the walk looks for besides the structure.
#[derive(Default)]
pub(super) struct Look<'a> {
    /// (The parent's name is asked for only when `needs_parent` says the name needs it.)
    pub named: Option<Named<'a>>,
    pub needs_parent: Option<fn(&OsStr) -> bool>,
    /// Deny globs matched against every path: reads, writes.
    pub deny_read: Option<&'a globset::GlobSet>,
    pub deny_write: Option<&'a globset::GlobSet>,
    /// (device, inode) of files whose every hard link is masked; when not empty,
    /// every regular file is looked at (a `stat` each).
    pub inodes: &'a [(u64, u64)],
}

/// What one walk found.
#[derive(Debug, Default)]
pub struct Walked {
    pub git_dirs: BTreeSet<PathBuf>,
    pub git_files: BTreeSet<PathBuf>,
    pub named: BTreeSet<PathBuf>,
    pub read_matches: BTreeSet<PathBuf>,
    pub write_matches: BTreeSet<PathBuf>,
    /// Regular files sharing an inode with one in [`Look::inodes`].
    pub links: BTreeSet<PathBuf>,
    /// Directories the walk could not read (a command's `chmod`).
    pub unreadable: BTreeSet<PathBuf>,
}

impl Walked {
    fn merge(&mut self, other: Walked) {
        self.git_dirs.extend(other.git_dirs);
        self.git_files.extend(other.git_files);
        self.named.extend(other.named);
        self.read_matches.extend(other.read_matches);
        self.write_matches.extend(other.write_matches);
        self.links.extend(other.links);
        self.unreadable.extend(other.unreadable);
    }
}

/// Walk `roots` (canonical directories) for what `look` asks.
pub(super) fn walk(roots: &[PathBuf], look: &Look<'_>) -> Walked {
    let Some((first, rest)) = roots.split_first() else { return Walked::default() };
    let mut builder = WalkBuilder::new(first);
    for r in rest {
        builder.add(r);
    }
    builder
        .standard_filters(false)
        .hidden(false)
        .parents(false)
        .ignore(false)
        .git_ignore(false)
        .git_global(false)
        .git_exclude(false)
        .require_git(false)
        .follow_links(false)
        .threads(std::thread::available_parallelism().map_or(2, |n| n.get().min(8)))
        .filter_entry(|e| !is_object_store(e));
    let out = Mutex::new(Walked::default());
    // Starting the parallel walker's threads costs about a millisecond, more than a
    // small workspace's whole walk: the last walk's size says which to use.
    let small = LAST_SIZE.load(std::sync::atomic::Ordering::Relaxed) < SMALL_TREE;
    let seen = std::sync::atomic::AtomicUsize::new(0);
    if small {
        let mut visitor = Visitor { look, out: &out, found: Walked::default(), seen: &seen };
        for entry in builder.build() {
            visitor.visit(entry);
        }
    } else {
        builder.build_parallel().visit(&mut Builder { look, out: &out, seen: &seen });
    }
    LAST_SIZE.store(seen.into_inner(), std::sync::atomic::Ordering::Relaxed);
    out.into_inner().unwrap_or_else(|p| p.into_inner())
}

/// Workspaces with fewer entries than this are walked on the calling thread.
const SMALL_TREE: usize = 4_000;

/// How many entries the last walk saw (the first walk of a session runs in parallel).
static LAST_SIZE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(usize::MAX);

/// A git directory's `objects/` or `lfs/`: content, never configuration.
fn is_object_store(e: &DirEntry) -> bool {
    if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
        return false;
    }
    let name = e.file_name().as_encoded_bytes();
    if name != b"objects" && name != b"lfs" {
        return false;
    }
    e.path().parent().is_some_and(is_git_dir)
}

/// Whether `dir` is a git directory by its structure (or by its name).
pub fn is_git_dir(dir: &Path) -> bool {
    dir.file_name() == Some(OsStr::new(".git")) && dir.is_dir()
        || has_head(dir)
            && (exists(&dir.join("objects")) && exists(&dir.join("refs")) || exists(&dir.join("commondir")))
}

/// Whether `dir`, not a git directory now, would be one once an entry named `adding`
/// (`HEAD`, `objects`, `refs`, `commondir`) exists in it: what a rewind must not make.
pub fn would_become_git_dir(dir: &Path, adding: &OsStr) -> bool {
    if is_git_dir(dir) {
        return false;
    }
    let has = |name: &str| adding == OsStr::new(name) || exists(&dir.join(name));
    let head = adding == OsStr::new("HEAD") || has_head(dir);
    head && (has("objects") && has("refs") || has("commondir"))
}

/// Whether anything is at `path`: git asks only that `objects` and `refs` can be
/// searched (`access(X_OK)`), which an executable file passes as well as a directory.
fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// A `HEAD` git would accept: a file, or a symbolic link (git still reads `refs/…`
/// links as HEAD, whether or not the branch exists yet).
fn has_head(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join("HEAD")).is_ok_and(|m| m.is_file() || m.file_type().is_symlink())
}

struct Builder<'a, 'b> {
    look: &'a Look<'b>,
    out: &'a Mutex<Walked>,
    seen: &'a std::sync::atomic::AtomicUsize,
}

impl<'s, 'a: 's, 'b: 's> ParallelVisitorBuilder<'s> for Builder<'a, 'b> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Visitor { look: self.look, out: self.out, found: Walked::default(), seen: self.seen })
    }
}

struct Visitor<'a, 'b> {
    look: &'a Look<'b>,
    out: &'a Mutex<Walked>,
    found: Walked,
    seen: &'a std::sync::atomic::AtomicUsize,
}

impl Drop for Visitor<'_, '_> {
    fn drop(&mut self) {
        let found = std::mem::take(&mut self.found);
        self.out.lock().unwrap_or_else(|p| p.into_inner()).merge(found);
    }
}

impl ParallelVisitor for Visitor<'_, '_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        self.seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                if let Some(path) = denied_path(&e) {
                    self.found.unreadable.insert(path);
                }
                return WalkState::Continue;
            }
        };
        let Some(kind) = entry.file_type() else { return WalkState::Continue };
        let path = entry.path();
        let name = entry.file_name();
        let found = &mut self.found;
        if name == ".git" {
            if kind.is_dir() {
                found.git_dirs.insert(path.to_path_buf());
            } else {
                found.git_files.insert(path.to_path_buf());
            }
        } else if name == "HEAD"
            && (kind.is_file() || kind.is_symlink())
            && let Some(dir) = path.parent()
            && is_git_dir(dir)
        {
            found.git_dirs.insert(dir.to_path_buf());
        }
        let parent = || path.parent().and_then(Path::file_name);
        if let Some(named) = self.look.named
            && named(name, if self.look.needs_parent.is_some_and(|n| n(name)) { parent() } else { None })
        {
            found.named.insert(path.to_path_buf());
        }
        if self.look.deny_read.is_some_and(|g| g.is_match(path)) {
            found.read_matches.insert(path.to_path_buf());
        }
        if self.look.deny_write.is_some_and(|g| g.is_match(path)) {
            found.write_matches.insert(path.to_path_buf());
        }
        if !self.look.inodes.is_empty() && kind.is_file() {
            use std::os::unix::fs::MetadataExt as _;
            if let Ok(m) = entry.metadata()
                && self.look.inodes.contains(&(m.dev(), m.ino()))
            {
                found.links.insert(path.to_path_buf());
            }
        }
        WalkState::Continue
    }
}

/// At most this many entries are looked at in each place, once per session and file,
/// for the other names of a masked file outside the roots.
const ELSEWHERE_BUDGET: usize = 150_000;

/// Where the other names of a masked file are looked for: the home and `/tmp`.
pub(super) fn elsewhere() -> Vec<PathBuf> {
    rein_process::env::os(rein_process::env::Var::Home)
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from("/tmp")])
        .collect()
}

/// The names of the files `inodes` (masked, with more names than `masked` holds) found
/// in `places`, on the same filesystem, within a budget each. Looked for once per file
/// (and number of names) in a session.
pub(super) fn names_elsewhere(masked: &BTreeSet<PathBuf>, inodes: &[(u64, u64)], places: &[PathBuf]) -> Vec<PathBuf> {
    use std::collections::HashMap;
    use std::os::unix::fs::MetadataExt as _;
    type Key = (u64, u64, u64);
    static FOUND: Mutex<Option<HashMap<Key, Vec<PathBuf>>>> = Mutex::new(None);
    let mut out = Vec::new();
    for &(dev, ino) in inodes {
        let named: Vec<&PathBuf> = masked
            .iter()
            .filter(|m| std::fs::symlink_metadata(m).is_ok_and(|x| x.dev() == dev && x.ino() == ino))
            .collect();
        let Some(first) = named.first() else { continue };
        let Ok(meta) = std::fs::symlink_metadata(first) else { continue };
        if named.len() as u64 >= meta.nlink() {
            continue;
        }
        let key = (dev, ino, meta.nlink());
        let mut cache = FOUND.lock().unwrap_or_else(|p| p.into_inner());
        let found = cache.get_or_insert_with(HashMap::new).entry(key).or_insert_with(|| {
            let mut found = Vec::new();
            for place in places {
                let mut budget = ELSEWHERE_BUDGET;
                let mut b = WalkBuilder::new(place);
                b.standard_filters(false).follow_links(false).same_file_system(true);
                for e in b.build().flatten() {
                    if budget == 0 {
                        break;
                    }
                    budget -= 1;
                    if e.file_type().is_some_and(|t| t.is_file())
                        && e.metadata().is_ok_and(|m| m.dev() == dev && m.ino() == ino)
                    {
                        found.push(e.path().to_path_buf());
                    }
                }
            }
            found
        });
        out.extend(found.iter().cloned());
    }
    out.sort();
    out.dedup();
    out
}

/// The directory an error is about, when reading it was refused.
fn denied_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, err } => match err.as_ref() {
            ignore::Error::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => Some(path.clone()),
            other => denied_path(other),
        },
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => denied_path(err),
        _ => None,
    }
}

/// (device, inode) of the masked files that have more than one name: the masked files
/// themselves and the files inside masked directories. A masked directory that holds a
/// writable root (`denyRead: ["~"]` with the project re-allowed) is not searched: that
/// would be the whole home per command.
pub(super) fn linked_inodes(masked: &BTreeSet<PathBuf>, roots: &[PathBuf]) -> Vec<(u64, u64)> {
    linked_inodes_within(masked, roots, None)
}

/// [`linked_inodes`] looking at most `depth` levels into directories, and never into
/// agents' worktrees or installed packages (the protected directories' contents that
/// are checkouts, not configuration).
pub(super) fn linked_inodes_within(
    masked: &BTreeSet<PathBuf>,
    roots: &[PathBuf],
    depth: Option<usize>,
) -> Vec<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    let mut out = Vec::new();
    for m in masked {
        let Ok(meta) = std::fs::symlink_metadata(m) else { continue };
        if meta.is_file() && meta.nlink() > 1 {
            out.push((meta.dev(), meta.ino()));
        } else if meta.is_dir() && !roots.iter().any(|r| r.starts_with(m)) {
            let mut b = WalkBuilder::new(m);
            b.standard_filters(false).follow_links(false).max_depth(depth);
            if depth.is_some() {
                b.filter_entry(|e| e.file_name() != "worktrees" && e.file_name() != "node_modules");
            }
            for e in b.build().flatten() {
                if e.file_type().is_some_and(|t| t.is_file())
                    && let Ok(meta) = e.metadata()
                    && meta.nlink() > 1
                {
                    out.push((meta.dev(), meta.ino()));
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
