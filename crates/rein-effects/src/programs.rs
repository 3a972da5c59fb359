//! Which file a program name runs, and the configuration files a vouched-for program
//! loads (invariant 12): a name found inside the workspace is not the system's program,
//! and a configuration file that adds options or names programs is part of the command.

use std::path::{Path, PathBuf};

use rein_bash::{Command, Model, Word, model};

use crate::ShellCommand;
use crate::paths::absolute;

/// Names bash finds before it looks at `PATH`.
const BUILTINS: &[&str] = &[
    "echo", "printf", "test", "[", "cd", "pushd", "popd", "pwd", "true", "false", ":", "type", "command", "builtin",
    "export", "unset", "set", "shopt", "alias", "unalias", "declare", "typeset", "local", "readonly", "hash", "enable",
    "trap", "source", ".", "eval", "exec", "read", "let", "umask", "ulimit", "wait", "jobs", "fg", "bg", "kill",
    "times", "dirs", "history", "help", "getopts", "shift", "return", "exit", "break", "continue",
];

/// npm configuration keys that name a program or more configuration.
const NPM_KEYS: &[&str] = &[
    "script-shell",
    "node-options",
    "prefix",
    "userconfig",
    "globalconfig",
    "shell",
    "editor",
    "git",
    "browser",
    "init-module",
    "onload-script",
    "node-gyp",
    "viewer",
];
/// Cargo configuration keys that name a program.
const CARGO_KEYS: &[&str] =
    &["runner", "rustc", "rustc-wrapper", "rustc-workspace-wrapper", "rustdoc", "linker", "credential-provider"];

impl ShellCommand {
    /// The file `program` runs when it lies inside one of `roots` (a `PATH` entry in the
    /// workspace, a relative `PATH` entry, or a path to a file there).
    pub fn program_in_workspace(&self, program: &str, roots: &[PathBuf]) -> Option<PathBuf> {
        if BUILTINS.contains(&program) {
            return None;
        }
        let inside = |p: &Path| {
            let c = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            roots.iter().any(|r| c.starts_with(r))
        };
        if program.contains('/') {
            let p = absolute(program, &self.cwd, self.home.as_deref());
            return inside(&p).then_some(p);
        }
        let path = rein_process::env::os(rein_process::env::Var::Path)?;
        if !path_reaches(&path, roots) {
            return None;
        }
        for dir in std::env::split_paths(&path) {
            let dir = if dir.as_os_str().is_empty() { self.cwd.clone() } else { self.cwd.join(dir) };
            let candidate = dir.join(program);
            if is_executable(&candidate) {
                return inside(&candidate).then_some(candidate);
            }
        }
        None
    }

    /// What a configuration file the program loads adds that rein does not vouch for:
    /// ripgrep's `RIPGREP_CONFIG_PATH` file (its lines are options), npm's `.npmrc` and
    /// Cargo's `config.toml` keys that name programs.
    pub fn config_problem(&self, cmd: &Command) -> Option<String> {
        match cmd.program()? {
            "rg" => self.ripgrep_config(cmd),
            "npm" => self.config_keys(&[".npmrc"], NPM_KEYS, "npm"),
            "cargo" => self.config_keys(&[".cargo/config.toml", ".cargo/config"], CARGO_KEYS, "Cargo"),
            "pytest" | "py.test" | "python" | "python3" => self.pytest_config(),
            _ => None,
        }
    }

    fn ripgrep_config(&self, cmd: &Command) -> Option<String> {
        if cmd.words.iter().any(|w| w.text == "--no-config") {
            return None;
        }
        let file = rein_process::env::os(rein_process::env::Var::RipgrepConfigPath).filter(|f| !f.is_empty())?;
        let Ok(text) = std::fs::read_to_string(&file) else {
            return Some(format!("ripgrep's config file {} cannot be read", Path::new(&file).display()));
        };
        let mut words = vec![Word::literal("rg")];
        words.extend(text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(Word::literal));
        words.extend(cmd.words.iter().skip(1).cloned());
        let with_config = Command::new(words, cmd.forms.clone(), cmd.allow_by);
        match model(&with_config) {
            Some((_, Model::NotModelled(why))) => {
                Some(format!("ripgrep's config file {} adds options: {why}", Path::new(&file).display()))
            }
            _ => None,
        }
    }

    /// pytest's `addopts` in the project's configuration, when it points pytest at other
    /// code (`-p plugin`, another config or root directory).
    fn pytest_config(&self) -> Option<String> {
        const FILES: &[&str] = &["pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"];
        const OTHER_CODE: &[&str] = &[
            "-p",
            "-c",
            "--config-file",
            "--rootdir",
            "-o",
            "--override-ini",
            "--confcutdir",
            "--pyargs",
            "--basetemp",
        ];
        for dir in self.cwd.ancestors() {
            for name in FILES {
                let file = dir.join(name);
                let Ok(text) = std::fs::read_to_string(&file) else { continue };
                for line in text.lines().filter(|l| l.trim_start().starts_with("addopts")) {
                    if line.split_whitespace().any(|w| OTHER_CODE.iter().any(|o| w.starts_with(o))) {
                        return Some(format!("pytest's addopts in {} point it at other code", file.display()));
                    }
                }
            }
        }
        None
    }

    /// The first `key = …` among `keys` in `names` found in the working directory, its
    /// parents, or the home directory.
    fn config_keys(&self, names: &[&str], keys: &[&str], tool: &str) -> Option<String> {
        let dirs = self.cwd.ancestors().map(Path::to_path_buf).chain(self.home.clone());
        for dir in dirs {
            for name in names {
                let file = dir.join(name);
                let Ok(text) = std::fs::read_to_string(&file) else { continue };
                for line in text.lines() {
                    let key = line.split(['=', ':']).next().unwrap_or_default().trim().trim_matches('"');
                    // TOML's dotted keys (`build.rustc-wrapper = …`) name the same key.
                    let last = key.rsplit('.').next().unwrap_or(key).trim().trim_matches('"');
                    if keys.contains(&last.to_ascii_lowercase().as_str()) {
                        return Some(format!(
                            "{tool}'s configuration {} sets `{key}`, which names a program",
                            file.display()
                        ));
                    }
                }
            }
        }
        None
    }
}

/// Whether some `PATH` entry is relative (so depends on the working directory) or lies
/// inside one of `roots`: only then can a bare name find a file of the workspace.
/// Worked out once per `PATH` and set of roots (rein's own `PATH` does not change; an
/// earlier command that changes the session shell's is asked on its own).
fn path_reaches(path: &std::ffi::OsStr, roots: &[PathBuf]) -> bool {
    type Key = (std::ffi::OsString, Vec<PathBuf>);
    static SEEN: std::sync::Mutex<Vec<(Key, bool)>> = std::sync::Mutex::new(Vec::new());
    let key = (path.to_os_string(), roots.to_vec());
    if let Ok(seen) = SEEN.lock()
        && let Some((_, v)) = seen.iter().find(|(k, _)| *k == key)
    {
        return *v;
    }
    let reaches = std::env::split_paths(path).any(|dir| {
        !dir.is_absolute() || {
            let c = std::fs::canonicalize(&dir).unwrap_or(dir);
            roots.iter().any(|r| c.starts_with(r))
        }
    });
    if let Ok(mut seen) = SEEN.lock() {
        seen.push((key, reaches));
    }
    reaches
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
