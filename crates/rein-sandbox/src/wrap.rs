//! One command wrapped for the tier at hand, with the powers of a [`Profile`]: the
//! person's sandbox as they configured it, or the narrower walls rein puts around what it
//! allowed by its own judgement (a command it judged read-only; acceptEdits' file
//! commands; what the auto-mode judge let through). Those run confined whether or not the
//! person turned the sandbox on: the judgement is enforced, not trusted.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};

use std::os::fd::{AsRawFd as _, OwnedFd};
use std::sync::Arc;

use crate::detect::Tier;
use crate::helper::HelperArgs;
use crate::platform::{FilterOptions, watch};
use crate::{After, Plan, Sandbox, Wrapped, WriteRecorder, bwrap, guard, refused, relay};

/// How a command's writes are kept.
struct Record {
    recorder: Arc<dyn WriteRecorder>,
    /// Through a layer where one can be made.
    layers: bool,
}

/// The powers a command runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The person's sandbox as configured (unconfined when they turned it off).
    Configured,
    /// Nothing writable but the private temp directory, no network; other processes
    /// visible where the kernel can keep them untouchable (Landlock scopes), hidden
    /// otherwise.
    ReadOnly,
    /// The workspace roots writable (their protected paths held, denied reads masked);
    /// with `network`, the network as the sandbox settings give it (all of it when the
    /// person's sandbox is off), else none.
    Workspace { network: bool },
}

/// How many profiles keep a Tier B ruleset.
pub(crate) const PROFILES: usize = 4;

impl Profile {
    fn index(self) -> usize {
        match self {
            Profile::Configured => 0,
            Profile::ReadOnly => 1,
            Profile::Workspace { network: false } => 2,
            Profile::Workspace { network: true } => 3,
        }
    }

    /// Whether this profile confines at all, given the person's setting.
    fn confines(self, enabled: bool) -> bool {
        self != Profile::Configured || enabled
    }
}

/// The network a Tier A command gets.
enum Net {
    None,
    Proxy(PathBuf),
    Host,
}

impl Sandbox {
    /// `program args…` run in `cwd` inside the person's sandbox (unchanged when it is off
    /// or unavailable). The command inherits descriptors 0–2 and those in `keep` (which
    /// the caller places), no other.
    pub fn wrap(&self, program: &[OsString], cwd: &Path, keep: &[i32]) -> Wrapped {
        self.wrap_as(Profile::Configured, program, cwd, keep)
    }

    /// Like [`wrap`](Self::wrap), with the powers of `profile`. A profile of rein's own
    /// on a host with no tier runs the command unconfined: the caller asks
    /// [`can_enforce`](Self::can_enforce) first.
    pub fn wrap_as(&self, profile: Profile, program: &[OsString], cwd: &Path, keep: &[i32]) -> Wrapped {
        self.wrap_with(profile, program, cwd, keep, None)
    }

    /// Like [`wrap_as`](Self::wrap_as), for a foreground command whose writes to the
    /// write roots are kept by `recorder` for rewind (see `record`): through a layer
    /// whose changes [`finish`](Self::finish) makes on the host where one can be made,
    /// else as the command makes them.
    pub fn wrap_recorded(
        &self,
        profile: Profile,
        program: &[OsString],
        cwd: &Path,
        keep: &[i32],
        recorder: Arc<dyn WriteRecorder>,
    ) -> Wrapped {
        self.wrap_with(profile, program, cwd, keep, Some(Record { recorder, layers: true }))
    }

    /// Like [`wrap_recorded`](Self::wrap_recorded), with every write kept as the command
    /// makes it (a background command: a server's writes must show at once).
    pub fn wrap_watched(
        &self,
        profile: Profile,
        program: &[OsString],
        cwd: &Path,
        keep: &[i32],
        recorder: Arc<dyn WriteRecorder>,
    ) -> Wrapped {
        self.wrap_with(profile, program, cwd, keep, Some(Record { recorder, layers: false }))
    }

    fn wrap_with(
        &self,
        profile: Profile,
        program: &[OsString],
        cwd: &Path,
        keep: &[i32],
        record: Option<Record>,
    ) -> Wrapped {
        let tier = if profile.confines(self.config.enabled) { Some(self.probe().tier.clone()) } else { None };
        let confined = matches!(tier, Some(Tier::A { .. } | Tier::B { .. }));
        // A read-only command writes nothing worth keeping.
        let record = record.filter(|_| profile != Profile::ReadOnly);
        let mut wrapped = match tier {
            Some(Tier::A { bwrap, .. }) => self.tier_a(profile, &bwrap, program, cwd, keep, record),
            Some(Tier::B { .. }) => self.tier_b(profile, program, keep, record.map(|r| r.recorder)),
            _ => {
                let mut command = std::process::Command::new(&program[0]);
                command.args(&program[1..]);
                Ok(Wrapped { command, after: After::default() })
            }
        }
        .unwrap_or_else(|why| refused(&why.to_string(), cwd));
        wrapped.command.current_dir(cwd);
        if confined {
            wrapped.command.env("TMPDIR", self.tmp_dir());
        }
        wrapped.after.started = Some(std::time::Instant::now());
        wrapped
    }

    /// A watch on the writes of a command about to start, and the end of its socket the
    /// process that installs the filter inherits. `None` where it cannot be made (the
    /// command then runs unrecorded).
    fn watch(&self, recorder: Arc<dyn WriteRecorder>, plan: &Plan) -> Option<(watch::Watch, OwnedFd)> {
        watch::prepare();
        let (ours, theirs) = watch::socket_pair().ok()?;
        let held = plan.protected.iter().chain(&plan.placeholders).chain(&plan.existing).cloned().collect();
        let walls = watch::Walls { masked: plan.masked.clone(), held, reopened: plan.reopened.clone() };
        Some((watch::Watch::start(ours, self.roots.clone(), walls, recorder), theirs))
    }

    /// The writable roots of `profile` (the private temp directory always among them).
    fn roots_of(&self, profile: Profile) -> Vec<PathBuf> {
        let mut roots = match profile {
            Profile::ReadOnly => Vec::new(),
            _ => self.roots.clone(),
        };
        roots.push(self.tmp_dir().to_path_buf());
        roots
    }

    /// The plan of `profile` now.
    pub fn plan_as(&self, profile: Profile) -> Plan {
        let c = &self.config;
        let deny_read = match profile {
            Profile::Configured => c.deny_read.clone(),
            _ => self.deny_read_own(),
        };
        Plan::new(&self.roots_of(profile), &c.allow_write, &c.deny_write, &deny_read, &c.allow_read)
    }

    /// What rein's own jails mask: the person's denied reads and the home directory's
    /// credentials.
    pub(crate) fn deny_read_own(&self) -> Vec<String> {
        let mut deny = self.config.deny_read.clone();
        if let Some(home) = self.home() {
            deny.extend(crate::secrets::in_home(&home).iter().map(|p| p.display().to_string()));
        }
        deny.extend(rein_effects::credentials::SYSTEM.iter().map(|p| p.to_string()));
        deny
    }

    fn net(&self, profile: Profile) -> Net {
        let proxy = || self.proxy().map_or(Net::None, |p| Net::Proxy(p.socket.clone()));
        match profile {
            Profile::Configured => proxy(),
            Profile::ReadOnly | Profile::Workspace { network: false } => Net::None,
            Profile::Workspace { network: true } if self.config.enabled => proxy(),
            Profile::Workspace { network: true } => Net::Host,
        }
    }

    pub(crate) fn filter(&self) -> FilterOptions {
        FilterOptions { allow_unix_sockets: self.config.allow_all_unix_sockets, ..FilterOptions::default() }
    }

    fn tier_a(
        &self,
        profile: Profile,
        bwrap: &Path,
        program: &[OsString],
        cwd: &Path,
        keep: &[i32],
        record: Option<Record>,
    ) -> Result<Wrapped, crate::WrapError> {
        // Through a layer where one can be made; else as the command writes.
        let layers = record.as_ref().filter(|r| r.layers).and_then(|_| self.recording_layers(cwd));
        let live = record.as_ref().filter(|_| layers.is_none()).map(|r| r.recorder.clone());
        let plan = self.plan_as(profile);
        let guard = guard::Guard::before(&plan, false);
        let overlaid: Vec<PathBuf> = layers.iter().flat_map(|(_, l)| l.iter().map(|l| l.path.clone())).collect();
        let sources = bwrap::Sources::open_beside(&plan, &overlaid)?;
        let net = self.net(profile);
        // A read-only command sees the host's processes (`ps` tells the truth) where
        // Landlock can keep it from signalling or tracing them; elsewhere it gets a
        // process namespace of its own.
        let share_pids = profile == Profile::ReadOnly && self.probe().landlock_abi >= 6;
        let shared = bwrap::Shared { net: matches!(net, Net::Host), pids: share_pids };
        let mut c = match &layers {
            // The mount stage first: the overlays, the sources inside them, then bubblewrap.
            Some((_, layers)) => {
                let mut c = std::process::Command::new(&self.helper);
                c.arg(crate::trial::STAGE_ARG);
                for l in layers {
                    c.arg("--layer").arg(&l.path).arg(&l.upper).arg(&l.work);
                }
                let (deferred, base) = sources.deferred();
                if !deferred.is_empty() {
                    c.arg("--open-base").arg(base.to_string());
                    deferred.iter().for_each(|d| _ = c.arg("--open").arg(d));
                }
                // SAFETY: getgid cannot fail.
                let gid = unsafe { libc::getgid() };
                let (uid, gid) = (crate::rustix_uid().to_string(), gid.to_string());
                c.args(["--direct-if-unmountable", "--"]).arg(bwrap).args(["--uid", &uid, "--gid", &gid]);
                c
            }
            None => std::process::Command::new(bwrap),
        };
        c.args(bwrap::args(&plan, cwd, &sources, shared)).arg("--").arg(&self.helper);
        let mut raw = sources.raw();
        let (watch, theirs) = live.and_then(|r| self.watch(r, &plan)).unzip();
        let theirs_fd = theirs.as_ref().map(|fd| fd.as_raw_fd());
        raw.extend(theirs_fd);
        // SAFETY: only `fcntl`, a system call, between fork and exec: bubblewrap
        // inherits the sources and the watch's socket (its helper closes them for the
        // command). The socket's descriptor lives in the closure: rein's copy closes with
        // the command once started.
        unsafe {
            c.pre_exec(move || {
                let _theirs = &theirs;
                for fd in &raw {
                    if libc::fcntl(*fd, libc::F_SETFD, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        let proxy = match net {
            Net::Proxy(socket) => {
                c.envs(relay::proxy_env());
                Some(socket)
            }
            Net::None | Net::Host => None,
        };
        let helper = HelperArgs {
            filter: FilterOptions { own_processes_only: share_pids, ..self.filter() },
            proxy,
            keep: keep.to_vec(),
            scoped: share_pids,
            net_report: None,
            watch: theirs_fd,
            command: program.to_vec(),
        };
        c.args(helper.to_args());
        let mut after = After::default();
        after.placeholders = plan.placeholders;
        after.masked = plan.masked;
        after.guard = Some(guard);
        after._sources = Some(sources);
        after.watch = watch;
        if let (Some((dir, layers)), Some(Record { recorder, .. })) = (layers, record) {
            let held = plan.protected.iter().chain(&after.placeholders).cloned().collect();
            let dir = crate::trial::TrialDir::recording(dir, layers, self.roots.clone(), held, plan.reopened);
            after.recording = Some(crate::record::Recording::new(dir, recorder));
        }
        Ok(Wrapped { command: c, after })
    }

    fn tier_b(
        &self,
        profile: Profile,
        program: &[OsString],
        keep: &[i32],
        live: Option<Arc<dyn WriteRecorder>>,
    ) -> Result<Wrapped, crate::WrapError> {
        let plan = self.plan_as(profile);
        let guard = guard::Guard::before(&plan, true);
        let mut c = std::process::Command::new(&program[0]);
        c.args(&program[1..]);
        let network = !matches!(self.net(profile), Net::None) && !self.config.enabled;
        // No process namespace in this tier: rein's own profiles keep the host's
        // processes out of reach of limits and priorities too (Landlock scopes signals).
        let own = profile != Profile::Configured;
        let filter = FilterOptions { deny_ip_sockets: !network, own_processes_only: own, ..self.filter() };
        let slot = &self.in_process[profile.index()];
        let confine = match slot.get() {
            Some(c) => c.clone(),
            None => {
                let made = crate::platform::inprocess::InProcess::new(&self.roots_of(profile), filter)?;
                slot.get_or_init(|| made).clone()
            }
        };
        confine.attach(&mut c, keep);
        let mut after = After::default();
        // Where the store itself lies in a write root (rein's home inside the
        // workspace), this tier's guard puts back what the command left there — the
        // store's own writes during the command with it: no watch then.
        let in_reach = |d: &Path| {
            let real = d.ancestors().find_map(|a| Some(std::fs::canonicalize(a).ok()?.join(d.strip_prefix(a).ok()?)));
            real.is_some_and(|d| self.roots.iter().any(|root| d.starts_with(root)))
        };
        let live = live.filter(|r| !r.store_dir().is_some_and(in_reach));
        if let Some((watch, theirs)) = live.and_then(|r| self.watch(r, &plan)) {
            // SAFETY: system calls only, on a filter compiled before the fork
            // (`watch::prepare`). The socket's descriptor lives in the closure: rein's
            // copy closes with the command once started.
            unsafe {
                c.pre_exec(move || {
                    watch::child_side(theirs.as_raw_fd());
                    Ok(())
                });
            }
            after.watch = Some(watch);
        }
        after.masked = plan.masked;
        after.guard = Some(guard);
        Ok(Wrapped { command: c, after })
    }
}
