//! The store's file operations on the workspace, which a command may be changing as they
//! run: a file is read only when it is a regular file itself (never through a link,
//! never a FIFO or device waited on), and a rewind writes only through directories
//! opened one component at a time with no link followed — a link planted on the way
//! stops it instead of sending the restored file (or the removal) elsewhere.

use std::ffi::CString;
use std::io::Read as _;
use std::os::fd::{AsRawFd as _, FromRawFd as _, OwnedFd};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Component, Path};

/// Files larger than this are not checkpointed.
const MAX_BYTES: u64 = 64 << 20;

/// What is at a path.
#[derive(Debug)]
pub(crate) enum Content {
    Absent,
    /// A regular file: its bytes and permission bits.
    File(Vec<u8>, u32),
    /// A link, a directory, a FIFO, a device, a file too large: not kept.
    Other,
}

/// What `path` holds, read without following a link or waiting on a FIFO, through
/// directories opened as [`open_dir`] does: a link planted on the way since the path was
/// resolved (by a command racing rein's read) makes it [`Content::Other`], so nothing
/// outside the place named is ever read into the store.
pub(crate) fn read(path: &Path) -> std::io::Result<Content> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return Ok(Content::Other) };
    let dir = match open_dir(parent, false) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Content::Absent),
        Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => return Ok(Content::Other),
        Err(e) => return Err(e),
    };
    let name = c_name(name)?;
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC;
    // SAFETY: a valid descriptor and C string.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags) };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENOENT) => Ok(Content::Absent),
            // ELOOP: the path is a link.
            Some(libc::ELOOP) => Ok(Content::Other),
            _ => Err(e),
        };
    }
    // SAFETY: just opened, owned here.
    let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() > MAX_BYTES {
        return Ok(Content::Other);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    (&mut file).take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    use std::os::unix::fs::PermissionsExt as _;
    let mode = meta.permissions().mode() & 0o777;
    Ok(if bytes.len() as u64 > MAX_BYTES { Content::Other } else { Content::File(bytes, mode) })
}

fn c_name(name: &std::ffi::OsStr) -> std::io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| std::io::Error::other("a name with a NUL byte"))
}

/// How a directory is opened only to go through it: as a location (`O_PATH`) on Linux;
/// elsewhere (no `O_PATH`) read-only.
#[cfg(target_os = "linux")]
const LOCATION: libc::c_int = libc::O_PATH;
#[cfg(not(target_os = "linux"))]
const LOCATION: libc::c_int = libc::O_RDONLY;

/// `dir` (absolute), opened from `/` one component at a time with no link followed;
/// with `create`, missing directories are made (owner-only).
pub(crate) fn open_dir(dir: &Path, create: bool) -> std::io::Result<OwnedFd> {
    // SAFETY: a valid C string and flags.
    let root = unsafe { libc::open(c"/".as_ptr(), LOCATION | libc::O_DIRECTORY | libc::O_CLOEXEC) };
    if root < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: just opened, owned here.
    let mut fd = unsafe { OwnedFd::from_raw_fd(root) };
    for part in dir.components() {
        let name = match part {
            Component::RootDir => continue,
            Component::Normal(n) => c_name(n)?,
            _ => return Err(std::io::Error::other("not a plain absolute path")),
        };
        if create {
            // SAFETY: a valid descriptor and C string.
            let made = unsafe { libc::mkdirat(fd.as_raw_fd(), name.as_ptr(), 0o700) };
            if made != 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EEXIST) {
                return Err(std::io::Error::last_os_error());
            }
        }
        let flags = LOCATION | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: a valid descriptor and C string.
        let next = unsafe { libc::openat(fd.as_raw_fd(), name.as_ptr(), flags) };
        if next < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: just opened, owned here.
        fd = unsafe { OwnedFd::from_raw_fd(next) };
    }
    Ok(fd)
}

/// Put `bytes` at `path` with permission bits `mode` (never set-id): written to a fresh
/// file in its directory (opened as [`open_dir`] does, made when missing), then renamed
/// over whatever is there (a link there is replaced, never followed).
pub(crate) fn write(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    use std::io::Write as _;
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("no parent directory"));
    };
    let dir = open_dir(parent, true)?;
    let through = Path::new(&format!("/proc/self/fd/{}", dir.as_raw_fd())).to_path_buf();
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    for _ in 0..16 {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = through.join(format!(".{}.rein-rewind-{}-{n}.tmp", name.to_string_lossy(), std::process::id()));
        use std::os::unix::fs::OpenOptionsExt as _;
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp);
        let mut file = match file {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        use std::os::unix::fs::PermissionsExt as _;
        let done = file
            .write_all(bytes)
            .and_then(|_| file.set_permissions(std::fs::Permissions::from_mode(mode & 0o777)))
            .and_then(|_| std::fs::rename(&tmp, through.join(name)));
        if done.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        return done;
    }
    Err(std::io::Error::other("no fresh name for the rewound file"))
}

/// Remove the file (or link) `path`, through its directory opened as [`open_dir`] does.
/// Gone already (or its directory gone) is fine.
pub(crate) fn remove(path: &Path) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return Ok(()) };
    let dir = match open_dir(parent, false) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let name = c_name(name)?;
    // SAFETY: a valid descriptor and C string.
    if unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) } != 0 {
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::ENOENT) => {}
            // A directory now where no file was (a directory renamed there): removed if
            // empty, else left (its files are rewound on their own).
            Some(libc::EISDIR | libc::EPERM) => {
                // SAFETY: as above.
                unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR) };
            }
            _ => return Err(e),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use rein_tools::FileCheckpoints as _;

    use crate::Checkpoints;

    /// A link to a file the command may not read (a masked secret) and a FIFO are never
    /// read into the store: nothing of the secret is kept, and rein does not hang.
    #[test]
    fn links_and_fifos_are_not_read_into_the_store() {
        let d = tempfile::tempdir().unwrap();
        let ws = d.path().join("ws");
        std::fs::create_dir(&ws).unwrap();
        std::fs::write(d.path().join("secret"), "API_TOKEN=hunter2").unwrap();
        std::os::unix::fs::symlink(d.path().join("secret"), ws.join("leak")).unwrap();
        let fifo = std::ffi::CString::new(ws.join("fifo").as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let store = Checkpoints::open(&d.path().join("store"));
        store.begin_turn(0, &[]);
        for name in ["leak", "fifo"] {
            store.before_write(&ws.join(name));
            store.after_write(&ws.join(name));
        }
        let kept: Vec<String> = walkdir(&d.path().join("store"));
        assert!(kept.iter().all(|t| !t.contains("hunter2")), "the secret reached the store: {kept:?}");
        let digest = crate::hash(b"API_TOKEN=hunter2");
        assert!(kept.iter().all(|t| !t.contains(&digest)), "the secret's hash reached the index");
    }

    /// A link planted in a directory on the way after the path was resolved (a command
    /// racing the read) is not followed: nothing behind it is read.
    #[test]
    fn a_read_never_goes_through_a_link_on_the_way() {
        let d = tempfile::tempdir().unwrap();
        let (ws, outside) = (d.path().join("ws"), d.path().join("outside"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("id_rsa"), "PRIVATE KEY").unwrap();
        std::os::unix::fs::symlink(&outside, ws.join("dir")).unwrap();
        let read = super::read(&ws.join("dir/id_rsa")).unwrap();
        assert!(matches!(read, super::Content::Other), "{read:?}");
        std::fs::write(ws.join("plain"), "text").unwrap();
        assert!(matches!(super::read(&ws.join("plain")).unwrap(), super::Content::File(..)));
        assert!(matches!(super::read(&ws.join("absent/x")).unwrap(), super::Content::Absent));
    }

    /// What a command names (an exact path) is read through no link: a directory on the
    /// way swapped for a link to the person's keys keeps nothing of them, content or hash.
    #[test]
    fn an_exact_path_through_a_link_keeps_nothing() {
        let d = tempfile::tempdir().unwrap();
        let (ws, outside) = (d.path().join("ws"), d.path().join("outside"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("id_rsa"), "PRIVATE KEY").unwrap();
        std::os::unix::fs::symlink(&outside, ws.join("dir")).unwrap();
        let store = Checkpoints::open(&d.path().join("store"));
        store.begin_turn(0, &[]);
        store.before_write_exact(&ws.join("dir/id_rsa"));
        store.after_write_exact(&ws.join("dir/id_rsa"));
        let kept = walkdir(&d.path().join("store"));
        let digest = crate::hash(b"PRIVATE KEY");
        assert!(kept.iter().all(|t| !t.contains("PRIVATE KEY") && !t.contains(&digest)), "{kept:?}");
    }

    /// A rewind never completes a git directory a command prepared (its config arming
    /// a program), and a directory renamed where no file was does not stop it.
    #[test]
    fn a_rewind_never_arms_a_repository() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("foo.git");
        std::fs::create_dir_all(repo.join("objects")).unwrap();
        std::fs::write(repo.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(repo.join("config"), "[core]\n\tfsmonitor = evil\n").unwrap();
        std::fs::write(repo.join("refs"), "#!/bin/sh\n").unwrap();
        let store = Checkpoints::open(&d.path().join("store"));
        store.begin_turn(0, &[]);
        store.before_write_exact(&repo.join("refs"));
        store.before_write_exact(&d.path().join("e"));
        store.before_write_exact(&d.path().join("plain"));
        std::fs::remove_file(repo.join("refs")).unwrap();
        std::fs::create_dir(d.path().join("e")).unwrap();
        std::fs::write(d.path().join("plain"), "new").unwrap();
        let restored = store.rewind(0, true).unwrap();
        assert!(!repo.join("refs").exists(), "the rewind made a repository");
        assert!(!rein_sandbox::plan::is_git_dir(&repo));
        assert!(!d.path().join("e").exists(), "the empty directory where nothing was is gone");
        assert!(!d.path().join("plain").exists() && restored.contains(&d.path().join("plain")));
    }

    /// What a command left in a directory that has become a repository since (a config
    /// arming a program) is not written back; a file tool's record of the same is.
    #[test]
    fn a_commands_record_is_not_rewound_where_the_sandbox_holds_it_now() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let repo = root.join("foo.git");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::write(repo.join("config"), "[core]\n\tfsmonitor = evil\n").unwrap();
        std::fs::write(root.join("notes"), "edited by a tool").unwrap();
        let store = Checkpoints::open(&root.join("store")).with_roots(vec![root.clone()]);
        store.begin_turn(0, &[]);
        store.before_write_exact(&repo.join("config"));
        store.before_write_exact(&root.join("plain"));
        store.before_write(&root.join("notes"));
        std::fs::write(repo.join("config"), "[core]\n").unwrap();
        std::fs::write(root.join("plain"), "made").unwrap();
        std::fs::write(root.join("notes"), "changed").unwrap();
        // Since: the directory became a repository.
        std::fs::create_dir_all(repo.join("objects")).unwrap();
        std::fs::create_dir_all(repo.join("refs")).unwrap();
        std::fs::write(repo.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        store.rewind(0, true).unwrap();
        assert_eq!(std::fs::read_to_string(repo.join("config")).unwrap(), "[core]\n", "a command's config came back");
        assert!(!root.join("plain").exists(), "an ordinary file was not rewound");
        assert_eq!(std::fs::read_to_string(root.join("notes")).unwrap(), "edited by a tool");
    }

    /// A command's armed config passed through a file tool's edit (the tool's record
    /// then holds what the command left) is not written back into a directory that
    /// became a repository since.
    #[test]
    fn a_tools_record_is_not_rewound_into_a_repository() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let repo = root.join("b");
        std::fs::create_dir_all(repo.join("objects")).unwrap();
        std::fs::write(repo.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(repo.join("config"), "[core]\n\tpager = evil\n").unwrap();
        let store = Checkpoints::open(&root.join("store")).with_roots(vec![root.clone()]);
        store.begin_turn(1, &[]);
        store.before_write(&repo.join("config"));
        std::fs::write(repo.join("config"), "[core]\n").unwrap();
        store.after_write(&repo.join("config"));
        std::fs::create_dir_all(repo.join("refs/heads")).unwrap();
        store.rewind(1, true).unwrap();
        assert_eq!(std::fs::read_to_string(repo.join("config")).unwrap(), "[core]\n");
    }

    /// A rewound file gets its permission bits back: a script stays executable.
    #[test]
    fn a_rewind_gives_a_file_back_its_mode() {
        use std::os::unix::fs::PermissionsExt as _;
        let d = tempfile::tempdir().unwrap();
        let script = d.path().join("run.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
        let store = Checkpoints::open(&d.path().join("store"));
        store.begin_turn(0, &[]);
        store.before_write_exact(&script);
        std::fs::remove_file(&script).unwrap();
        store.after_write_exact(&script);
        store.rewind(0, false).unwrap();
        assert_eq!(std::fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o750);
    }

    /// A directory on the way swapped for a link to elsewhere since the checkpoint: the
    /// rewind refuses (forced or not), and nothing is written there.
    #[test]
    fn a_rewind_never_writes_through_a_planted_link() {
        let d = tempfile::tempdir().unwrap();
        let (ws, outside) = (d.path().join("ws"), d.path().join("outside"));
        std::fs::create_dir_all(ws.join("p")).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(ws.join("p/authorized_keys"), "attacker key").unwrap();
        let store = Checkpoints::open(&d.path().join("store"));
        store.begin_turn(0, &[]);
        store.before_write(&ws.join("p/authorized_keys"));
        std::fs::remove_file(ws.join("p/authorized_keys")).unwrap();
        store.after_write(&ws.join("p/authorized_keys"));
        std::fs::remove_dir(ws.join("p")).unwrap();
        std::os::unix::fs::symlink(&outside, ws.join("p")).unwrap();
        assert!(store.rewind(0, true).is_err(), "the rewind went through the link");
        assert!(!outside.join("authorized_keys").exists(), "a file was written outside the workspace");
    }

    fn walkdir(dir: &std::path::Path) -> Vec<String> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                out.extend(walkdir(&e.path()));
            } else {
                out.push(std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
        out
    }
}
