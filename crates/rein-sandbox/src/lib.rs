//! rein-sandbox: the last wall around every shell command. Permissions decide whether a
//! command may run and hooks can still stop it; the sandbox decides what it can reach
//! when it runs, so that an allowed command, or a wrong rule, cannot reach the host.
//!
//! Three tiers, chosen once per session ([`detect`]): **A** bubblewrap namespaces (a
//! read-only `/`, the roots writable, protected paths read-only, denied reads masked,
//! no network) and rein's helper stage with a seccomp filter; **B** Landlock + the same
//! filter with IP sockets refused, where user namespaces are unavailable; **C** nothing
//! (rein says so, and never treats such a command as sandboxed). Settings come from
//! Claude Code's `sandbox` block ([`settings`]). Hooks and MCP servers are not
//! sandboxed, as in Claude Code.

pub mod bwrap;
pub mod detect;
mod gitconfig;
mod guard;
pub mod helper;
pub mod network;
mod nofollow;
pub mod plan;
pub mod platform;
pub mod proxy;
mod relay;
pub mod settings;
mod violations;

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};

pub use detect::{Probe, Tier};
pub use helper::{HELPER_ARG, HelperArgs};
pub use plan::Plan;
use platform::inprocess;
pub use platform::{FilterOptions, seccomp};
pub use settings::{Anchors, SandboxConfig};

/// Why the sandbox could not be set up or entered.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("seccomp: {0}")]
    Seccomp(String),
    #[error("landlock: {0}")]
    Landlock(String),
    #[error("sandbox helper: {0}")]
    Helper(String),
    #[error("the sandbox is enabled with failIfUnavailable, but it cannot start here: {0}")]
    Unavailable(String),
    #[error("sandbox temp directory: {0}")]
    Io(#[from] std::io::Error),
}

/// A session's sandbox.
pub struct Sandbox {
    pub config: SandboxConfig,
    pub probe: Probe,
    /// The rein binary, re-executed as the helper stage.
    helper: PathBuf,
    /// Workspace roots and `allowWrite` entries that exist, canonical.
    roots: Vec<PathBuf>,
    /// The private temp directory (`TMPDIR` inside), removed with the session.
    tmp: tempfile::TempDir,
    /// Tier A: the host side of the network (the relay's only way out).
    proxy: Option<proxy::Proxy>,
    /// Holds the proxy's socket, outside every writable root.
    _net_dir: Option<tempfile::TempDir>,
    /// This session's own base directory, when the shared one was not ours.
    _own_base: Option<tempfile::TempDir>,
    /// Tier B: the ruleset and filters, made at the first command.
    in_process: std::sync::OnceLock<std::sync::Arc<inprocess::InProcess>>,
    /// Who the proxy asks about hosts no rule decides, once a frontend provides it.
    ask: proxy::AskSlot,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("config", &self.config)
            .field("probe", &self.probe)
            .field("roots", &self.roots)
            .finish()
    }
}

/// A command ready to start, and what to do after it ends.
pub struct Wrapped {
    pub command: std::process::Command,
    pub after: After,
}

/// What [`Sandbox::finish`] needs once the command has ended.
#[derive(Debug, Default)]
pub struct After {
    /// Placeholder directories mounted for the command; removed afterwards if empty.
    placeholders: Vec<PathBuf>,
    /// The reads the plan masked, to name them in the violations.
    masked: Vec<PathBuf>,
    guard: Option<guard::Guard>,
    started: Option<std::time::Instant>,
    /// Tier A: the bind sources bubblewrap inherits, held open until the command ends.
    _sources: Option<bwrap::Sources>,
}

impl After {
    /// Remove the placeholders and undo what the command planted (once).
    fn undo(&mut self) -> Vec<String> {
        for p in self.placeholders.drain(..) {
            let _ = std::fs::remove_dir(p);
        }
        self.guard.take().map(|g| g.after()).unwrap_or_default()
    }
}

impl Drop for After {
    /// A background command killed with the session never reaches
    /// [`Sandbox::finish`]; what it planted is undone all the same.
    fn drop(&mut self) {
        self.undo();
    }
}

impl Sandbox {
    /// Set up the sandbox for a session whose workspace roots are `workspace`.
    /// `helper` is the rein binary; `forced` a tier letter (`REIN_SANDBOX_TIER`).
    pub fn new(
        config: SandboxConfig,
        workspace: &[PathBuf],
        helper: PathBuf,
        forced: Option<char>,
    ) -> Result<Sandbox, SandboxError> {
        let ask = proxy::AskSlot::default();
        let uid = rustix_uid();
        // The shared directory for this user's sessions; if someone else holds its name
        // (another user can create it first in /tmp), a private one of this session's.
        let shared = std::env::temp_dir().join(format!("rein-sandbox-{uid}"));
        let _ = std::fs::create_dir(&shared);
        let ours = std::fs::symlink_metadata(&shared).is_ok_and(|m| {
            use std::os::unix::fs::MetadataExt as _;
            m.is_dir() && m.uid() == uid
        });
        let (base, own_base) = if ours {
            std::fs::set_permissions(&shared, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
            (shared, None)
        } else {
            let dir = tempfile::Builder::new().prefix("rein-sandbox-").tempdir()?;
            (dir.path().to_path_buf(), Some(dir))
        };
        let tmp = tempfile::Builder::new().prefix("session-").tempdir_in(&base)?;
        let mut roots: Vec<PathBuf> = workspace.iter().filter_map(|r| std::fs::canonicalize(r).ok()).collect();
        // `dir/**` (as Edit rules write it) names the directory; other globs name what
        // exists now.
        let allow_write = config.allow_write.iter().map(|p| p.strip_suffix("/**").unwrap_or(p));
        roots.extend(allow_write.flat_map(plan::expand).filter(|p| p.is_dir() && p != Path::new("/")));
        roots.dedup();
        let probe = detect::probe(config.bwrap_path.as_deref(), &roots, forced);
        if let (Tier::C { missing }, true) = (&probe.tier, config.fail_if_unavailable && config.enabled) {
            return Err(SandboxError::Unavailable(missing.join("; ")));
        }
        let (proxy, net_dir) = if config.enabled && matches!(probe.tier, Tier::A { .. }) {
            let dir = tempfile::Builder::new().prefix("net-").tempdir_in(&base)?;
            let policy = network::NetworkPolicy {
                allowed: config.allowed_domains.clone(),
                denied: config.denied_domains.clone(),
            };
            let upstream = proxy::Upstream { http: config.http_proxy_port, socks: config.socks_proxy_port };
            (Some(proxy::Proxy::start(&dir.path().join("proxy.sock"), policy, upstream, ask.clone())?), Some(dir))
        } else {
            (None, None)
        };
        Ok(Sandbox {
            config,
            probe,
            helper,
            roots,
            tmp,
            proxy,
            _net_dir: net_dir,
            _own_base: own_base,
            in_process: Default::default(),
            ask,
        })
    }

    /// Let the proxy ask `ask` about hosts no rule decides (the interactive session's
    /// approver). Only the first call counts.
    pub fn set_asker(&self, ask: proxy::AskHost) {
        let _ = self.ask.set(ask);
    }

    /// Whether commands really run confined (Tier A or B).
    pub fn is_active(&self) -> bool {
        self.config.enabled && !matches!(self.probe.tier, Tier::C { .. })
    }

    /// The variables the sandbox sets in every command's environment (not the user's
    /// doing: an earlier command did not "change" them).
    pub fn injected_env(&self) -> Vec<&'static str> {
        let mut names = vec!["TMPDIR"];
        if self.proxy.is_some() {
            names.extend(relay::proxy_env().into_iter().map(|(k, _)| k));
        }
        names
    }

    /// The private temp directory.
    pub fn tmp_dir(&self) -> &Path {
        self.tmp.path()
    }

    /// The plan a command would run under now.
    pub fn plan(&self) -> Plan {
        let mut roots = self.roots.clone();
        roots.push(self.tmp.path().to_path_buf());
        Plan::new(
            &roots,
            &self.config.allow_write,
            &self.config.deny_write,
            &self.config.deny_read,
            &self.config.allow_read,
        )
    }

    /// `program args…` run in `cwd` inside the sandbox (unchanged in Tier C). The
    /// command inherits descriptors 0–2 and those in `keep` (which the caller places),
    /// no other.
    pub fn wrap(&self, program: &[OsString], cwd: &Path, keep: &[i32]) -> Wrapped {
        let filter = FilterOptions { allow_unix_sockets: self.config.allow_all_unix_sockets, deny_ip_sockets: false };
        let (mut command, after) = match &self.probe.tier {
            Tier::A { bwrap, .. } if self.config.enabled => {
                let plan = self.plan();
                let guard = guard::Guard::before(&plan, false);
                let sources = match bwrap::Sources::open(&plan) {
                    Ok(s) => s,
                    Err(e) => return refused(&e.to_string(), cwd),
                };
                let mut c = std::process::Command::new(bwrap);
                c.args(bwrap::args(&plan, cwd, &sources)).arg("--").arg(&self.helper);
                let raw = sources.raw();
                // SAFETY: only `fcntl`, a system call, between fork and exec: bubblewrap
                // inherits the sources (and its helper closes them for the command).
                unsafe {
                    c.pre_exec(move || {
                        for fd in &raw {
                            if libc::fcntl(*fd, libc::F_SETFD, 0) < 0 {
                                return Err(std::io::Error::last_os_error());
                            }
                        }
                        Ok(())
                    });
                }
                let proxy = self.proxy.as_ref().map(|p| p.socket.clone());
                if proxy.is_some() {
                    c.envs(relay::proxy_env());
                }
                c.args(HelperArgs { filter, proxy, keep: keep.to_vec(), command: program.to_vec() }.to_args());
                let after = After {
                    placeholders: plan.placeholders,
                    masked: plan.masked,
                    guard: Some(guard),
                    started: None,
                    _sources: Some(sources),
                };
                (c, after)
            }
            Tier::B { .. } if self.config.enabled => {
                let plan = self.plan();
                let guard = guard::Guard::before(&plan, true);
                let mut c = std::process::Command::new(&program[0]);
                c.args(&program[1..]);
                match self.in_process(FilterOptions { deny_ip_sockets: true, ..filter }) {
                    Ok(confine) => confine.attach(&mut c, keep),
                    // Never run unconfined by accident: the command fails instead.
                    Err(e) => return refused(&e.to_string(), cwd),
                }
                let after = After {
                    placeholders: Vec::new(),
                    masked: plan.masked,
                    guard: Some(guard),
                    started: None,
                    _sources: None,
                };
                (c, after)
            }
            _ => {
                let mut c = std::process::Command::new(&program[0]);
                c.args(&program[1..]);
                (c, After::default())
            }
        };
        command.current_dir(cwd);
        if self.is_active() {
            command.env("TMPDIR", self.tmp.path());
        }
        let mut after = after;
        after.started = Some(std::time::Instant::now());
        Wrapped { command, after }
    }

    /// After the command: placeholders removed, protected paths it created undone (and,
    /// in Tier B, protected files put back), and the `<sandbox_violations>` block for
    /// its output (`None` when there is nothing to report).
    pub fn finish(&self, mut after: After, output: &str) -> Option<String> {
        let mut lines = after.undo();
        if let Some(since) = after.started {
            lines.extend(self.proxy.as_ref().map(|p| p.violations_since(since)).unwrap_or_default());
        }
        lines.extend(violations::from_output(output, &after.masked));
        lines.dedup();
        if lines.is_empty() {
            return None;
        }
        Some(format!("<sandbox_violations>\n{}\n</sandbox_violations>", lines.join("\n")))
    }

    /// Tier B's confinement for the roots, made once.
    fn in_process(&self, filter: FilterOptions) -> Result<std::sync::Arc<inprocess::InProcess>, SandboxError> {
        if let Some(confine) = self.in_process.get() {
            return Ok(confine.clone());
        }
        let mut roots = self.roots.clone();
        roots.push(self.tmp.path().to_path_buf());
        let confine = inprocess::InProcess::new(&roots, filter)?;
        Ok(self.in_process.get_or_init(|| confine).clone())
    }

    /// One line for the user and the model: the tier and what it enforces.
    pub fn summary(&self) -> String {
        if !self.config.enabled {
            return "sandbox: off".into();
        }
        match &self.probe.tier {
            Tier::A { version, .. } => format!(
                "sandbox: on (tier A: bubblewrap {version}, seccomp{}) — writes only in the workspace and the session \
                 temp dir, protected paths read-only, denied reads masked, no network",
                landlock_note(self.probe.landlock_abi)
            ),
            Tier::B { landlock_abi } => format!(
                "sandbox: on (tier B: Landlock ABI {landlock_abi}, seccomp; no user namespaces) — writes only in the \
                 workspace and the session temp dir, network blocked, protected files put back after each command. NOT \
                 enforced in this tier: denied reads inside readable directories, domain filtering"
            ),
            Tier::C { missing } => format!(
                "sandbox: UNAVAILABLE, commands run unsandboxed ({})",
                if missing.is_empty() { "no mechanism".to_string() } else { missing.join("; ") }
            ),
        }
    }

    /// The roots a command may write.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }
}

/// A command that fails at once, saying why the sandbox could not be applied (never run
/// unconfined by accident).
fn refused(why: &str, cwd: &Path) -> Wrapped {
    let mut c = std::process::Command::new("sh");
    c.args(["-c", "echo \"rein: the sandbox could not be applied: $1\" >&2; exit 126", "sh"]).arg(why);
    c.current_dir(cwd);
    Wrapped { command: c, after: After::default() }
}

fn landlock_note(abi: i64) -> String {
    if abi > 0 { format!(", Landlock ABI {abi} available") } else { String::new() }
}

fn rustix_uid() -> u32 {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }
}
