//! Tried first: a command rein cannot fully model runs once where it can change nothing —
//! a copy-on-write view (overlayfs) of the workspace and the home directory, no network,
//! denied reads masked, the host's processes out of reach — and what it did is read back
//! from the view's upper layers: the files it added, changed and removed, and whether it
//! tried the network. The person is then asked only about that; "yes" applies exactly
//! those changes ([`Trial::apply`]) and the command never runs a second time.
//!
//! The overlays are mounted in a user and mount namespace of rein's own, made between
//! fork and exec of bubblewrap, which then builds the usual jail on top (bubblewrap
//! 0.8 has no overlay of its own). Tier A only.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};

mod apply;
mod changes;
mod stage;

pub use apply::ApplyError;
pub(crate) use apply::apply_recorded;
pub(crate) use changes::collect;
pub use changes::{Change, ChangeKind, touched_files};
pub use stage::{STAGE_ARG, stage};

use crate::plan::Plan;
use crate::{After, Sandbox, Wrapped, bwrap, detect::Tier, helper::HelperArgs};

/// One overlaid directory: the host directory and its layers in the trial's directory.
#[derive(Debug)]
pub(crate) struct Layer {
    pub(crate) path: PathBuf,
    pub(crate) upper: PathBuf,
    pub(crate) work: PathBuf,
}

/// The trial of one command, while it runs.
#[derive(Debug)]
pub struct TrialDir {
    /// Removed (with the layers) when the trial is dropped.
    _dir: tempfile::TempDir,
    layers: Vec<Layer>,
    /// Where the helper reports the jail's network counters (a trial's; a recorded
    /// run has none).
    report: Option<std::os::fd::OwnedFd>,
    /// A recorded run's layers (every change is kept, a touch too; the plan's
    /// protected paths alone are held), not a trial's.
    pub(crate) recording: bool,
    /// Directories of the layers that could not be read (unreadable, too deep): what is
    /// in them is not made.
    lost: std::sync::Mutex<Vec<PathBuf>>,
    /// The layers' clock when the command started (a file's change time on the
    /// workspace's filesystem): a host path changed after it changed under the command.
    pub(crate) started: Option<(i64, i64)>,
    /// The workspace roots and the protected paths of the plan, to label changes.
    roots: Vec<PathBuf>,
    existing: std::collections::BTreeSet<PathBuf>,
    /// Writable again inside `existing` (agents' worktrees).
    reopened: Vec<PathBuf>,
}

impl TrialDir {
    /// A recorded run's layers: its changes are labelled protected only under `held`
    /// (the plan's read-only paths).
    pub(crate) fn recording(
        dir: tempfile::TempDir,
        layers: Vec<Layer>,
        roots: Vec<PathBuf>,
        held: std::collections::BTreeSet<PathBuf>,
        reopened: Vec<PathBuf>,
    ) -> TrialDir {
        let started = clock(dir.path());
        TrialDir {
            _dir: dir,
            layers,
            report: None,
            recording: true,
            roots,
            existing: held,
            reopened,
            lost: Default::default(),
            started,
        }
    }

    /// `upper` could not be read: what is below it is lost (said when applying).
    pub(crate) fn lost(&self, upper: &Path) {
        self.lost.lock().unwrap_or_else(|p| p.into_inner()).push(upper.to_path_buf());
    }

    /// The host paths under layer directories that could not be read.
    pub(crate) fn lost_paths(&self) -> Vec<PathBuf> {
        let lost = self.lost.lock().unwrap_or_else(|p| p.into_inner());
        lost.iter()
            .filter_map(|up| {
                let layer = self.layers.iter().find(|l| up.starts_with(&l.upper))?;
                Some(layer.path.join(up.strip_prefix(&layer.upper).ok()?))
            })
            .collect()
    }
}

impl Drop for TrialDir {
    /// overlayfs leaves its work directory unreadable: opened up and removed with the
    /// layers (the temp directory's own removal could not).
    fn drop(&mut self) {
        for l in &self.layers {
            crate::nofollow::remove(&l.work);
            crate::nofollow::remove(&l.upper);
        }
    }
}

/// The change time of a fresh file in `dir`: the filesystem's clock now.
fn clock(dir: &Path) -> Option<(i64, i64)> {
    use std::os::unix::fs::MetadataExt as _;
    let mark = dir.join("started");
    std::fs::write(&mark, b"").ok()?;
    std::fs::symlink_metadata(&mark).ok().map(|m| (m.ctime(), m.ctime_nsec()))
}

/// What a tried command did.
#[derive(Debug)]
pub struct Trial {
    pub changes: Vec<Change>,
    /// It sent (or tried to send) an IP packet: the jail has no network, so its result
    /// is not what it would do.
    pub network: bool,
    /// The hosts (`host:port`) it asked the proxy for (programs that honour the proxy
    /// variables say where they were going).
    pub hosts: Vec<String>,
    /// Held until the trial is kept or dropped.
    _dir: TrialDir,
}

/// The descriptor the helper writes the network report to.
const REPORT_FD: i32 = 73;

impl Sandbox {
    /// Whether commands can be tried first here: Tier A, and the layers' paths are ones
    /// overlayfs can name.
    pub fn can_try(&self) -> bool {
        matches!(self.probe().tier, Tier::A { .. }) && self.layers_of().is_some()
    }

    /// The directories a trial overlays: the workspace roots, none inside another, never
    /// `/` or a path overlayfs options cannot carry.
    pub(crate) fn layers_of(&self) -> Option<Vec<PathBuf>> {
        let mut dirs: Vec<PathBuf> = self.roots.clone();
        dirs.sort();
        dirs.dedup();
        let mut out: Vec<PathBuf> = Vec::new();
        for d in dirs {
            if d == Path::new("/") || d.to_str().is_none_or(|s| s.contains([',', ':', '\\', '\n'])) {
                return None;
            }
            if !out.iter().any(|o| d.starts_with(o)) {
                out.push(d);
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The directories a trial does not see (existing, canonical), and what it sees of
    /// them. Seen: the system's own top directories (`/usr`, `/etc`, `/opt`, …), the
    /// workspace (bound in as the copy), and the tools: each PATH directory (a known
    /// toolchain's whole directory under the home, so `~/.pyenv/shims` brings `~/.pyenv`),
    /// git's own configuration file, rein's stage binary. Not seen: every other top
    /// directory (homes, `/tmp`, `/srv`, other projects), the home, and the shared or
    /// personal parts of `/var` and `/run`.
    fn hidden_from_trials(&self) -> (Vec<PathBuf>, Vec<PathBuf>) {
        const SYSTEM: &[&str] = &[
            "bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "opt", "proc", "dev", "sys", "run", "var",
            "nix", "snap", "gnu",
        ];
        const TOOLCHAINS: &[&str] = &[
            ".pyenv",
            ".cargo",
            ".rustup",
            ".nvm",
            ".volta",
            ".bun",
            ".deno",
            ".rbenv",
            ".goenv",
            ".sdkman",
            ".asdf",
            ".juliaup",
            ".ghcup",
            ".elan",
            ".opam",
            ".dotnet",
            "go",
            ".go",
            ".local/share/pnpm",
        ];
        let home = self.home();
        let mut hidden: Vec<PathBuf> = std::fs::read_dir("/")
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                    .filter(|e| !SYSTEM.iter().any(|s| e.file_name() == *s))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default();
        hidden.extend(
            [
                "/var/tmp",
                "/var/mail",
                "/var/spool",
                "/var/backups",
                "/var/log",
                "/var/lib/postgresql",
                "/var/lib/mysql",
                "/var/lib/redis",
                "/var/lib/docker",
                "/var/lib/containers",
                "/var/lib/sss",
                "/run/user",
                "/run/secrets",
                "/etc/ssl/private",
            ]
            .iter()
            .map(PathBuf::from),
        );
        hidden.extend(home.clone());
        let mut hidden: Vec<PathBuf> = hidden
            .into_iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| p != Path::new("/") && p.is_dir())
            .collect();
        hidden.sort();
        hidden.dedup();
        let inside_hidden = |p: &Path| hidden.iter().any(|h| p.starts_with(h));
        let mut exposed: Vec<PathBuf> = Vec::new();
        let path_dirs = rein_process::env::os(rein_process::env::Var::Path)
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default();
        for dir in path_dirs.iter().filter_map(|d| std::fs::canonicalize(d).ok()) {
            let toolchain = hidden.iter().find_map(|h| {
                let rel = dir.strip_prefix(h).ok()?;
                TOOLCHAINS.iter().find(|t| rel.starts_with(t)).map(|t| h.join(t))
            });
            exposed.push(toolchain.unwrap_or_else(|| dir.clone()));
            if dir.ends_with(".local/bin") {
                exposed.extend(dir.parent().map(|l| l.join("lib")));
            }
        }
        if let Some(h) = &home {
            if exposed.iter().any(|e| e.ends_with(".cargo")) {
                exposed.push(h.join(".rustup"));
            }
            exposed.extend([h.join(".gitconfig"), h.join(".config/git/config"), h.join(".config/git/ignore")]);
        }
        exposed.push(self.helper.clone());
        exposed.retain(|e| inside_hidden(e) && std::fs::symlink_metadata(e).is_ok());
        exposed.sort();
        exposed.dedup();
        (hidden, exposed)
    }

    /// The proxy trials reach: refuses every host and records it. `None` where it
    /// cannot start.
    fn trial_proxy(&self) -> Option<&crate::proxy::Proxy> {
        let made = self.trial_proxy.get_or_init(|| {
            let dir = tempfile::Builder::new().prefix("trial-net-").tempdir_in(&self.base).ok()?;
            let policy = crate::network::NetworkPolicy { allowed: Vec::new(), denied: vec!["*".into()] };
            let upstream = crate::proxy::Upstream { http: None, socks: None };
            let proxy =
                crate::proxy::Proxy::start(&dir.path().join("proxy.sock"), policy, upstream, Default::default());
            proxy.ok().map(|p| (dir, p))
        });
        made.as_ref().map(|(_, p)| p)
    }

    /// The variables a trial's jail sets in the command's environment (not the
    /// command's to pass on to later commands).
    pub fn trial_injected_env(&self) -> Vec<&'static str> {
        let mut names = vec!["TMPDIR"];
        names.extend(crate::relay::proxy_env().into_iter().map(|(k, _)| k));
        names
    }

    /// The person's home directory, as the kernel resolves it.
    pub(crate) fn home(&self) -> Option<PathBuf> {
        rein_process::env::os(rein_process::env::Var::Home)
            .map(PathBuf::from)
            .and_then(|h| std::fs::canonicalize(h).ok())
    }

    /// `program args…` ready to run as a trial in `cwd`, and the trial to read back with
    /// [`finish_trial`](Self::finish_trial). An error when this host cannot try it.
    /// `shown` are files of rein's own the command reads (the shell's saved state): bound
    /// in read-only where they exist.
    pub fn wrap_trial(
        &self,
        program: &[std::ffi::OsString],
        cwd: &Path,
        keep: &[i32],
        shown: &[PathBuf],
    ) -> Result<Wrapped, crate::WrapError> {
        let Tier::A { bwrap, .. } = &self.probe().tier else { return Err(crate::WrapError::NoTierA) };
        let layer_paths = self.layers_of().ok_or(crate::WrapError::NotOverlaid)?;
        // A command started elsewhere would start in a directory the jail hides.
        let start = std::fs::canonicalize(cwd)?;
        if !layer_paths.iter().any(|l| start.starts_with(l)) {
            return Err(crate::WrapError::OutsideWorkspace);
        }
        let base = self.base.clone();
        let (dir, layers) = make_layers(&base, "trial-", layer_paths)?;
        // The plan's masks over the overlaid roots; everything in the layers writable
        // (copy-on-write: what it changes is shown, never applied unasked).
        // A temp directory of the trial's own, dropped with it: what the command leaves
        // there is not seen by later commands.
        let tmp = dir.path().join("tmp");
        std::fs::create_dir(&tmp)?;
        let mut roots: Vec<PathBuf> = layers.iter().map(|l| l.path.clone()).collect();
        roots.push(tmp.clone());
        // One walk, of the workspace only (never the whole home): its protected paths (to
        // label changes) and the masks, the home's credentials among them.
        let full = Plan::masks(&self.roots, &self.deny_read_own(), &self.config.allow_read);
        // What a command tried first sees outside the system's own directories is the
        // workspace and the tools it runs, no one's files: the homes, the shared temp
        // directories and rein's own state are hidden (what it needed there makes it
        // fail, and it is asked as before).
        let (hidden, mut exposed) = self.hidden_from_trials();
        // The proxy's socket, where the relay inside the jail sends what the command
        // asks of the network (refused, and named).
        exposed.extend(self.trial_proxy().and_then(|p| p.socket.parent().map(Path::to_path_buf)));
        exposed.extend(shown.iter().filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())).cloned());
        let plan = Plan {
            write_roots: roots,
            masked: full.masked,
            unmasked: full.unmasked,
            hidden,
            exposed,
            ..Plan::default()
        };
        // Only the temp directory and the re-allowed reads come from descriptors: the
        // layers are bound by path, which resolves to the overlay mounted there.
        let opened = Plan { write_roots: vec![tmp.clone()], unmasked: plan.unmasked.clone(), ..Plan::default() };
        let sources = bwrap::Sources::open(&opened)?;
        let (read, write) = std::io::pipe()?;
        // rein itself first, as the stage that mounts the overlays (a fresh process: rein's
        // own is kept from /proc, so it could not write its namespace's maps), then
        // bubblewrap.
        let mut command = std::process::Command::new(&self.helper);
        command.arg(STAGE_ARG);
        for l in &layers {
            command.arg("--layer").arg(&l.path).arg(&l.upper).arg(&l.work);
        }
        let uid = crate::rustix_uid();
        // SAFETY: getgid cannot fail.
        let gid = unsafe { libc::getgid() };
        command.arg("--").arg(bwrap).args(["--uid", &uid.to_string(), "--gid", &gid.to_string()]);
        command.args(bwrap::args(&plan, cwd, &sources, bwrap::Shared::default())).arg("--").arg(&self.helper);
        let proxy = self.trial_proxy().map(|p| p.socket.clone());
        if proxy.is_some() {
            command.envs(crate::relay::proxy_env());
        }
        let helper = HelperArgs {
            filter: self.filter(),
            proxy,
            keep: keep.to_vec(),
            scoped: false,
            net_report: Some(REPORT_FD),
            watch: None,
            command: program.to_vec(),
        };
        command.args(helper.to_args());
        let mut inherit = sources.raw();
        let write = std::os::fd::OwnedFd::from(write);
        let write_raw = std::os::fd::AsRawFd::as_raw_fd(&write);
        inherit.push(write_raw);
        // SAFETY: between fork and exec only system calls on memory prepared before the
        // fork (the mount strings, the descriptors).
        unsafe {
            command.pre_exec(move || {
                for fd in &inherit {
                    if libc::fcntl(*fd, libc::F_SETFD, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if libc::dup2(write_raw, REPORT_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        command.current_dir(cwd).env("TMPDIR", &tmp);
        // rein's copy of the write end closes before the report is read.
        let write_keep = write;
        let trial = TrialDir {
            _dir: dir,
            layers,
            report: Some(read.into()),
            roots: self.roots.clone(),
            existing: full.existing,
            reopened: full.reopened,
            recording: false,
            lost: Default::default(),
            started: None,
        };
        let mut after = After::default();
        after.masked = plan.masked;
        after.started = Some(std::time::Instant::now());
        after._sources = Some(sources);
        after.trial = Some((trial, Some(write_keep)));
        Ok(Wrapped { command, after })
    }

    /// The command ended: what it changed and whether it tried the network.
    pub fn finish_trial(&self, mut after: After) -> Option<Trial> {
        let (dir, _write) = after.trial.take()?;
        drop(_write);
        let network = dir.report.as_ref().is_none_or(read_report);
        let changes = changes::collect(&dir);
        let hosts = match (self.trial_proxy(), after.started) {
            (Some(p), Some(since)) => p.refused_since(since),
            _ => Vec::new(),
        };
        Some(Trial { changes, network: network || !hosts.is_empty(), hosts, _dir: dir })
    }
}

/// A directory in `base` holding an upper and a work directory for each of `paths`.
pub(crate) fn make_layers(
    base: &Path,
    prefix: &str,
    paths: Vec<PathBuf>,
) -> std::io::Result<(tempfile::TempDir, Vec<Layer>)> {
    let dir = tempfile::Builder::new().prefix(prefix).tempdir_in(base)?;
    let mut layers = Vec::new();
    for (i, path) in paths.into_iter().enumerate() {
        let (upper, work) = (dir.path().join(format!("u{i}")), dir.path().join(format!("w{i}")));
        std::fs::create_dir(&upper)?;
        std::fs::create_dir(&work)?;
        layers.push(Layer { path, upper, work });
    }
    Ok((dir, layers))
}

/// The helper's report: the jail's IP counters after the command (any packet sent or
/// refused for want of a route).
fn read_report(fd: &std::os::fd::OwnedFd) -> bool {
    use std::io::Read as _;
    let Ok(dup) = fd.try_clone() else { return true };
    let mut text = String::new();
    let mut file = std::fs::File::from(dup);
    // The helper wrote before it exited; nothing (a killed helper) counts as a try.
    if file.read_to_string(&mut text).is_err() {
        return true;
    }
    text.trim() != "0"
}

impl Trial {
    /// Whether the person must be asked: any change, or a try of the network.
    pub fn changed_nothing(&self) -> bool {
        self.changes.is_empty() && !self.network
    }

    /// Make exactly these changes on the host. Stops at the first that fails, saying
    /// which; those before it stay made.
    pub fn apply(&self) -> Result<usize, ApplyError> {
        apply::apply(&self.changes)
    }
}
