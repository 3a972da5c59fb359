//! The decision for a shell command line, one command at a time: every command must be
//! allowed — by an exact rule (runners), by a prefix rule or the read-only facts where
//! its model is complete (every option, word, path and loaded configuration known), by
//! acceptEdits for file commands inside the workspace — and every file it reads must be
//! inside the workspace or allowed by a Read rule.

use std::collections::HashMap;
use std::path::PathBuf;

use rein_bash::{AllowBy, Command, Kind, Model, Word, file_reads, file_writes, model, recursive_reads};
use rein_effects::{Access, Confinement, Grant, ShellCommand};

use crate::matching::command_hits;
use crate::paths::inside;
use crate::rules::Spec;
use crate::{Behavior, Decision, PermissionMode, Policy, Rule};

/// File commands acceptEdits approves inside the workspace.
const FS_COMMANDS: &[&str] = &["mkdir", "touch", "rm", "rmdir", "mv", "cp"];

impl Policy {
    pub(crate) fn allow_shell(&self, shell: &ShellCommand) -> Decision {
        // Variables an earlier command exported change what every program here runs.
        if !shell.state.changed_env.is_empty() {
            return Decision::new(
                Behavior::Ask,
                format!(
                    "This command needs approval: an earlier command changed the session shell's environment ({}), \
                     which can change what any program runs.",
                    shell.state.changed_env.join(", ")
                ),
                "shell state: changed environment",
            );
        }
        let mut missing: Vec<String> = Vec::new();
        let mut used: Vec<String> = Vec::new();
        let mut sources: Vec<&str> = Vec::new();
        let mut readable = HashMap::new();
        let mut programs = HashMap::new();
        // The widest grant any part needs: rein's judgement of a part grants only what
        // it covered; a part the person's rule allows runs as their setup says.
        let mut grant = Grant::ReadOnly;
        for cmd in &shell.analysis.commands {
            let form = cmd.allow_form();
            match cmd.allow_by {
                AllowBy::DenyCheckOnly => continue,
                AllowBy::ExactRuleOnly => {
                    match self.command_allow_rules().find(|r| !r.text.contains('*') && command_hits(r, &form)) {
                        Some(r) => {
                            used.push(r.describe());
                            grant = Grant::User;
                        }
                        None => missing.push(format!("`{form}`")),
                    }
                }
                AllowBy::Rules => match self.allow_command(shell, cmd, &mut readable, &mut programs) {
                    Ok((by, needs)) => {
                        used.push(by);
                        grant = grant.max(needs);
                    }
                    Err((why, source)) => {
                        missing.push(if why.is_empty() { format!("`{form}`") } else { format!("`{form}` ({why})") });
                        sources.extend(source);
                    }
                },
            }
        }
        for r in shell.analysis.redirects.iter().filter(|r| r.writes_file()) {
            if !self.may_write(shell, shell.paths_of(&r.target)) {
                missing.push(format!("writing to {}", r.target.text));
            }
            grant = grant.max(Grant::Edits);
        }
        for r in shell.analysis.redirects.iter().filter(|r| r.writes_descriptor()) {
            missing.push(format!("writing to descriptor {}, which the command does not open itself", r.target.text));
        }
        // What a redirection (or `xargs -a`) reads is held to the workspace wall too.
        for r in shell.analysis.redirects.iter().filter(|r| r.reads_file()) {
            let ok = shell.paths_of(&r.target).is_some_and(|ps| ps.iter().all(|p| self.may_read(p, &mut readable)));
            if !ok {
                missing.push(format!("reading {} (outside the workspace)", r.target.text));
                sources.push("workspace wall");
            }
        }
        if missing.is_empty() {
            used.dedup();
            return Decision::new(Behavior::Allow, "Allowed: every part of the command is allowed.", used.join("; "))
                .granting(grant);
        }
        sources.dedup();
        let source = if sources.is_empty() { "default".to_string() } else { sources.join(", ") };
        Decision::new(
            Behavior::Ask,
            format!("This command needs approval: no rule allows {}.", missing.join(", ")),
            source,
        )
    }

    /// What allows one command, or why nothing does (with the source to report). A
    /// program with a table is covered — by a prefix rule or, for a reader, by the
    /// read-only facts — only when its model is complete, every file it reads is inside
    /// the workspace (or allowed by a Read rule) and what it writes may be written.
    fn allow_command(
        &self,
        shell: &ShellCommand,
        cmd: &Command,
        readable: &mut HashMap<PathBuf, bool>,
        programs: &mut HashMap<String, Option<PathBuf>>,
    ) -> Result<(String, Grant), (String, Option<&'static str>)> {
        if let Some((why, source)) = self.not_the_reader_allowed(shell, cmd, programs) {
            return Err((why, Some(source)));
        }
        let form = cmd.allow_form();
        let rule = self.command_allow_rules().find(|r| command_hits(r, &form));
        let accept_edits = self.mode == PermissionMode::AcceptEdits;
        let (kind, reading) = match model(cmd) {
            // Enforced, not predicted: git's everyday writers, which rein does not
            // model but the person's rule names, run in the sandbox, which holds what
            // they write to the wall (protected files read-only, denied reads masked,
            // no network but the allowed) — in the forms GIT_WRITERS lists, which print
            // no file's content and run no program; one that checks content out only
            // where no Read-denied file could be in the repository.
            Some((_, Model::NotModelled(why))) => {
                let writer = is_git_writer(cmd);
                if let Some(r) = rule
                    && shell.confinement == Confinement::Sandboxed
                    && writer.is_some_and(|checks_out| {
                        !checks_out || !self.tracks_denied(shell, &rein_bash::Reading::default())
                    })
                {
                    return Ok((format!("{} (in the sandbox)", r.describe()), Grant::User));
                }
                return Err((why.clone(), Some("not modelled")));
            }
            Some((kind, Model::Complete(r))) => (kind, r),
            None => {
                if let Some(r) = rule {
                    return Ok((r.describe(), Grant::User));
                }
                let fs_writer = cmd.program().is_some_and(|p| FS_COMMANDS.contains(&p));
                if accept_edits && fs_writer && self.may_write(shell, words_paths(shell, &file_writes(cmd))) {
                    return Ok(("mode acceptEdits".into(), Grant::Edits));
                }
                return Err((String::new(), None));
            }
        };
        let by = match (rule, kind) {
            (Some(r), _) => (r.describe(), Grant::User),
            (None, Kind::Reader) if reading.writes.is_empty() => ("read-only command".to_string(), Grant::ReadOnly),
            (None, Kind::Reader) if accept_edits => ("mode acceptEdits".to_string(), Grant::Edits),
            (None, _) => return Err((String::new(), None)),
        };
        if let Some(trees) = cmd.split_listing()
            && let Some(hit) = crate::links::split_hazard(shell, trees)
        {
            let why = format!("bash splits and globs the names the listing prints, and one is not a plain name: {hit}");
            return Err((why, Some("not modelled")));
        }
        if let Some(hit) = shell.option_glob_hit(reading) {
            let why = format!(
                "a glob where {} still reads options matches `{hit}`, which it would read as an option",
                cmd.program().unwrap_or("the program")
            );
            return Err((why, Some("not modelled")));
        }
        // Two paths outside a repository: git diff compares them as --no-index does.
        let two_paths = reading.reads.len() + reading.repo_reads.len() >= 2;
        if reading.diff_any_paths && two_paths && !shell.in_repository(reading.chdir.as_ref()) {
            let why = "outside a repository `git diff` compares any two paths, directories whole, as --no-index does";
            return Err((why.to_string(), Some("not modelled")));
        }
        if reading.repo_history && self.tracks_denied(shell, reading) {
            let why = "it prints file contents from the repository's history or index, which no path on the line \
                       names, and a Read deny rule covers files of the repository (tracked now, or perhaps in \
                       its history)";
            return Err((why.to_string(), Some("repository history")));
        }
        if let Some(p) = self.unreadable(shell, cmd, reading, readable) {
            return Err((format!("it reads {p}, outside the workspace"), Some("workspace wall")));
        }
        if let Some(dir) = self.links_out(shell, reading) {
            let why = format!("it follows symbolic links out of {dir}");
            return Err((why, Some("workspace wall")));
        }
        if !reading.writes.is_empty() {
            let writes: Option<Vec<Vec<PathBuf>>> =
                reading.writes.iter().map(|w| shell.paths_in(w, reading.chdir.as_ref())).collect();
            if !self.may_write(shell, writes.map(|v| v.concat())) {
                let names: Vec<&str> = reading.writes.iter().map(|w| w.text.as_str()).collect();
                return Err((format!("it writes {}", names.join(", ")), None));
            }
        }
        Ok(by)
    }

    /// A file may be written by a command: inside the workspace, and acceptEdits or an
    /// Edit rule allows it.
    fn may_write(&self, _shell: &ShellCommand, paths: Option<Vec<PathBuf>>) -> bool {
        paths.is_some_and(|ps| {
            !ps.is_empty()
                && ps.iter().all(|p| inside(p, &self.roots))
                && (self.mode == PermissionMode::AcceptEdits
                    || self.allow.iter().any(|rule| self.path_allow(rule, &ps, true)))
        })
    }

    /// Why a command is not the program an allow or the read-only facts mean: a name
    /// the session shell now defines as a function, a program found inside the
    /// workspace, a repository config that names programs. With the source to report.
    fn not_the_reader_allowed(
        &self,
        shell: &ShellCommand,
        cmd: &Command,
        programs: &mut HashMap<String, Option<PathBuf>>,
    ) -> Option<(String, &'static str)> {
        let program = cmd.program()?;
        if shell.state.functions.iter().any(|f| f == program) {
            let why = format!("`{program}` is a shell function an earlier command defined");
            return Some((why, "shell state: function"));
        }
        let found =
            programs.entry(program.to_string()).or_insert_with(|| shell.program_in_workspace(program, &self.roots));
        if let Some(found) = found {
            let why = format!("`{program}` runs {}, a file inside the workspace", found.display());
            return Some((why, "program path"));
        }
        if program == "git" && !shell.git_programs.is_empty() {
            let why = format!(
                "the repository's git config names programs or settings rein does not model as inert: {}",
                shell.git_programs.join(", ")
            );
            return Some((why, "repository config"));
        }
        if let Some(why) = shell.config_problem(cmd) {
            return Some((why, "program config"));
        }
        None
    }

    fn command_allow_rules(&self) -> impl Iterator<Item = &Rule> {
        self.allow.iter().filter(|r| matches!(r.spec, Some(Spec::Command(_))))
    }

    /// The first file the command reads that is neither inside the workspace nor
    /// allowed by a Read rule; a `cd` must stay inside the workspace.
    /// `readable` remembers each path's answer: a line names the same file many times.
    fn unreadable(
        &self,
        shell: &ShellCommand,
        cmd: &Command,
        reading: &rein_bash::Reading,
        readable: &mut HashMap<PathBuf, bool>,
    ) -> Option<String> {
        let paths = if matches!(cmd.program(), Some("cd" | "pushd")) {
            match cmd.words.iter().skip(1).find(|w| !w.text.starts_with('-')) {
                Some(w) => shell.paths_of(w),
                None => shell.home.clone().map(|h| vec![h]),
            }
        } else {
            // What the model reads, and every operand a reader of files would read: a
            // gap in one is covered by the other.
            let heuristic: Vec<Vec<PathBuf>> = file_reads(cmd)
                .iter()
                .chain(&recursive_reads(cmd))
                // Listings name files, they do not read them: held to the wall when they
                // name a place outside the line's directories (`ls ~/.ssh`, `du /`).
                .chain(reading.listed.iter().filter(|w| w.text.starts_with(['/', '~'])))
                .filter(|w| w.text != "-" && w.literal)
                .filter_map(|w| shell.paths_in(w, reading.chdir.as_ref()))
                .collect();
            shell.model_reads(reading).map(|mut v| {
                v.extend(heuristic.concat());
                v
            })
        };
        let Some(paths) = paths else { return Some("a file only known at run time".into()) };
        paths.into_iter().find(|p| !self.may_read(p, readable)).map(|p| p.display().to_string())
    }

    /// Whether a repository the git command reads tracks a file a Read deny rule covers
    /// (or its index cannot be read).
    fn tracks_denied(&self, shell: &ShellCommand, reading: &rein_bash::Reading) -> bool {
        let patterns: Vec<&crate::paths::PathPattern> = self
            .deny
            .iter()
            .filter_map(|r| match &r.spec {
                Some(Spec::Path(p, Access::Read)) => Some(p),
                _ => None,
            })
            .collect();
        if patterns.is_empty() {
            return false;
        }
        let Some(tracked) = shell.tracked_in(reading.chdir.as_ref()) else { return true };
        if tracked.iter().any(|t| patterns.iter().any(|p| p.matches(t) || p.files(&self.roots).is_same_file(t))) {
            return true;
        }
        // `git diff PATHS`: the work tree against the index, which was checked above.
        let paths_only = || {
            reading
                .reads
                .iter()
                .all(|w| shell.paths_in(w, reading.chdir.as_ref()).is_some_and(|ps| ps.iter().all(|p| p.exists())))
        };
        if reading.worktree_diff && reading.repo_reads.is_empty() && paths_only() {
            return false;
        }
        // History holds what the index no longer does (a secret committed, then removed):
        // rein does not read history, so a pattern that could name a file of the
        // repository is enough.
        let Some(tops) = shell.repository_tops(reading.chdir.as_ref()) else { return true };
        tops.iter()
            .flat_map(|t| crate::paths::spellings(t))
            .any(|top| patterns.iter().any(|p| p.base.starts_with(&top) || top.starts_with(&p.base)))
    }

    /// `p` may be read by a command: inside the workspace, or allowed by a Read rule.
    fn may_read(&self, p: &std::path::Path, readable: &mut HashMap<PathBuf, bool>) -> bool {
        *readable.entry(p.to_path_buf()).or_insert_with_key(|p| {
            (inside(p, &self.roots) && !self.holds_credentials(p))
                || self.allow.iter().any(|r| self.path_allow(r, std::slice::from_ref(p), false))
        })
    }

    /// A tree read following links (`grep -R`, `rg -L`): the first directory whose
    /// tree holds a link to outside itself (elsewhere in the workspace it may be a file a
    /// Read deny rule protects, or `..`).
    fn links_out(&self, shell: &ShellCommand, reading: &rein_bash::Reading) -> Option<String> {
        if !reading.follows_links {
            return None;
        }
        for w in &reading.trees {
            for dir in shell.paths_in(w, reading.chdir.as_ref()).unwrap_or_default() {
                let tree = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
                if crate::links::leads_outside(&dir, std::slice::from_ref(&tree)) {
                    return Some(dir.display().to_string());
                }
            }
        }
        None
    }
}

/// The paths of `words`, or `None` when one is only known at run time.
fn words_paths(shell: &ShellCommand, words: &[Word]) -> Option<Vec<PathBuf>> {
    let lists: Option<Vec<Vec<PathBuf>>> = words.iter().map(|w| shell.paths_of(w)).collect();
    lists.map(|v| v.concat())
}

/// git's everyday writers as `Bash(git:*)` runs them in the sandbox, each with the
/// options it may have: none that prints a file's content (patch modes), runs a
/// program (an editor, `-c`, hooks' paths, templates), reads a file into the history
/// (`-F`) or checks out content (which a Read-denied file's copy could be); no global
/// option at all. `(subcommand, options taking no value, options taking one)`.
const GIT_WRITERS: &[(&str, &[&str], &[&str])] = &[
    (
        "add",
        &[
            "-A",
            "--all",
            "-u",
            "--update",
            "--no-all",
            "-N",
            "--intent-to-add",
            "-f",
            "--force",
            "-v",
            "--verbose",
            "-n",
            "--dry-run",
        ],
        &[],
    ),
    (
        "commit",
        &[
            "-a",
            "--all",
            "-q",
            "--quiet",
            "-s",
            "--signoff",
            "--allow-empty",
            "--no-verify",
            "-n",
            "--amend",
            "--no-edit",
        ],
        &["-m", "--message"],
    ),
    (
        "branch",
        &[
            "-d",
            "-D",
            "--delete",
            "-m",
            "-M",
            "--move",
            "-c",
            "-C",
            "--copy",
            "-f",
            "--force",
            "-l",
            "--list",
            "-a",
            "-r",
            "-v",
            "-vv",
            "--show-current",
            "-q",
        ],
        &[],
    ),
    ("tag", &["-d", "--delete", "-l", "--list", "-f", "--force"], &["-m", "--message"]),
    ("mv", &["-f", "--force", "-k", "-n", "--dry-run", "-v"], &[]),
    ("rm", &["-f", "--force", "-r", "-n", "--dry-run", "-q", "--quiet", "--cached"], &[]),
    ("init", &["-q", "--quiet"], &["-b", "--initial-branch"]),
    (
        "stash",
        &["-q", "--quiet", "-k", "--keep-index", "--index", "push", "save", "list", "pop", "apply", "drop", "clear"],
        &["-m", "--message"],
    ),
    ("worktree", &["add", "list", "prune", "remove", "--detach", "-q", "--quiet", "-f", "--force"], &["-b", "-B"]),
];

/// Whether `cmd` is one of [`GIT_WRITERS`] as listed there; `checks_out`: it writes
/// content from the repository into the work tree (`stash pop`, `worktree add`).
fn is_git_writer(cmd: &Command) -> Option<bool> {
    if cmd.program() != Some("git") {
        return None;
    }
    let mut words = cmd.words.iter().skip(1).map(|w| w.text.as_str());
    let sub = words.next()?;
    let (_, flags, valued) = GIT_WRITERS.iter().find(|(name, _, _)| *name == sub)?;
    let mut after_dashes = false;
    let mut rest = Vec::new();
    while let Some(w) = words.next() {
        if after_dashes || !w.starts_with('-') {
            rest.push(w);
        } else if w == "--" {
            after_dashes = true;
        } else if valued.contains(&w) {
            words.next()?;
        } else if !(flags.contains(&w) || valued.iter().any(|v| v.starts_with("--") && w.starts_with(&format!("{v}="))))
        {
            if w.starts_with("--") || w.len() <= 2 {
                return None;
            }
            // Short options together (`-qm MESSAGE`, `-am"x"`): each a flag, but for a
            // last one that takes a value (the next word, or the rest of this one).
            let letters: Vec<char> = w[1..].chars().collect();
            for (i, c) in letters.iter().enumerate() {
                let one = format!("-{c}");
                if valued.contains(&one.as_str()) {
                    if i + 1 == letters.len() {
                        words.next()?;
                    }
                    break;
                }
                if !flags.contains(&one.as_str()) {
                    return None;
                }
            }
        }
    }
    // Subcommands of stash and worktree are words too: only the listed ones.
    if matches!(sub, "stash" | "worktree")
        && let Some(first) = rest.first()
        && !flags.contains(first)
    {
        return None;
    }
    let checks_out = match sub {
        "stash" => rest.first().is_some_and(|s| matches!(*s, "pop" | "apply")),
        "worktree" => rest.first() == Some(&"add"),
        _ => false,
    };
    Some(checks_out)
}
