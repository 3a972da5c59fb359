//! Which tier this host can give: bubblewrap that really starts (Tier A), Landlock
//! without namespaces (Tier B), or nothing (Tier C). Found once per session.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::platform::landlock_rules::abi_version;

/// Oldest bubblewrap with every flag rein passes (`--disable-userns`, `--perms`).
const MIN_BWRAP: (u32, u32) = (0, 8);

/// The confinement available.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tier {
    /// bubblewrap namespaces + rein's seccomp helper.
    A { bwrap: PathBuf, version: String },
    /// Landlock + seccomp, no namespaces.
    B { landlock_abi: i64 },
    /// Nothing works: why.
    C { missing: Vec<String> },
}

impl Tier {
    pub fn letter(&self) -> char {
        match self {
            Tier::A { .. } => 'A',
            Tier::B { .. } => 'B',
            Tier::C { .. } => 'C',
        }
    }
}

/// What was found, for `rein sandbox check`.
#[derive(Debug, Clone)]
pub struct Probe {
    pub tier: Tier,
    pub bwrap: Result<(PathBuf, String), BwrapProblem>,
    pub landlock_abi: i64,
    pub seccomp: bool,
}

/// Why bubblewrap cannot be used here.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BwrapProblem {
    #[error("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")]
    NotInstalled,
    #[error("{}: {source}", path.display())]
    Run { path: PathBuf, source: std::sync::Arc<std::io::Error> },
    #[error("bubblewrap {version} is too old (need {}.{} or newer)", MIN_BWRAP.0, MIN_BWRAP.1)]
    TooOld { version: String },
    #[error("bubblewrap {version} cannot create namespaces here: {stderr}")]
    NoNamespaces { version: String, stderr: String },
}

/// Look. `bwrap_path` is the managed `bwrapPath`; `writable` are the roots a command
/// may write (a bwrap found inside them is not trusted); `forced` a tier letter from
/// `REIN_SANDBOX_TIER` (to test or to step down from a misbehaving bwrap).
pub fn probe(bwrap_path: Option<&Path>, writable: &[PathBuf], forced: Option<char>) -> Probe {
    let bwrap = find_bwrap(bwrap_path, writable).and_then(|p| check_bwrap(&p).map(|v| (p, v)));
    let landlock_abi = abi_version();
    let seccomp = crate::platform::seccomp::available();
    let mut missing = Vec::new();
    let a = match (&bwrap, seccomp) {
        (Ok((p, v)), true) => Some(Tier::A { bwrap: p.clone(), version: v.clone() }),
        (Err(e), _) => {
            missing.push(e.to_string());
            None
        }
        (_, false) => None,
    };
    let b = (landlock_abi > 0 && seccomp).then_some(Tier::B { landlock_abi });
    if landlock_abi == 0 {
        missing.push("Landlock is not enabled in this kernel".into());
    }
    if !seccomp {
        missing.push("seccomp filters cannot be installed".into());
    }
    if !cfg!(target_os = "linux") {
        missing.push("rein's sandbox uses Linux's mechanisms (bubblewrap, Landlock, seccomp); this system has none of them, so commands run unsandboxed".into());
    } else if !cfg!(feature = "platform") {
        missing.push("rein was built without its platform mechanisms (the `platform` feature)".into());
    }
    let c = Tier::C { missing };
    let tier = match forced.map(|c| c.to_ascii_uppercase()) {
        Some('C') => c,
        Some('B') => b.unwrap_or(c),
        _ => a.or(b).unwrap_or(c),
    };
    Probe { tier, bwrap, landlock_abi, seccomp }
}

/// The first `bwrap` on PATH (or the managed path) that lies outside every writable
/// root: a command could plant a fake one there.
fn find_bwrap(managed: Option<&Path>, writable: &[PathBuf]) -> Result<PathBuf, BwrapProblem> {
    let candidates: Vec<PathBuf> = match managed {
        Some(p) => vec![p.to_path_buf()],
        None => rein_process::env::os(rein_process::env::Var::Path)
            .map(|p| std::env::split_paths(&p).map(|d| d.join("bwrap")).collect())
            .unwrap_or_default(),
    };
    for c in candidates {
        let Ok(real) = std::fs::canonicalize(&c) else { continue };
        if writable.iter().any(|w| real.starts_with(w)) {
            continue;
        }
        return Ok(real);
    }
    Err(BwrapProblem::NotInstalled)
}

/// Its version, and that it really starts a sandbox here (AppArmor or a container may
/// forbid user namespaces).
fn check_bwrap(bwrap: &Path) -> Result<String, BwrapProblem> {
    let run = |e: std::io::Error| BwrapProblem::Run { path: bwrap.to_path_buf(), source: std::sync::Arc::new(e) };
    let out = Command::new(bwrap).arg("--version").output().map_err(run)?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    if (major, minor) < MIN_BWRAP {
        return Err(BwrapProblem::TooOld { version });
    }
    let trial = Command::new(bwrap)
        .args(["--unshare-user", "--unshare-net", "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(run)?;
    if !trial.status.success() {
        let stderr = String::from_utf8_lossy(&trial.stderr).trim().to_string();
        return Err(BwrapProblem::NoNamespaces { version, stderr });
    }
    Ok(version)
}
