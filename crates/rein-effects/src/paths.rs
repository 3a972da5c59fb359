//! Paths as a tool call names them: made absolute against a working directory, `~`
//! expanded, `.` and `..` removed without touching the disk.

use std::path::{Component, Path, PathBuf};

/// `p` made absolute: `~` and `~/…` against `home`, relative paths against `cwd`.
pub fn absolute(p: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    lexical(&joined(p, cwd, home))
}

/// A permission rule's path specifier (`Read(…)`, `Edit(…)`) as an absolute glob, with
/// gitignore anchors: `//abs`, `~/p`, `/p` (relative to `anchor`, the settings file's
/// root), `p` or `./p` (relative to `cwd`). A bare name matches at any depth; a
/// one-segment directory pattern (`src/**`) does too in deny and ask lists
/// (`deny_or_ask`). Shared by the permission policy and the OS sandbox, so that a rule
/// means the same to both.
pub fn rule_glob(
    spec: &str,
    deny_or_ask: bool,
    cwd: &Path,
    anchor: &Path,
    home: Option<&Path>,
) -> Result<String, PathError> {
    let s = spec.trim();
    if let Some(rest) = s.strip_prefix("//") {
        return Ok(format!("/{rest}"));
    }
    if let Some(rest) = s.strip_prefix("~/") {
        let home = home.ok_or(PathError::NoHome)?;
        return Ok(format!("{}/{rest}", home.display()));
    }
    if let Some(rest) = s.strip_prefix('/') {
        return Ok(format!("{}/{rest}", anchor.display()));
    }
    let rel = s.strip_prefix("./").unwrap_or(s);
    let segments: Vec<&str> = rel.trim_end_matches('/').split('/').collect();
    let bare_name = segments.len() == 1 && !rel.starts_with("**");
    let dir_pattern = segments.len() == 2 && segments[1] == "**" && deny_or_ask;
    Ok(if (bare_name && !s.starts_with("./")) || dir_pattern {
        format!("{}/**/{rel}", cwd.display())
    } else {
        format!("{}/{rel}", cwd.display())
    })
}

/// Why a path or a rule's path could not be resolved.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PathError {
    #[error("{} is not an absolute path", .0.display())]
    Relative(PathBuf),
    #[error("cannot resolve the symlink {}: {source} (it may be dangling)", path.display())]
    Link { path: PathBuf, source: std::sync::Arc<std::io::Error> },
    #[error("`~/` needs a home directory")]
    NoHome,
}

/// Absolute `path` resolved as the kernel resolves it: component by component, each
/// symlink followed where it is met (up to 40), `..` applied to the real directory it
/// follows; the part that does not exist yet is kept as written. An error for a
/// relative path, a dangling link or a loop.
pub fn kernel_path(path: &Path) -> Result<PathBuf, PathError> {
    if !path.is_absolute() {
        return Err(PathError::Relative(path.to_path_buf()));
    }
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                let is_link = std::fs::symlink_metadata(&out).is_ok_and(|m| m.file_type().is_symlink());
                if is_link {
                    out = std::fs::canonicalize(&out)
                        .map_err(|e| PathError::Link { path: out.clone(), source: std::sync::Arc::new(e) })?;
                }
            }
        }
    }
    Ok(out)
}

/// `p` made absolute as written (`~` and relative paths), without normalising.
pub fn joined(p: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    match (p.strip_prefix("~/"), home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ if p == "~" => home.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("~")),
        _ if Path::new(p).is_absolute() => PathBuf::from(p),
        _ => cwd.join(p),
    }
}

/// `.` and `..` removed without touching the disk.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Expand a one-segment glob (`src/*.rs`, `.e*`) against its directory, as the shell
/// would: a name starting with `.` only when the pattern does (unless `dotglob`, as
/// bash's option of that name or a set `GLOBIGNORE` make it), never `.` or `..`.
/// `None` for patterns that span directories; an unmatched glob names itself.
///
/// `path` is the word after quote removal, so a `[`, `{` or `\\` in it was quoted or
/// escaped for bash (an unquoted bracket expression is never literal) but would be
/// pattern syntax to the matcher: such a pattern, and `**`, is `None` (not known). The
/// directory is resolved as the kernel resolves it, and each match is given as named
/// and as resolved (a match may be a symbolic link).
pub(crate) fn expand_glob(path: &Path, dotglob: bool) -> Option<Vec<PathBuf>> {
    let dir = path.parent()?;
    let pattern = path.file_name()?.to_str()?;
    if dir.to_string_lossy().contains(['*', '?', '[']) || pattern.contains(['[', ']', '{', '}', '\\']) {
        return None;
    }
    if pattern.contains("**") {
        return None;
    }
    let dir = kernel_path(dir).unwrap_or_else(|_| dir.to_path_buf());
    let matcher = globset::GlobBuilder::new(pattern).literal_separator(true).build().ok()?.compile_matcher();
    let shown =
        |name: &std::ffi::OsStr| dotglob || pattern.starts_with('.') || !name.as_encoded_bytes().starts_with(b".");
    let matches: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|it| {
            it.flatten()
                .filter(|e| shown(&e.file_name()) && matcher.is_match(e.file_name()))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    let mut found = Vec::new();
    for m in matches {
        if let Ok(real) = kernel_path(&m)
            && real != m
        {
            found.push(real);
        }
        found.push(m);
    }
    if found.is_empty() {
        found.push(dir.join(pattern));
    }
    Some(found)
}

/// Whether `path` names rein's own process files: `/proc/self`, `/proc/thread-self`,
/// `/proc/<rein's pid>` (its environment holds rein's credentials, its memory and open
/// descriptors rein's state) and `/dev/fd` (`/dev/stdin`, … are its descriptors). A
/// walk of a directory that holds them (`/proc`, `/`) leaves them out.
pub fn is_own_process_file(path: &Path) -> bool {
    // Grep and Glob ask this of every file they walk: most paths are decided here.
    if !(path.starts_with("/proc") || path.starts_with("/dev")) {
        return false;
    }
    let path = lexical(path);
    let pid = std::process::id().to_string();
    let own: [PathBuf; 6] = [
        PathBuf::from("/proc/self"),
        PathBuf::from("/proc/thread-self"),
        Path::new("/proc").join(&pid),
        PathBuf::from("/dev/fd"),
        PathBuf::from("/dev/stdin"),
        PathBuf::from("/dev/stdout"),
    ];
    if own.iter().any(|o| path.starts_with(o)) || path.starts_with("/dev/stderr") {
        return true;
    }
    // A thread's own directory, /proc/<tid>, reached without going through the pid.
    if let Some(rest) = path.strip_prefix("/proc").ok().and_then(|r| r.components().next())
        && let Some(tid) = rest.as_os_str().to_str()
        && Path::new("/proc").join(&pid).join("task").join(tid).exists()
    {
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths() {
        let cwd = Path::new("/w/sub");
        let home = Some(Path::new("/home/u"));
        assert_eq!(absolute("../.env", cwd, home), PathBuf::from("/w/.env"));
        assert_eq!(absolute("~/.ssh/id", cwd, home), PathBuf::from("/home/u/.ssh/id"));
        assert_eq!(absolute("/etc/./passwd", cwd, home), PathBuf::from("/etc/passwd"));
    }

    #[test]
    fn globs_expand_like_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "").unwrap();
        std::fs::write(dir.path().join("a.rs"), "").unwrap();
        let found = expand_glob(&dir.path().join(".e*"), false).unwrap();
        assert_eq!(found, vec![dir.path().join(".env")]);
        assert_eq!(expand_glob(&dir.path().join("*.md"), false).unwrap(), vec![dir.path().join("*.md")]);
        assert!(expand_glob(&dir.path().join("*/x"), false).is_none());
    }
}
