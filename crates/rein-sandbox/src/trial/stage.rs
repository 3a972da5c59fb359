//! The trial's mount stage (also the recorded run's): a user and mount namespace of its
//! own, an overlay on each layer, the bind sources inside the layers opened, then
//! bubblewrap.

use std::ffi::CString;
use std::os::unix::process::CommandExt as _;

use super::Layer;

/// The argument that selects the trial's mount stage.
pub const STAGE_ARG: &str = "__sandbox-overlay";

/// The mount stage, `rein-jail __sandbox-overlay (--layer DIR UPPER WORK)… [--open-base N
/// (--open PATH)…] [--direct-if-unmountable] -- bwrap ARGS…`: a user and mount namespace of its own (itself as root
/// there, mapped to the person), private mounts, an overlay on each layer; each `--open`
/// path opened through the overlays with no symbolic link followed, as descriptor N, N+1,
/// … (bubblewrap binds `/proc/self/fd/N`: what was checked, not what a running command
/// swapped in since); then it becomes bubblewrap. On success it does not return.
pub fn stage(args: &[std::ffi::OsString]) -> crate::SandboxError {
    let fail = |what: &str, e: std::io::Error| crate::SandboxError::Helper(format!("trial stage: {what}: {e}"));
    let mut layers = Vec::new();
    let mut opens: Vec<&std::ffi::OsString> = Vec::new();
    let mut base: Option<i32> = None;
    let mut lenient = false;
    let mut it = args.iter();
    let mut rest = Vec::new();
    while let Some(a) = it.next() {
        match a.to_str() {
            Some("--layer") => match (it.next(), it.next(), it.next()) {
                (Some(p), Some(u), Some(w)) => layers.push(Layer { path: p.into(), upper: u.into(), work: w.into() }),
                _ => return crate::SandboxError::Helper("trial stage: --layer needs three paths".into()),
            },
            Some("--direct-if-unmountable") => lenient = true,
            Some("--open") => match it.next() {
                Some(p) => opens.push(p),
                None => return crate::SandboxError::Helper("trial stage: --open needs a path".into()),
            },
            Some("--open-base") => match it.next().and_then(|n| n.to_str()?.parse::<i32>().ok()) {
                Some(n) if n > 2 => base = Some(n),
                _ => return crate::SandboxError::Helper("trial stage: --open-base needs a descriptor above 2".into()),
            },
            Some("--") => {
                rest = it.cloned().collect();
                break;
            }
            _ => return crate::SandboxError::Helper(format!("trial stage: unknown option {a:?}")),
        }
    }
    if rest.is_empty() {
        return crate::SandboxError::Helper("trial stage: nothing to run".into());
    }
    let uid = crate::rustix_uid();
    // SAFETY: getgid cannot fail.
    let gid = unsafe { libc::getgid() };
    let mounts = match Mounts::new(&layers, uid, gid) {
        Ok(m) => m,
        Err(e) => return crate::SandboxError::Helper(format!("trial stage: {e}")),
    };
    if let Err(e) = mounts.enter(lenient) {
        return fail("cannot mount the copy-on-write view", e);
    }
    if !opens.is_empty() {
        let Some(base) = base else {
            return crate::SandboxError::Helper("trial stage: --open without --open-base".into());
        };
        for (i, path) in opens.iter().enumerate() {
            if let Err(e) = open_as(path, base + i as i32) {
                return fail(&format!("cannot open {}", std::path::Path::new(path).display()), e);
            }
        }
    }
    let err = std::process::Command::new(&rest[0]).args(&rest[1..]).exec();
    fail("cannot run bubblewrap", err)
}

/// The namespace maps and the overlays' mount options.
struct Mounts {
    uid_map: CString,
    gid_map: CString,
    overlays: Vec<(CString, CString)>,
}

impl Mounts {
    fn new(layers: &[Layer], uid: u32, gid: u32) -> Result<Mounts, std::ffi::NulError> {
        let c = CString::new;
        let mut overlays = Vec::new();
        for l in layers {
            let (lower, upper, work) = (l.path.display(), l.upper.display(), l.work.display());
            let options = c(format!("lowerdir={lower},upperdir={upper},workdir={work},userxattr"))?;
            overlays.push((c(l.path.display().to_string())?, options));
        }
        Ok(Mounts { uid_map: c(format!("0 {uid} 1\n"))?, gid_map: c(format!("0 {gid} 1\n"))?, overlays })
    }

    /// Enter the namespaces and mount the overlays; `lenient`: a layer whose overlay
    /// cannot be mounted (a filesystem overlayfs refuses) stays the host's directory.
    fn enter(&self, lenient: bool) -> std::io::Result<()> {
        crate::platform::sys::unshare_user_and_mounts()?;
        write_file(c"/proc/self/setgroups", c"deny")?;
        write_file(c"/proc/self/uid_map", &self.uid_map)?;
        write_file(c"/proc/self/gid_map", &self.gid_map)?;
        // No mount propagates back to the host.
        crate::platform::sys::make_mounts_private()?;
        for (target, options) in &self.overlays {
            match crate::platform::sys::mount_overlay(target, options) {
                Err(e) if !lenient => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }
}

/// Write `text` to `path` in one write.
fn write_file(path: &std::ffi::CStr, text: &std::ffi::CStr) -> std::io::Result<()> {
    // SAFETY: a valid C string and flags.
    let fd = unsafe { libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let bytes = text.to_bytes();
    // SAFETY: a valid buffer of its length.
    let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    // SAFETY: the descriptor just opened.
    unsafe { libc::close(fd) };
    if n != bytes.len() as isize {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Open `path` (`O_PATH`, no symbolic link in any component) as descriptor `fd`, kept
/// across exec.
fn open_as(path: &std::ffi::OsStr, fd: i32) -> std::io::Result<()> {
    let opened = crate::platform::sys::open_without_links(std::path::Path::new(path), false, true)?;
    let raw = std::os::fd::IntoRawFd::into_raw_fd(opened);
    if raw != fd {
        // SAFETY: two descriptors; the stage holds no other at `fd` (the caller chose a
        // number above every inherited one).
        if unsafe { libc::dup2(raw, fd) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the descriptor just opened, now duplicated.
        unsafe { libc::close(raw) };
    }
    Ok(())
}
