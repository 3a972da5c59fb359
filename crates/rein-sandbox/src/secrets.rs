//! The credentials a home directory commonly holds. rein's own jails (a command it judged
//! read-only, a workspace command it allowed, a command tried first) mask them, whatever
//! the person's `denyRead` says: rein's judgement never grants them.

use std::path::{Path, PathBuf};

/// Below the home directory.
const IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".gem/credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".vault-token",
    ".password-store",
    ".terraform.d/credentials.tfrc.json",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".config/rclone",
    ".config/op",
    ".local/share/keyrings",
];

/// The credential paths below `home` (as patterns for the plan's masks; missing ones
/// mask nothing).
pub fn in_home(home: &Path) -> Vec<PathBuf> {
    IN_HOME.iter().map(|p| home.join(p)).collect()
}
