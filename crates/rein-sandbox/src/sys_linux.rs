//! The Linux system calls the sandbox's mechanisms make, in one place (the platform
//! seam): `openat2` without links, the user and mount namespaces and overlay mounts of a
//! trial, the helper stage's `prctl`s and capabilities, `close_range`, overlayfs' extended
//! attributes. Other systems get `sys_other.rs`, whose calls say they are unavailable.

use std::os::fd::OwnedFd;
use std::path::Path;

/// `path` opened as a location only (`O_PATH`), no symbolic link followed in any
/// component (the last included); a directory when `directory`; closed at exec unless
/// `keep_at_exec`.
pub(crate) fn open_without_links(path: &Path, directory: bool, keep_at_exec: bool) -> std::io::Result<OwnedFd> {
    use rustix::fs::{CWD, Mode, OFlags, ResolveFlags, openat2};
    let mut flags = OFlags::PATH;
    if directory {
        flags |= OFlags::DIRECTORY;
    }
    if !keep_at_exec {
        flags |= OFlags::CLOEXEC;
    }
    Ok(openat2(CWD, path, flags, Mode::empty(), ResolveFlags::NO_SYMLINKS)?)
}

/// `dir` opened as a location only, the last component not followed if a link.
pub(crate) fn open_dir_location(dir: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new().read(true).custom_flags(libc::O_PATH | libc::O_NOFOLLOW | libc::O_DIRECTORY).open(dir)
}

/// Enter a new user and mount namespace.
pub(crate) fn unshare_user_and_mounts() -> std::io::Result<()> {
    // SAFETY: integer flags.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Make every mount private, so that none propagates back to the host.
pub(crate) fn make_mounts_private() -> std::io::Result<()> {
    // SAFETY: valid C strings and flags.
    let rc = unsafe {
        libc::mount(
            std::ptr::null(),
            c"/".as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Mount an overlay on `target` with `options`.
pub(crate) fn mount_overlay(target: &std::ffi::CStr, options: &std::ffi::CStr) -> std::io::Result<()> {
    // SAFETY: valid C strings.
    let rc =
        unsafe { libc::mount(c"overlay".as_ptr(), target.as_ptr(), c"overlay".as_ptr(), 0, options.as_ptr().cast()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// This process cannot be traced or have its memory read by its own user's others.
pub(crate) fn set_not_dumpable() {
    // SAFETY: integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
}

/// Orphans of this process's descendants become its children (it reaps them).
pub(crate) fn set_child_subreaper() {
    // SAFETY: integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
}

/// Mark descriptors `first..=last` close-on-exec in one call; `false` when the kernel
/// cannot (before 5.11).
pub(crate) fn close_range_cloexec(first: libc::c_uint, last: libc::c_uint) -> bool {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: integer arguments only.
    unsafe { libc::syscall(libc::SYS_close_range, first, last, CLOSE_RANGE_CLOEXEC) == 0 }
}

/// `user.overlay.opaque` of `path` is `y`: an overlay directory that replaced the one
/// below it whole.
pub(crate) fn overlay_opaque(path: &Path) -> bool {
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else { return false };
    let mut value = [0u8; 4];
    // SAFETY: valid C strings and a buffer of its length.
    let n =
        unsafe { libc::lgetxattr(c.as_ptr(), c"user.overlay.opaque".as_ptr(), value.as_mut_ptr().cast(), value.len()) };
    n >= 1 && value[0] == b'y'
}

/// Give up every capability (bounding, ambient, effective, permitted, inheritable): a
/// command started by rein running as root must not keep root's powers (with
/// `CAP_SYS_PTRACE` it could read rein's memory and environment through `/proc`, which
/// Landlock allows to holders of that capability). In Tier A the user namespace has
/// none to give up.
pub(crate) fn drop_capabilities() -> std::io::Result<()> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const VERSION_3: u32 = 0x2008_0522;
    for cap in 0..64 {
        // SAFETY: integer arguments only; EINVAL past the last capability, EPERM without
        // CAP_SETPCAP (then there is nothing in the bounding set worth dropping).
        unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) };
    }
    // SAFETY: integer arguments only.
    unsafe { libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) };
    let mut header = Header { version: VERSION_3, pid: 0 };
    let data = [Data { effective: 0, permitted: 0, inheritable: 0 }; 2];
    // SAFETY: capset reads a version-3 header and two data structs, which we pass.
    let rc = unsafe { libc::syscall(libc::SYS_capset, &mut header as *mut Header, data.as_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
