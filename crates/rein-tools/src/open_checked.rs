//! Opening exactly the path that was checked (invariant 12). The policy decided on a
//! path already resolved as the kernel resolves it (`ToolContext::effect_path`); the
//! tool opens it refusing any symbolic link on the way (`openat2` with
//! `RESOLVE_NO_SYMLINKS`), so a link swapped in between the check and the open makes
//! the open fail instead of reaching another file.

use std::fs::File;
use std::io;
use std::path::Path;

/// Open `path` for reading with no symbolic link followed anywhere in it.
pub(crate) fn open_read(path: &Path) -> io::Result<File> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, Mode, OFlags, ResolveFlags, openat2};
        match openat2(CWD, path, OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty(), ResolveFlags::NO_SYMLINKS) {
            Ok(fd) => return Ok(File::from(fd)),
            Err(rustix::io::Errno::LOOP) => {
                return Err(io::Error::other(
                    "a symbolic link appeared in its path after it was checked; read it again",
                ));
            }
            // Kernels before 5.6 have no openat2: the path is already resolved.
            Err(rustix::io::Errno::NOSYS) => {}
            Err(e) => return Err(e.into()),
        }
    }
    File::open(path)
}

/// Replace the file at `path` with `bytes` atomically — a temporary file beside it, then
/// a rename — inside its directory opened with no symbolic link followed, so neither
/// the new file nor the rename can land anywhere but the directory that was checked.
/// The old file's permissions are kept. `Ok(false)` when the kernel has no `openat2`
/// (the caller writes the ordinary way).
pub(crate) fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    #[cfg(target_os = "linux")]
    {
        use std::io::Write as _;

        use rustix::fs::{AtFlags, CWD, Mode, OFlags, ResolveFlags, fchmod, openat, openat2, renameat, statat};
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(io::Error::other("the path has no parent directory"));
        };
        let flags = OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::PATH;
        let dirfd = match openat2(CWD, dir, flags, Mode::empty(), ResolveFlags::NO_SYMLINKS) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOSYS) => return Ok(false),
            Err(rustix::io::Errno::LOOP) => {
                return Err(io::Error::other("a symbolic link appeared in its path after it was checked"));
            }
            Err(e) => return Err(e.into()),
        };
        let mode = statat(&dirfd, name, AtFlags::SYMLINK_NOFOLLOW).map(|s| s.st_mode & 0o7777).unwrap_or(0o644);
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = format!(".{}.rein-{}-{n}.tmp", name.to_string_lossy(), std::process::id());
        let fd = openat(
            &dirfd,
            &tmp,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        )?;
        let mut file = File::from(fd);
        let written = file.write_all(bytes).and_then(|()| file.sync_data());
        let renamed = written.and_then(|()| {
            fchmod(&file, Mode::from_raw_mode(mode)).map_err(io::Error::from)?;
            renameat(&dirfd, &tmp, &dirfd, name).map_err(io::Error::from)
        });
        if renamed.is_err() {
            let _ = rustix::fs::unlinkat(&dirfd, &tmp, AtFlags::empty());
        }
        renamed.map(|()| true)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (path, bytes);
        Ok(false)
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn the_checked_path_is_opened_and_no_link_on_the_way() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::fs::write(real.join("f"), "old").unwrap();
        std::fs::set_permissions(real.join("f"), std::fs::Permissions::from_mode(0o640)).unwrap();
        assert!(replace_file(&real.join("f"), b"new").unwrap());
        assert_eq!(std::fs::read_to_string(real.join("f")).unwrap(), "new");
        assert_eq!(std::fs::metadata(real.join("f")).unwrap().permissions().mode() & 0o777, 0o640);
        assert!(open_read(&real.join("f")).is_ok());
        // A directory that became a link after the check: neither read nor written.
        std::os::unix::fs::symlink(&real, d.path().join("link")).unwrap();
        assert!(open_read(&d.path().join("link/f")).is_err());
        assert!(replace_file(&d.path().join("link/f"), b"evil").is_err());
        assert_eq!(std::fs::read_to_string(real.join("f")).unwrap(), "new");
        assert_eq!(std::fs::read_dir(&real).unwrap().count(), 1, "no temporary file is left");
    }
}
