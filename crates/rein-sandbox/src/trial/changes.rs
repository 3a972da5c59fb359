//! What a tried command changed, read from the overlays' upper layers, and how those
//! changes are made on the host when the person says yes.
//!
//! In an upper layer (userxattr mode): a character device 0/0 is a removal (a
//! "whiteout"); a directory marked `user.overlay.opaque` replaced the one below it
//! whole; any other entry was added or copied up — copied up also when only its times
//! changed, so a file whose bytes and mode are the lower one's is no change.

use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use super::TrialDir;

/// How a path changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Modified,
    Removed,
}

impl ChangeKind {
    pub fn letter(self) -> char {
        match self {
            ChangeKind::Added => 'A',
            ChangeKind::Modified => 'M',
            ChangeKind::Removed => 'D',
        }
    }
}

/// One changed path.
#[derive(Debug, Clone)]
pub struct Change {
    pub path: PathBuf,
    pub kind: ChangeKind,
    pub is_dir: bool,
    /// Inside a workspace root.
    pub inside_workspace: bool,
    /// A protected path (hooks, git config, shell start-up files, …) or inside one.
    pub protected: bool,
    /// The new content's file in the upper layer (not for removals).
    pub(super) source: Option<PathBuf>,
    /// A symbolic link's target.
    pub link: Option<PathBuf>,
    /// The permission bits before and after, when the change made them differ.
    pub modes: Option<(u32, u32)>,
    /// The host path's size and modification time when the trial was read: a path
    /// changed on the host since is not overwritten.
    pub(super) before: Option<(u64, Option<std::time::SystemTime>)>,
}

/// A path's size and modification time, not following a link.
pub(super) fn stamp(path: &Path) -> Option<(u64, Option<std::time::SystemTime>)> {
    std::fs::symlink_metadata(path).ok().map(|m| (m.len(), m.modified().ok()))
}

impl Change {
    /// The new content's file in its layer (none for a removal).
    pub(crate) fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// The old and new text of a changed or added text file (for a diff), when both are
    /// small regular files of their own: never through a link (the host side of a
    /// changed path may be a link to anywhere the command could not read), never a FIFO.
    pub fn texts(&self) -> Option<(String, String)> {
        const MAX: u64 = 256 * 1024;
        let source = self.source.as_ref()?;
        let small_file = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file() && m.len() <= MAX);
        if self.is_dir || self.link.is_some() || !small_file(source) {
            return None;
        }
        let new = String::from_utf8(crate::nofollow::read_regular(source).ok()?).ok()?;
        let old = match self.kind {
            ChangeKind::Added => String::new(),
            _ if small_file(&self.path) => String::from_utf8(crate::nofollow::read_regular(&self.path).ok()?).ok()?,
            _ => return None,
        };
        Some((old, new))
    }
}

/// Whether `ancestor` is a `.claude` folder, or its `worktrees` folder, that `path` lies
/// in a worktree below: `.claude/worktrees` is where agents work (a checkout, not
/// configuration), as the permission engine has it. Inside a worktree the same names
/// are protected as anywhere.
fn holds_agent_worktree(ancestor: &Path, path: &Path) -> bool {
    let claude = match ancestor.file_name().and_then(|n| n.to_str()) {
        Some(".claude") => ancestor.to_path_buf(),
        Some("worktrees") if ancestor.parent().and_then(Path::file_name).is_some_and(|n| n == ".claude") => {
            ancestor.parent().map(Path::to_path_buf).unwrap_or_default()
        }
        _ => return false,
    };
    let worktrees = claude.join("worktrees");
    path.starts_with(&worktrees) && path != worktrees
}

/// Every change in the trial's layers, parents before children.
pub(crate) fn collect(dir: &TrialDir) -> Vec<Change> {
    let mut out = Vec::new();
    for layer in &dir.layers {
        walk(dir, &layer.upper, &layer.path, &mut out, Depth { n: 0, fresh: false });
    }
    out
}

fn label(dir: &TrialDir, path: PathBuf, kind: ChangeKind, is_dir: bool, source: Option<PathBuf>) -> Change {
    let inside_workspace = dir.roots.iter().any(|r| path.starts_with(r));
    let held = crate::plan::is_held(&path, &dir.existing, &dir.reopened);
    let protected = held
        || !dir.recording
            && path
                .ancestors()
                .take_while(|a| dir.roots.iter().any(|r| a.starts_with(r)))
                .filter(|a| !holds_agent_worktree(a, &path))
                .any(crate::plan::is_protected_name)
        || !dir.recording && !inside_workspace && path.ancestors().any(crate::plan::is_protected_name);
    let protected = protected || !dir.recording && in_repository(dir, &path);
    let link = source.as_ref().and_then(|s| std::fs::read_link(s).ok());
    let before = stamp(&path);
    let bits =
        |p: &Path| std::fs::symlink_metadata(p).ok().filter(|m| !m.file_type().is_symlink()).map(|m| m.mode() & 0o7777);
    let modes = match (kind, bits(&path), source.as_deref().and_then(bits)) {
        (ChangeKind::Modified, Some(old), Some(new)) if old != new => Some((old, new)),
        _ => None,
    };
    Change { path, kind, is_dir, inside_workspace, protected, source, link, modes, before }
}

/// How deep a walk is, and whether what lies below it on the host no longer counts (a
/// directory that replaced the host's whole, or a new one).
#[derive(Clone, Copy)]
struct Depth {
    n: usize,
    fresh: bool,
}

/// Whether `path` is, or lies inside, a directory shaped like a git repository's own
/// (HEAD, config, objects/) as the command left the view — whatever its name: a bare
/// repository's config names programs git runs.
fn in_repository(dir: &TrialDir, path: &Path) -> bool {
    let Some(layer) = dir.layers.iter().find(|l| path.starts_with(&l.path)) else { return false };
    let seen = |p: &Path| -> Option<std::fs::Metadata> {
        let rel = p.strip_prefix(&layer.path).ok()?;
        std::fs::symlink_metadata(layer.upper.join(rel)).ok().or_else(|| std::fs::symlink_metadata(p).ok())
    };
    path.ancestors().take_while(|a| a.starts_with(&layer.path)).any(|a| {
        seen(&a.join("HEAD")).is_some_and(|m| m.is_file())
            && seen(&a.join("config")).is_some_and(|m| m.is_file())
            && seen(&a.join("objects")).is_some_and(|m| m.is_dir())
    })
}

/// How deep the layers are read.
const MAX_DEPTH: usize = 400;

fn walk(dir: &TrialDir, upper: &Path, host: &Path, out: &mut Vec<Change>, depth: Depth) {
    // A directory the command made unreadable is opened up first (the layer is rein's).
    let entries = match std::fs::read_dir(upper) {
        Ok(e) => e,
        Err(_) if crate::nofollow::make_searchable(upper) => match std::fs::read_dir(upper) {
            Ok(e) => e,
            Err(_) => return dir.lost(upper),
        },
        Err(_) => return dir.lost(upper),
    };
    let mut names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
    names.sort();
    for name in &names {
        let (up, real) = (upper.join(name), host.join(name));
        let Ok(meta) = std::fs::symlink_metadata(&up) else { continue };
        let below = if depth.fresh { None } else { std::fs::symlink_metadata(&real).ok() };
        let ft = meta.file_type();
        if ft.is_char_device() && meta.rdev() == 0 {
            if let Some(b) = below {
                out.push(label(dir, real, ChangeKind::Removed, b.is_dir(), None));
            }
            continue;
        }
        if ft.is_dir() {
            let opaque = is_opaque(&up);
            match &below {
                Some(b) if b.is_dir() && !opaque => {
                    if b.permissions().mode() != meta.permissions().mode() {
                        out.push(label(dir, real.clone(), ChangeKind::Modified, true, Some(up.clone())));
                    }
                }
                Some(b) => {
                    out.push(label(dir, real.clone(), ChangeKind::Removed, b.is_dir(), None));
                    out.push(label(dir, real.clone(), ChangeKind::Added, true, Some(up.clone())));
                }
                None => out.push(label(dir, real.clone(), ChangeKind::Added, true, Some(up.clone()))),
            }
            let fresh = depth.fresh || opaque || !below.as_ref().is_some_and(|b| b.is_dir());
            if depth.n < MAX_DEPTH {
                walk(dir, &up, &real, out, Depth { n: depth.n + 1, fresh });
            } else {
                dir.lost(&up);
            }
            continue;
        }
        // A FIFO, socket or device the command left is no content to keep.
        if !ft.is_file() && !ft.is_symlink() {
            continue;
        }
        let kind = match &below {
            None => ChangeKind::Added,
            Some(b) if !dir.recording && same_content(&up, &meta, &real, b) => continue,
            Some(_) => ChangeKind::Modified,
        };
        if let (ChangeKind::Modified, Some(b)) = (kind, &below)
            && b.is_dir()
        {
            out.push(label(dir, real.clone(), ChangeKind::Removed, true, None));
            out.push(label(dir, real, ChangeKind::Added, false, Some(up)));
            continue;
        }
        out.push(label(dir, real, kind, false, Some(up)));
    }
}

/// `user.overlay.opaque` is `y`: the directory replaced the one below it whole.
fn is_opaque(path: &Path) -> bool {
    crate::platform::sys::overlay_opaque(path)
}

/// A copy-up whose bytes, kind and mode are the lower file's (only its times changed).
/// Both are read as regular files of their own (no link followed, no FIFO waited on), a
/// block at a time.
fn same_content(up: &Path, up_meta: &std::fs::Metadata, real: &Path, real_meta: &std::fs::Metadata) -> bool {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let (a, b) = (up_meta.file_type(), real_meta.file_type());
    if a.is_symlink() || b.is_symlink() {
        return a.is_symlink() && b.is_symlink() && std::fs::read_link(up).ok() == std::fs::read_link(real).ok();
    }
    if !a.is_file() || !b.is_file() || up_meta.len() != real_meta.len() || up_meta.mode() != real_meta.mode() {
        return false;
    }
    let open = |p: &Path| {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(p)
            .ok()
            .filter(|f| f.metadata().is_ok_and(|m| m.is_file()))
    };
    let (Some(mut x), Some(mut y)) = (open(up), open(real)) else { return false };
    let (mut bx, mut by) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    loop {
        let (Ok(n), Ok(m)) = (x.read(&mut bx), y.read(&mut by)) else { return false };
        if n != m || bx[..n] != by[..m] {
            return false;
        }
        if n == 0 {
            return true;
        }
    }
}

/// At most this many files of a removed directory are listed by [`touched_files`].
const TOUCHED_BUDGET: usize = 20_000;

/// The host files making `changes` touches (to checkpoint first): each file changed,
/// added or removed, and every file inside a directory it removes (up to a budget).
pub fn touched_files(changes: &[Change]) -> Vec<PathBuf> {
    fn below(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            if out.len() >= TOUCHED_BUDGET {
                return;
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => below(&e.path(), out),
                Ok(t) if t.is_file() || t.is_symlink() => out.push(e.path()),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for c in changes {
        if !c.is_dir {
            out.push(c.path.clone());
        } else if c.kind == ChangeKind::Removed {
            below(&c.path, &mut out);
        }
    }
    out
}
