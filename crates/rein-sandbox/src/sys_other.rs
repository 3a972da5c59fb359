//! The sandbox's Linux system calls on other systems: each says it is unavailable (the
//! Linux mechanisms that use them never run there: the sandbox is another tier).

use std::os::fd::OwnedFd;
use std::path::Path;

fn unavailable() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::Unsupported, "a Linux sandbox mechanism, unavailable on this system")
}

pub(crate) fn open_without_links(_path: &Path, _directory: bool, _keep_at_exec: bool) -> std::io::Result<OwnedFd> {
    Err(unavailable())
}

pub(crate) fn open_dir_location(_dir: &Path) -> std::io::Result<std::fs::File> {
    Err(unavailable())
}

pub(crate) fn unshare_user_and_mounts() -> std::io::Result<()> {
    Err(unavailable())
}

pub(crate) fn make_mounts_private() -> std::io::Result<()> {
    Err(unavailable())
}

pub(crate) fn mount_overlay(_target: &std::ffi::CStr, _options: &std::ffi::CStr) -> std::io::Result<()> {
    Err(unavailable())
}

pub(crate) fn set_not_dumpable() {}

pub(crate) fn set_child_subreaper() {}

pub(crate) fn close_range_cloexec(_first: libc::c_uint, _last: libc::c_uint) -> bool {
    false
}

pub(crate) fn overlay_opaque(_path: &Path) -> bool {
    false
}

pub(crate) fn drop_capabilities() -> std::io::Result<()> {
    Err(unavailable())
}
