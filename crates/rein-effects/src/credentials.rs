//! The credentials a home directory commonly holds (SSH and GPG keys, cloud and registry
//! tokens). rein's own jails mask them; where a jail cannot (Landlock's tier), the
//! permission engine never lets its own judgement read them.

use std::path::{Path, PathBuf};

/// Below the home directory.
pub const IN_HOME: &[&str] = &[
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
    ".config/git/credentials",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".yarnrc.yml",
];

/// The system's own secrets, readable by root.
pub const SYSTEM: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
];

/// The credential paths below `home` (existing or not).
pub fn in_home(home: &Path) -> Vec<PathBuf> {
    IN_HOME.iter().map(|p| home.join(p)).collect()
}
