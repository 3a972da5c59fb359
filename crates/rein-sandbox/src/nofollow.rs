//! File operations for the host side of the sandbox (the plan's walk, the guard's undo),
//! on trees a sandboxed command wrote: they never follow a link the command planted,
//! never block on a FIFO or device it left in a file's place, and a mode it set
//! (`chmod 000`) does not stop rein from looking or undoing — rein, running outside the
//! sandbox with the person's rights, must not be the one who writes the host.

use std::io::{Read as _, Write as _};
use std::os::fd::{AsRawFd as _, OwnedFd};
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};

use std::path::{Path, PathBuf};

/// At most this much of one configuration file is read.
pub(crate) const READ_CAP: u64 = 4 << 20;

/// The contents of `path` when it is a regular file itself (not a link, a FIFO or a
/// device), up to [`READ_CAP`].
pub(crate) fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    read(path, libc::O_NOFOLLOW)
}

/// The whole contents of `path` when it is a regular file itself of at most
/// [`READ_CAP`] bytes: a larger one is an error, never a cut copy taken for the whole.
pub(crate) fn read_whole(path: &Path) -> std::io::Result<Vec<u8>> {
    let bytes = read(path, libc::O_NOFOLLOW)?;
    if bytes.len() as u64 >= READ_CAP {
        return Err(std::io::Error::other("larger than rein keeps"));
    }
    Ok(bytes)
}

/// What git reads at `path` (links followed, as git follows them) when it ends at a
/// regular file: never waits on a FIFO or reads a device.
pub(crate) fn read_config(path: &Path) -> std::io::Result<String> {
    read(path, 0).map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn read(path: &Path, flags: i32) -> std::io::Result<Vec<u8>> {
    let file =
        std::fs::OpenOptions::new().read(true).custom_flags(flags | libc::O_NONBLOCK | libc::O_NOCTTY).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut out = Vec::with_capacity(meta.len().min(READ_CAP) as usize);
    file.take(READ_CAP).read_to_end(&mut out)?;
    Ok(out)
}

/// `path`'s directory, opened with no symbolic link followed in any component (a
/// command still running could swap one in), and `path` as seen through that
/// descriptor: `/proc/self/fd/N/<name>`, which stays in the directory that was opened.
fn through_parent(path: &Path) -> std::io::Result<(OwnedFd, PathBuf)> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("no parent directory"));
    };
    let fd = crate::platform::sys::open_without_links(dir, true, false)?;
    let through = PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd())).join(name);
    Ok((fd, through))
}

/// Replace whatever is at `path` (a file, a link: never what a link points to) with a
/// regular file holding `bytes` and `mode`: written under a fresh name beside it, then
/// renamed over it, inside its directory as opened with no link followed.
pub(crate) fn replace(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    replace_from(path, &mut &bytes[..], mode)
}

/// [`replace`], with the contents streamed from `from`.
pub(crate) fn replace_from(path: &Path, from: &mut dyn std::io::Read, mode: u32) -> std::io::Result<()> {
    let (_dir_fd, path) = through_parent(path)?;
    let path = path.as_path();
    let dir = path.parent().ok_or_else(|| std::io::Error::other("no parent directory"))?;
    let mut n = 0u32;
    let (tmp, mut file) = loop {
        let name = format!(".rein-put-{}-{n}", std::process::id());
        let tmp = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode & 0o777)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)
        {
            Ok(f) => break (tmp, f),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 64 => n += 1,
            Err(e) => return Err(e),
        }
    };
    let done = std::io::copy(from, &mut file).and_then(|_| file.flush()).and_then(|_| std::fs::rename(&tmp, path));
    if done.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    done
}

/// Move the file `from` (rein's own, in a layer) over whatever is at `path` (never what
/// a link there points to), inside `path`'s directory as opened with no link followed.
/// Fails (`EXDEV`) when they are on different filesystems.
pub(crate) fn move_into(from: &Path, path: &Path) -> std::io::Result<()> {
    let (_dir_fd, through) = through_parent(path)?;
    std::fs::rename(from, through)
}

/// Make the directory `path` (its parent opened with no link followed); one already
/// there (a directory itself, not a link) is fine.
pub(crate) fn make_dir(path: &Path) -> std::io::Result<()> {
    let (_dir_fd, through) = through_parent(path)?;
    match std::fs::create_dir(&through) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => match std::fs::symlink_metadata(&through) {
            Ok(m) if m.is_dir() => Ok(()),
            _ => Err(e),
        },
        other => other,
    }
}

/// Set the permission bits of the directory `path` itself (never what a link there
/// points to).
pub(crate) fn set_dir_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    let (_dir_fd, through) = through_parent(path)?;
    let fd = open_path(&through).ok_or_else(|| std::io::Error::other("not a directory of the person's own"))?;
    let link = PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()));
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&link, std::fs::Permissions::from_mode(mode & 0o7777))
}

/// Make `path` a symbolic link to `target`, replacing what is there (a file or link
/// itself; never through a link on the way).
pub(crate) fn make_link(target: &Path, path: &Path) -> std::io::Result<()> {
    let (_dir_fd, through) = through_parent(path)?;
    if std::fs::symlink_metadata(&through).is_ok() && !remove(path) {
        return Err(std::io::Error::other("could not replace it"));
    }
    std::os::unix::fs::symlink(target, &through)
}

/// Remove `path`: a link or file itself, a directory with everything in it (links
/// inside are removed, never followed). Directories the command made unwritable or
/// unreadable are opened up first, when they are the person's own.
pub(crate) fn remove(path: &Path) -> bool {
    let Ok((_dir_fd, path)) = through_parent(path) else { return false };
    let path = path.as_path();
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => {
            open_up(path);
            std::fs::remove_dir_all(path).is_ok()
        }
        Ok(_) => std::fs::remove_file(path).is_ok(),
        Err(_) => false,
    }
}

/// Give back the owner's read, write and search rights on `dir` and every directory
/// below it (never through a link): what a command's `chmod` took away.
fn open_up(dir: &Path) {
    let Some(fd) = open_path(dir) else { return };
    let _ = chmod_fd(&fd, 0o700);
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            open_up(&e.path());
        }
    }
}

/// `dir` opened without following a link (`O_PATH`), when it is a directory the
/// person owns.
fn open_path(dir: &Path) -> Option<OwnedFd> {
    let f = crate::platform::sys::open_dir_location(dir).ok()?;
    // SAFETY: no arguments.
    let me = unsafe { libc::geteuid() };
    let meta = f.metadata().ok()?;
    (meta.is_dir() && meta.uid() == me).then(|| f.into())
}

/// Add `bits` to the mode of what `fd` (an `O_PATH` descriptor) names.
fn chmod_fd(fd: &OwnedFd, bits: u32) -> std::io::Result<()> {
    let link = PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()));
    let mode = std::fs::metadata(&link)?.mode();
    if mode & bits == bits {
        return Ok(());
    }
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&link, std::fs::Permissions::from_mode((mode | bits) & 0o7777))
}

/// Give the owner back read and search rights on `dir` (never through a link), so that
/// a walk can see into it again.
pub(crate) fn make_searchable(dir: &Path) -> bool {
    open_path(dir).is_some_and(|fd| chmod_fd(&fd, 0o500).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_modes_do_not_lead_rein_astray() {
        let d = tempfile::tempdir().unwrap();
        let outside = d.path().join("outside");
        std::fs::write(&outside, "host file").unwrap();
        let link = d.path().join("config");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert!(read_regular(&link).is_err(), "a link is not read through");
        replace(&link, b"new", 0o644).unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "host file", "a link is replaced, not followed");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
        let fifo = d.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(read_regular(&fifo).is_err(), "a FIFO is refused at once, never waited on");
        // A directory made unwritable, holding a link to a directory outside.
        let planted = d.path().join("planted");
        std::fs::create_dir_all(planted.join("inner")).unwrap();
        let home = d.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("keep"), "x").unwrap();
        std::os::unix::fs::symlink(&home, planted.join("inner/hooks")).unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(planted.join("inner"), std::fs::Permissions::from_mode(0o500)).unwrap();
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o000)).unwrap();
        assert!(remove(&planted), "removed whatever its modes");
        assert!(!planted.exists() && home.join("keep").exists(), "nothing behind the link is touched");
    }

    /// A directory on the way swapped for a link (by a command still running): rein
    /// neither removes nor writes through it.
    #[test]
    fn a_link_anywhere_on_the_way_stops_the_undo() {
        let d = tempfile::tempdir().unwrap();
        let home = d.path().join("home");
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::write(home.join(".gitconfig"), "mine").unwrap();
        let root = d.path().join("root");
        std::fs::create_dir(&root).unwrap();
        std::os::unix::fs::symlink(&home, root.join("a")).unwrap();
        assert!(!remove(&root.join("a/.claude")));
        assert!(replace(&root.join("a/.gitconfig"), b"theirs", 0o644).is_err());
        assert!(home.join(".claude").is_dir());
        assert_eq!(std::fs::read_to_string(home.join(".gitconfig")).unwrap(), "mine");
    }
}
