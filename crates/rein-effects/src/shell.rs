//! A shell command line as an effect: its text, the directory it starts in, its analysis,
//! and the files its words name.

use std::path::{Path, PathBuf};

use rein_bash::{Analysis, Command, Model, Word, analyze, file_reads, file_writes, model, recursive_reads};

use crate::paths::{absolute, expand_glob, joined, kernel_path};

/// Commands that change the session shell's own state (directory, variables, functions,
/// options): such a line never runs beside other calls.
const SHELL_STATE: &[&str] = &[
    "cd", "pushd", "popd", "export", "unset", "alias", "unalias", "set", "shopt", "source", ".", "declare", "typeset",
    "readonly", "local", "hash", "enable", "trap", "builtin", "umask", "ulimit",
];

/// What earlier commands left in the session shell: functions, and exported variables
/// that differ from rein's own environment. An allowed name that the state shadows is
/// not the same program any more.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellState {
    pub functions: Vec<String>,
    /// Variables (not inert ones) added or changed since the session started.
    pub changed_env: Vec<String>,
}

/// The files a line touches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellFiles {
    pub reads: Vec<PathBuf>,
    pub writes: Vec<PathBuf>,
    /// Directories read recursively.
    pub reads_within: Vec<PathBuf>,
    /// Some file is only known at run time.
    pub dynamic: bool,
}

/// What a permission decision lets a shell command do once it runs. The person's own
/// say — their allow rule, their answer, their mode, their hook — grants what their setup
/// gives (the sandbox only if they turned it on). What rein decided by itself grants only
/// what its judgement covered, and the sandbox enforces exactly that, whether or not the
/// person turned it on: a wrong judgement is then contained rather than trusted.
/// Ordered from narrowest to widest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Grant {
    /// Judged read-only: nothing writable but a private temp directory, no network.
    ReadOnly,
    /// acceptEdits' file commands and writes it allows: the workspace writable (its
    /// protected paths held), no network.
    Edits,
    /// The auto-mode judge or `autoAllowBashIfSandboxed`: the workspace writable (its
    /// protected paths held) and the network as the sandbox settings give it.
    Workspace,
    /// The person's own say: their setup decides where it runs.
    #[default]
    User,
}

impl Grant {
    pub fn name(self) -> &'static str {
        match self {
            Grant::ReadOnly => "read-only jail",
            Grant::Edits => "workspace-edits jail",
            Grant::Workspace => "workspace jail",
            Grant::User => "as configured",
        }
    }
}

/// Where a command line will run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Confinement {
    /// No sandbox is on (or none is available): the command reaches the host.
    #[default]
    None,
    /// Inside the OS sandbox.
    Sandboxed,
    /// The sandbox is on but this call asked to run outside it
    /// (`dangerouslyDisableSandbox`): always asked, never auto-allowed.
    Unsandboxed,
}

/// The paths each word names, worked out once per line (each costs a walk of the disk:
/// symlinks resolved as the kernel resolves them, globs expanded).
#[derive(Debug, Default)]
struct PathsOf(std::sync::Mutex<std::collections::HashMap<WordKey, Option<Vec<PathBuf>>>>);

/// A word's text and whether it is a glob.
type WordKey = (String, bool);

impl Clone for PathsOf {
    fn clone(&self) -> Self {
        PathsOf::default()
    }
}

impl PartialEq for PathsOf {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for PathsOf {}

/// A command line a call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellCommand {
    pub command: String,
    /// Where the line starts: the session shell's current directory.
    pub cwd: PathBuf,
    pub home: Option<PathBuf>,
    pub analysis: Analysis,
    /// Directories relative paths may be relative to: `cwd`, and every literal target of
    /// a `cd`/`pushd` in the line. `None` when a `cd` goes somewhere only known at run
    /// time (relative paths are then unknown).
    bases: Option<Vec<PathBuf>>,
    /// Keys of the repository's git config that name programs (read when the line runs
    /// git).
    pub git_programs: Vec<String>,
    pub state: ShellState,
    pub confinement: Confinement,
    paths: PathsOf,
}

impl ShellCommand {
    /// Analyse `command`, to be run in `cwd`.
    pub fn new(command: &str, cwd: &Path, home: Option<&Path>) -> Self {
        let analysis = analyze(command);
        let bases = bases(&analysis, cwd, home);
        let mut shell = ShellCommand {
            command: command.to_string(),
            cwd: cwd.to_path_buf(),
            home: home.map(Path::to_path_buf),
            analysis,
            bases,
            git_programs: Vec::new(),
            state: ShellState::default(),
            confinement: Confinement::None,
            paths: PathsOf::default(),
        };
        shell.git_programs = shell.git_config_programs();
        shell
    }

    /// What the config of each repository the line's git commands can end up in (every
    /// directory the line may be in, `git -C DIR`) names as programs.
    fn git_config_programs(&self) -> Vec<String> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        for cmd in self.analysis.commands.iter().filter(|c| c.program() == Some("git")) {
            dirs.extend(self.bases.clone().unwrap_or_else(|| vec![self.cwd.clone()]));
            if let Some((_, Model::Complete(r))) = model(cmd)
                && let Some(dir) = &r.chdir
            {
                dirs.extend(self.paths_of(dir).unwrap_or_default());
            }
        }
        dirs.sort();
        dirs.dedup();
        let mut found: Vec<String> = dirs.iter().flat_map(|d| crate::git_config::programs_named(d)).collect();
        found.dedup();
        found
    }

    /// The same line, in a session shell left in `state` by earlier commands.
    pub fn with_state(mut self, state: ShellState) -> Self {
        self.state = state;
        self
    }

    /// The paths a word names: made absolute (against every directory the line may be
    /// in), globs expanded as the shell would. `None` when only known at run time.
    pub fn paths_of(&self, w: &Word) -> Option<Vec<PathBuf>> {
        if !w.literal {
            return None;
        }
        let key = (w.text.clone(), w.glob);
        if let Some(found) = self.paths.0.lock().ok().and_then(|m| m.get(&key).cloned()) {
            return found;
        }
        let found = self.find_paths(w);
        if let Ok(mut m) = self.paths.0.lock() {
            m.insert(key, found.clone());
        }
        found
    }

    fn find_paths(&self, w: &Word) -> Option<Vec<PathBuf>> {
        let relative = !(w.text.starts_with('/') || w.text.starts_with('~'));
        let bases: Vec<&Path> = if relative {
            self.bases.as_ref()?.iter().map(PathBuf::as_path).collect()
        } else {
            vec![self.cwd.as_path()]
        };
        let mut out = Vec::new();
        for base in bases {
            let path = absolute(&w.text, base, self.home.as_deref());
            if w.glob {
                // Unnormalised: the glob's directory is resolved as the kernel does it.
                // GLOBIGNORE set (in rein's environment or by an earlier command) makes
                // bash's `*` match dotfiles too.
                let dotglob = rein_process::env::os(rein_process::env::Var::Globignore).is_some()
                    || self.state.changed_env.iter().any(|v| v == "GLOBIGNORE");
                out.extend(expand_glob(&joined(&w.text, base, self.home.as_deref()), dotglob)?);
            } else {
                // The path as written, and as the kernel resolves it (`link/../x` is
                // relative to where the link points): rules hold for both.
                if let Ok(real) = kernel_path(&joined(&w.text, base, self.home.as_deref()))
                    && real != path
                {
                    out.push(real);
                }
                out.push(path);
            }
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    /// The paths `w` names for a program working in `chdir` (`git -C DIR`): relative
    /// paths are relative to it.
    pub fn paths_in(&self, w: &Word, chdir: Option<&Word>) -> Option<Vec<PathBuf>> {
        let Some(dir) = chdir.filter(|_| !(w.text.starts_with('/') || w.text.starts_with('~'))) else {
            return self.paths_of(w);
        };
        let dirs = self.paths_of(dir)?;
        let rel = self.paths_of(w)?;
        // `paths_of` made `w` absolute against the line's bases; re-anchor it at `dir`.
        let mut out = Vec::new();
        for d in dirs {
            for base in self.bases.as_deref().unwrap_or(&[]) {
                for p in &rel {
                    if let Ok(tail) = p.strip_prefix(base) {
                        out.push(crate::paths::lexical(&d.join(tail)));
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    /// The paths a git object spec's file (`HEAD:path`) names: relative to the top of
    /// the repository, or to the directory git runs in when it starts with `./` or `../`.
    pub fn repo_paths(&self, w: &Word, chdir: Option<&Word>) -> Option<Vec<PathBuf>> {
        if w.text.starts_with("./") || w.text.starts_with("../") {
            return self.paths_in(w, chdir);
        }
        let starts = match chdir {
            Some(d) => self.paths_of(d)?,
            None => self.bases.clone()?,
        };
        let mut out = Vec::new();
        for s in starts {
            let top = crate::git_config::work_tree_top(&s).unwrap_or(s);
            out.push(crate::paths::lexical(&top.join(&w.text)));
        }
        Some(out)
    }

    /// Every file the command's table says it reads: by name, whole trees, the
    /// directory it moves to, and repository files. `None` when one is only known at run
    /// time; the command's own problems come from its model.
    pub fn model_reads(&self, r: &rein_bash::Reading) -> Option<Vec<PathBuf>> {
        let chdir = r.chdir.as_ref();
        let mut out = Vec::new();
        for w in r.reads.iter().chain(&r.trees) {
            out.extend(self.paths_in(w, chdir)?);
        }
        for w in &r.repo_reads {
            out.extend(self.repo_paths(w, chdir)?);
        }
        if let Some(d) = chdir {
            out.extend(self.paths_of(d)?);
        }
        Some(out)
    }

    /// The first file a glob in option position matches whose name starts with `-` (the
    /// program would read it as an option), or the glob itself when its matches are
    /// only known at run time. `None`: every such glob is a file operand.
    pub fn option_glob_hit(&self, r: &rein_bash::Reading) -> Option<String> {
        for w in &r.option_globs {
            let Some(paths) = self.paths_in(w, r.chdir.as_ref()) else {
                return Some(w.text.clone());
            };
            let dashed = paths.iter().find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('-')));
            if let Some(p) = dashed {
                return Some(p.display().to_string());
            }
        }
        None
    }

    /// The top of the work tree of every repository a git command can be in (the line's
    /// directories, or `chdir`); `None` when one is only known at run time.
    pub fn repository_tops(&self, chdir: Option<&Word>) -> Option<Vec<PathBuf>> {
        let dirs = match chdir {
            Some(d) => self.paths_of(d)?,
            None => self.bases.clone()?,
        };
        Some(dirs.iter().filter_map(|d| crate::git_config::work_tree_top(d)).collect())
    }

    /// Whether every directory a git command can be in (the line's directories, or
    /// `chdir`) lies in a git work tree.
    pub fn in_repository(&self, chdir: Option<&Word>) -> bool {
        let dirs = match chdir {
            Some(d) => self.paths_of(d),
            None => self.bases.clone(),
        };
        dirs.is_some_and(|ds| ds.iter().all(|d| crate::git_config::work_tree_top(d).is_some()))
    }

    /// The files tracked by every repository a git command can be in (the line's
    /// directories, or `chdir`); `None` when an index cannot be read.
    pub fn tracked_in(&self, chdir: Option<&Word>) -> Option<Vec<PathBuf>> {
        let dirs = match chdir {
            Some(d) => self.paths_of(d)?,
            None => self.bases.clone()?,
        };
        let mut out = Vec::new();
        for d in dirs {
            out.extend(crate::git_config::tracked(&d)?);
        }
        Some(out)
    }

    /// The files the line reads and writes (by argument and by redirection), the
    /// directories it reads recursively, and whether some are only known at run time.
    pub fn files(&self) -> ShellFiles {
        let mut f = ShellFiles::default();
        let mut extra_reads: Vec<PathBuf> = Vec::new();
        let mut extra_dynamic = false;
        #[derive(Clone, Copy)]
        enum How {
            Read,
            Write,
            Within,
        }
        let add = |f: &mut ShellFiles, paths: Option<Vec<PathBuf>>, how: How| match (paths, how) {
            (Some(ps), How::Read) => f.reads.extend(ps),
            (Some(ps), How::Write) => f.writes.extend(ps),
            (Some(ps), How::Within) => f.reads_within.extend(ps),
            (None, _) => f.dynamic = true,
        };
        for cmd in &self.analysis.commands {
            let chdir = match model(cmd) {
                Some((_, Model::Complete(r))) => {
                    for w in &r.repo_reads {
                        match self.repo_paths(w, r.chdir.as_ref()) {
                            Some(ps) => extra_reads.extend(ps),
                            None => extra_dynamic = true,
                        }
                    }
                    r.chdir.clone()
                }
                _ => None,
            };
            let chdir = chdir.as_ref();
            for w in file_reads(cmd).iter().filter(|w| w.text != "-") {
                add(&mut f, self.paths_in(w, chdir), How::Read);
            }
            for w in file_writes(cmd) {
                add(&mut f, self.paths_in(&w, chdir), How::Write);
            }
            for w in recursive_reads(cmd) {
                add(&mut f, self.paths_in(&w, chdir), How::Within);
            }
        }
        f.reads.extend(extra_reads);
        f.dynamic |= extra_dynamic;
        for r in &self.analysis.redirects {
            // A descriptor the line did not open is a file only known at run time.
            f.dynamic |= r.writes_descriptor();
            if r.writes_file() {
                add(&mut f, self.paths_of(&r.target), How::Write);
            } else if r.reads_file() {
                add(&mut f, self.paths_of(&r.target), How::Read);
            }
        }
        // Each path once: the policy checks every one against the disk.
        for list in [&mut f.reads, &mut f.writes, &mut f.reads_within] {
            list.sort();
            list.dedup();
        }
        f
    }

    /// Whether the line changes the session shell's directory, variables, functions or
    /// options.
    pub fn changes_shell_state(&self) -> bool {
        self.analysis.commands.iter().any(|c| c.program().is_some_and(|p| SHELL_STATE.contains(&p)))
    }
}

/// `cwd` and every literal `cd`/`pushd` target (against every base so far); `None` when a
/// target is only known at run time (`cd "$X"`, `cd -`, `popd`).
fn bases(a: &Analysis, cwd: &Path, home: Option<&Path>) -> Option<Vec<PathBuf>> {
    let mut bases = vec![cwd.to_path_buf()];
    for cmd in a.commands.iter().filter(|c| matches!(c.program(), Some("cd" | "pushd" | "popd"))) {
        let target = cd_target(cmd)?;
        let more: Vec<PathBuf> = match target {
            None => vec![home?.to_path_buf()],
            Some(t) => bases.iter().map(|b| absolute(&t, b, home)).collect(),
        };
        for m in more {
            if !bases.contains(&m) {
                bases.push(m);
            }
        }
    }
    Some(bases)
}

/// `Some(None)` for a bare `cd` (home), `Some(Some(dir))` for a literal target, `None`
/// when the target is only known at run time.
fn cd_target(cmd: &Command) -> Option<Option<String>> {
    if cmd.program() == Some("popd") {
        return None;
    }
    let args: Vec<&Word> = cmd.words[1..].iter().filter(|w| !(w.text.starts_with('-') && w.text.len() > 1)).collect();
    match args.first() {
        None => Some(None),
        Some(w) if w.literal && !w.glob && w.text != "-" => Some(Some(w.text.clone())),
        Some(_) => None,
    }
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
