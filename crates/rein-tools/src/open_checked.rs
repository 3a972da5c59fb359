//! Opening exactly the path that was checked (invariant 12). The policy decided on a
//! path already resolved as the kernel resolves it (`ToolContext::effect_path`); the
//! tool opens it refusing any symbolic link on the way (`openat2` with
//! `RESOLVE_NO_SYMLINKS`), so a link swapped in between the check and the open makes
//! the open fail instead of reaching another file.

use std::fs::File;
use std::io;
use std::path::Path;

/// Open `path` for reading with no symbolic link followed anywhere in it.
pub fn open_read(path: &Path) -> io::Result<File> {
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
