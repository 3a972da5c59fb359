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
pub mod made_worktrees;
pub mod network;
mod nofollow;
pub mod plan;
pub mod platform;
pub mod proxy;
mod record;
mod relay;
pub mod seatbelt;
pub mod secrets;
pub mod settings;
pub mod trial;
mod violations;
mod wrap;
mod wrap_error;

use std::path::{Path, PathBuf};

pub use detect::{Probe, Tier};
pub use helper::{HELPER_ARG, HelperArgs};
pub use plan::Plan;
use platform::inprocess;
pub use platform::{FilterOptions, seccomp};
pub use record::WriteRecorder;
pub use settings::{Anchors, SandboxConfig};
pub use wrap::Profile;
pub use wrap_error::WrapError;

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
    /// What this host gives, found when first needed: at once when the person turned
    /// the sandbox on, else at the first command rein's own judgement confines.
    probe: std::sync::OnceLock<Probe>,
    /// `REIN_SANDBOX_TIER`.
    forced: Option<char>,
    /// The rein binary, re-executed as the helper stage.
    helper: PathBuf,
    /// Workspace roots and `allowWrite` entries that exist, canonical.
    roots: Vec<PathBuf>,
    /// The directory the private temp directories, layers and proxies go in (the
    /// person's own, `/tmp/rein-sandbox-UID`, or one of this session's).
    base: PathBuf,
    /// The private temp directory (`TMPDIR` inside), made at the first command and
    /// removed with the session (a session that runs none makes none).
    tmp: std::sync::OnceLock<Result<tempfile::TempDir, PathBuf>>,
    /// Tier A: the host side of the network (the relay's only way out).
    /// The proxy commands reach the network through (the sandbox on, at tier A), with
    /// its folder: started at the first command that may use it, so that setting the
    /// session up starts no thread.
    proxy: std::sync::OnceLock<Option<(tempfile::TempDir, proxy::Proxy)>>,
    /// Whether commands go through the proxy.
    proxied: bool,
    /// Holds the proxy's socket, outside every writable root.
    /// This session's own base directory, when the shared one was not ours.
    _own_base: Option<tempfile::TempDir>,
    /// Tier B: the ruleset and filters of each profile, made at its first command.
    in_process: [std::sync::OnceLock<std::sync::Arc<inprocess::InProcess>>; wrap::PROFILES],
    /// The proxy a command tried first reaches (refusing every host, naming each): made
    /// at the first trial.
    trial_proxy: std::sync::OnceLock<Option<(tempfile::TempDir, proxy::Proxy)>>,
    /// Who the proxy asks about hosts no rule decides, once a frontend provides it.
    ask: proxy::AskSlot,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("config", &self.config)
            .field("probe", &self.probe.get())
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
    /// A command tried first: its layers, and rein's copy of the report's write end.
    trial: Option<(trial::TrialDir, Option<std::os::fd::OwnedFd>)>,
    /// A recorded run: its layers, whose changes [`Sandbox::finish`] makes on the host.
    recording: Option<record::Recording>,
    /// A run whose writes are kept as it makes them.
    watch: Option<platform::watch::Watch>,
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
    /// [`Sandbox::finish`]; what it changed is made and what it planted undone all the
    /// same.
    fn drop(&mut self) {
        self.apply_recorded();
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
        // Never inside the workspace (a TMPDIR pointing there): commands could reach the
        // layers and the proxy's socket kept here.
        let temp = std::env::temp_dir();
        let real_temp = std::fs::canonicalize(&temp).unwrap_or_else(|_| temp.clone());
        let inside = workspace.iter().filter_map(|r| std::fs::canonicalize(r).ok()).any(|r| real_temp.starts_with(r));
        let temp = if inside { PathBuf::from("/tmp") } else { temp };
        let shared = temp.join(format!("rein-sandbox-{uid}"));
        let _ = std::fs::create_dir(&shared);
        let ours = std::fs::symlink_metadata(&shared).is_ok_and(|m| {
            use std::os::unix::fs::MetadataExt as _;
            m.is_dir() && m.uid() == uid
        });
        let (base, own_base) = if ours {
            std::fs::set_permissions(&shared, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
            (shared, None)
        } else {
            let dir = tempfile::Builder::new().prefix("rein-sandbox-").tempdir_in(&temp)?;
            (dir.path().to_path_buf(), Some(dir))
        };
        let mut roots: Vec<PathBuf> = workspace.iter().filter_map(|r| std::fs::canonicalize(r).ok()).collect();
        // `dir/**` (as Edit rules write it) names the directory; other globs name what
        // exists now.
        let allow_write = config.allow_write.iter().map(|p| p.strip_suffix("/**").unwrap_or(p));
        roots.extend(allow_write.flat_map(plan::expand).filter(|p| p.is_dir() && p != Path::new("/")));
        roots.dedup();
        let probe = std::sync::OnceLock::new();
        if config.enabled {
            let found = probe.get_or_init(|| detect::probe(config.bwrap_path.as_deref(), &roots, forced));
            if let (Tier::C { missing }, true) = (&found.tier, config.fail_if_unavailable) {
                return Err(SandboxError::Unavailable(missing.join("; ")));
            }
        }
        let tier_a = probe.get().is_some_and(|p: &Probe| matches!(p.tier, Tier::A { .. }));
        let proxied = config.enabled && tier_a;
        Ok(Sandbox {
            config,
            probe,
            forced,
            helper,
            roots,
            base,
            tmp: std::sync::OnceLock::new(),
            proxy: std::sync::OnceLock::new(),
            proxied,
            _own_base: own_base,
            in_process: Default::default(),
            trial_proxy: std::sync::OnceLock::new(),
            ask,
        })
    }

    /// Let the proxy ask `ask` about hosts no rule decides (the interactive session's
    /// approver). Only the first call counts.
    pub fn set_asker(&self, ask: proxy::AskHost) {
        let _ = self.ask.set(ask);
    }

    /// What this host gives (looked for at the first call when the sandbox is off).
    pub fn probe(&self) -> &Probe {
        self.probe.get_or_init(|| detect::probe(self.config.bwrap_path.as_deref(), &self.roots, self.forced))
    }

    /// Whether the person's commands really run confined (the sandbox is on, and Tier A
    /// or B works here).
    pub fn is_active(&self) -> bool {
        self.config.enabled && self.can_enforce()
    }

    /// Whether this host can confine a command at all (Tier A or B): what rein's own
    /// judgements need to be enforced rather than trusted.
    pub fn can_enforce(&self) -> bool {
        !matches!(self.probe().tier, Tier::C { .. })
    }

    /// The proxy commands reach the network through, started on first use; `None`
    /// when commands have none (the sandbox off, or below tier A) or it cannot start
    /// (they then have no network: it fails closed).
    pub(crate) fn proxy(&self) -> Option<&proxy::Proxy> {
        if !self.proxied {
            return None;
        }
        let made = self.proxy.get_or_init(|| {
            let dir = tempfile::Builder::new().prefix("net-").tempdir_in(&self.base).ok()?;
            let policy = network::NetworkPolicy {
                allowed: self.config.allowed_domains.clone(),
                denied: self.config.denied_domains.clone(),
            };
            let upstream = proxy::Upstream { http: self.config.http_proxy_port, socks: self.config.socks_proxy_port };
            let started = proxy::Proxy::start(&dir.path().join("proxy.sock"), policy, upstream, self.ask.clone());
            started.ok().map(|p| (dir, p))
        });
        made.as_ref().map(|(_, p)| p)
    }

    /// The variables the sandbox sets in every command's environment (not the user's
    /// doing: an earlier command did not "change" them).
    pub fn injected_env(&self) -> Vec<&'static str> {
        let mut names = vec!["TMPDIR"];
        if self.proxied {
            names.extend(relay::proxy_env().into_iter().map(|(k, _)| k));
        }
        names
    }

    /// The private temp directory, made on first use. Should that fail, a path where
    /// nothing is: a confined command then fails to start (never given the shared base,
    /// which holds other runs' layers).
    pub fn tmp_dir(&self) -> &Path {
        let made = self.tmp.get_or_init(|| {
            tempfile::Builder::new().prefix("session-").tempdir_in(&self.base).map_err(|_| self.base.join("unmade"))
        });
        match made {
            Ok(t) => t.path(),
            Err(p) => p,
        }
    }

    /// The plan a command would run under now.
    pub fn plan(&self) -> Plan {
        let mut roots = self.roots.clone();
        roots.push(self.tmp_dir().to_path_buf());
        Plan::new(
            &roots,
            &self.config.allow_write,
            &self.config.deny_write,
            &self.config.deny_read,
            &self.config.allow_read,
        )
    }

    /// After the command: placeholders removed, protected paths it created undone (and,
    /// in Tier B, protected files put back), and the `<sandbox_violations>` block for
    /// its output (`None` when there is nothing to report).
    pub fn finish(&self, mut after: After, output: &str) -> Option<String> {
        // A recorded run's changes are made first: what the guard then looks at is
        // what the command left on the host.
        let mut lines = after.apply_recorded();
        lines.extend(after.undo());
        if let Some(since) = after.started {
            let started = self.proxy.get().and_then(Option::as_ref);
            lines.extend(started.map(|(_, p)| p.violations_since(since)).unwrap_or_default());
        }
        lines.extend(violations::from_output(output, &after.masked));
        lines.dedup();
        if lines.is_empty() {
            return None;
        }
        Some(format!("<sandbox_violations>\n{}\n</sandbox_violations>", lines.join("\n")))
    }

    /// One line for the user and the model: the tier and what it enforces.
    pub fn summary(&self) -> String {
        if !self.config.enabled {
            return "sandbox: off".into();
        }
        match &self.probe().tier {
            Tier::A { version, .. } => format!(
                "sandbox: on (tier A: bubblewrap {version}, seccomp{}) — writes only in the workspace and the session \
                 temp dir, protected paths read-only, denied reads masked, no network",
                landlock_note(self.probe().landlock_abi)
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
