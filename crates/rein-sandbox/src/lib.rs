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
pub mod helper;
mod landlock_rules;
pub mod plan;
pub mod seccomp;
pub mod settings;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use detect::{Probe, Tier};
pub use helper::{HELPER_ARG, HelperArgs};
pub use plan::Plan;
pub use seccomp::FilterOptions;
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
#[derive(Debug)]
pub struct Sandbox {
    pub config: SandboxConfig,
    pub probe: Probe,
    /// The rein binary, re-executed as the helper stage.
    helper: PathBuf,
    /// Workspace roots and `allowWrite` entries that exist, canonical.
    roots: Vec<PathBuf>,
    /// The private temp directory (`TMPDIR` inside), removed with the session.
    tmp: tempfile::TempDir,
}

/// A command ready to start, and what to tidy after it ends.
pub struct Wrapped {
    pub command: std::process::Command,
    /// Placeholder directories mounted for the command; removed afterwards if empty.
    pub placeholders: Vec<PathBuf>,
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
        let uid = rustix_uid();
        let base = std::env::temp_dir().join(format!("rein-sandbox-{uid}"));
        std::fs::create_dir_all(&base)?;
        std::fs::set_permissions(&base, std::os::unix::fs::PermissionsExt::from_mode(0o700))?;
        let tmp = tempfile::Builder::new().prefix("session-").tempdir_in(&base)?;
        let mut roots: Vec<PathBuf> = workspace.iter().filter_map(|r| std::fs::canonicalize(r).ok()).collect();
        roots.extend(
            config.allow_write.iter().flat_map(|p| plan::expand(p)).filter(|p| p.is_dir() && p != Path::new("/")),
        );
        roots.dedup();
        let probe = detect::probe(config.bwrap_path.as_deref(), &roots, forced);
        if let (Tier::C { missing }, true) = (&probe.tier, config.fail_if_unavailable && config.enabled) {
            return Err(SandboxError::Unavailable(missing.join("; ")));
        }
        Ok(Sandbox { config, probe, helper, roots, tmp })
    }

    /// Whether commands really run confined (Tier A or B).
    pub fn is_active(&self) -> bool {
        self.config.enabled && !matches!(self.probe.tier, Tier::C { .. })
    }

    /// The private temp directory.
    pub fn tmp_dir(&self) -> &Path {
        self.tmp.path()
    }

    /// The plan a command would run under now; `extra` are more writable directories
    /// (the session shell's state).
    pub fn plan(&self, extra: &[PathBuf]) -> Plan {
        let mut roots = self.roots.clone();
        roots.push(self.tmp.path().to_path_buf());
        roots.extend(extra.iter().filter_map(|p| std::fs::canonicalize(p).ok()));
        Plan::new(&roots, &self.config.deny_write, &self.config.deny_read, &self.config.allow_read)
    }

    /// `program args…` run in `cwd` inside the sandbox (unchanged in Tier C).
    pub fn wrap(&self, program: &[OsString], cwd: &Path, extra: &[PathBuf]) -> Wrapped {
        let filter = FilterOptions { allow_unix_sockets: self.config.allow_all_unix_sockets, deny_ip_sockets: false };
        let (mut command, placeholders) = match &self.probe.tier {
            Tier::A { bwrap, .. } if self.config.enabled => {
                let plan = self.plan(extra);
                let mut c = std::process::Command::new(bwrap);
                c.args(bwrap::args(&plan, cwd)).arg("--").arg(&self.helper);
                c.args(HelperArgs { filter, command: program.to_vec(), ..HelperArgs::default() }.to_args());
                (c, plan.placeholders)
            }
            Tier::B { .. } if self.config.enabled => {
                let plan = self.plan(extra);
                let helper = HelperArgs {
                    filter: FilterOptions { deny_ip_sockets: true, ..filter },
                    landlock: true,
                    landlock_write: plan.write_roots,
                    command: program.to_vec(),
                };
                let mut c = std::process::Command::new(&self.helper);
                c.args(helper.to_args());
                (c, Vec::new())
            }
            _ => {
                let mut c = std::process::Command::new(&program[0]);
                c.args(&program[1..]);
                (c, Vec::new())
            }
        };
        command.current_dir(cwd);
        if self.is_active() {
            command.env("TMPDIR", self.tmp.path());
        }
        Wrapped { command, placeholders }
    }

    /// Remove the placeholder directories a command left (if they are still empty).
    pub fn tidy(placeholders: &[PathBuf]) {
        for p in placeholders {
            let _ = std::fs::remove_dir(p);
        }
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
                 workspace and the session temp dir, network blocked. NOT enforced in this tier: denied reads inside \
                 readable directories, protected paths inside the workspace, domain filtering"
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

fn landlock_note(abi: i64) -> String {
    if abi > 0 { format!(", Landlock ABI {abi} available") } else { String::new() }
}

fn rustix_uid() -> u32 {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }
}
