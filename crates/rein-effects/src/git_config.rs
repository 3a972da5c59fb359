//! What a repository's own git configuration makes git run (issue class 4). Every key
//! is checked against an allow-list of settings that run, read and move nothing; any
//! other key (and program keys such as the ones below) makes a git command not modelled. `git
//! status`, `diff`, `log`, `show`, `blame` and `grep` run programs the repository's
//! config names — `core.fsmonitor`, `core.pager`, `diff.external`, textconv and filter
//! drivers, `!` aliases, … A checkout is untrusted input, so a git command is taken as
//! read-only only when the repository's config (read here as text, never by running
//! git) names no program. The user's own `~/.gitconfig` is trusted and not read.

use std::path::{Path, PathBuf};

/// The keys of the repository's config that name a program (or pull in more config),
/// as `section.key`, for the repository git would find from `dir` — its config, its
/// worktree config, and the common directory's of a linked worktree.
pub fn programs_named(dir: &Path) -> Vec<String> {
    programs_at_depth(dir, 0)
}

/// Hooks that git runs for commands that only read (`git status` refreshes the index).
const READ_HOOKS: &[&str] = &["post-index-change", "reference-transaction"];

fn programs_at_depth(dir: &Path, depth: usize) -> Vec<String> {
    let Some(git_dir) = git_dir(dir) else { return Vec::new() };
    let mut found = programs_of(&git_dir);
    // Nested repositories the index holds (gitlinks): status and diff recurse into them,
    // with their own configuration and hooks.
    if let Some(top) = work_tree_top(dir) {
        match crate::git_index::entries(&git_dir, is_sha256(&git_dir)) {
            Some(entries) => {
                for e in entries.iter().filter(|e| e.mode == crate::git_index::GITLINK) {
                    if depth >= 3 {
                        found.push("submodules nested too deeply".into());
                        break;
                    }
                    let nested = top.join(&e.path);
                    found.extend(programs_at_depth(&nested, depth + 1).into_iter().map(|k| format!("{}: {k}", e.path)));
                }
            }
            None => found.push("an index rein cannot read".into()),
        }
    }
    found.sort();
    found.dedup();
    found
}

/// Whether the repository's objects are SHA-256.
fn is_sha256(git_dir: &Path) -> bool {
    std::fs::read_to_string(git_dir.join("config"))
        .is_ok_and(|t| t.to_ascii_lowercase().contains("objectformat") && t.contains("sha256"))
}

/// The files the repository at or above `dir` tracks (absolute); `None` when its index
/// cannot be read. Empty outside a repository.
pub(crate) fn tracked(dir: &Path) -> Option<Vec<PathBuf>> {
    let Some(git_dir) = git_dir(dir) else { return Some(Vec::new()) };
    let top = work_tree_top(dir).unwrap_or_else(|| dir.to_path_buf());
    let entries = crate::git_index::entries(&git_dir, is_sha256(&git_dir))?;
    Some(entries.into_iter().map(|e| top.join(e.path)).collect())
}

/// What one git directory (and its common directory) names as programs: config keys,
/// and hooks that run for reading commands.
fn programs_of(git_dir: &Path) -> Vec<String> {
    let mut dirs = vec![git_dir.to_path_buf()];
    // A linked worktree's git directory names the repository's common directory.
    if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
        dirs.push(git_dir.join(common.trim()));
    }
    let mut found = Vec::new();
    for d in &dirs {
        for file in ["config", "config.worktree"] {
            if let Ok(text) = std::fs::read_to_string(d.join(file)) {
                found.extend(risky_keys(&text));
            }
        }
        for hook in READ_HOOKS {
            if d.join("hooks").join(hook).is_file() {
                found.push(format!("hooks/{hook}"));
            }
        }
    }
    found
}

/// The top of the work tree git would find from `dir` (where `.git` is).
pub fn work_tree_top(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// Whether `d` is itself a git directory (a bare repository): git uses it as one when
/// a command runs inside it, with its config.
fn is_git_dir(d: &Path) -> bool {
    d.join("HEAD").is_file() && d.join("objects").is_dir() && d.join("refs").is_dir()
}

/// The git directory git discovers from `dir`, as git does: at each level up, `.git`
/// (a directory, or a file whose `gitdir:` points elsewhere), or the level itself when
/// it is a git directory.
pub fn git_dir(dir: &Path) -> Option<PathBuf> {
    for d in dir.ancestors() {
        let dot_git = d.join(".git");
        if dot_git.is_dir() {
            return Some(dot_git);
        }
        if dot_git.is_file() {
            let text = std::fs::read_to_string(&dot_git).ok()?;
            let target = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
            return Some(d.join(target));
        }
        if is_git_dir(d) {
            return Some(d.to_path_buf());
        }
    }
    None
}

/// Keys that name programs, read from config text: `[section "sub"]` headers, `key =
/// value` lines, `#`/`;` comments.
fn risky_keys(text: &str) -> Vec<String> {
    // git skips a UTF-8 byte order mark at the start of a config file.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut section = String::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let mut rest = line;
        if let Some(header) = line.strip_prefix('[') {
            let (head, after) = header.split_once(']').unwrap_or((header, ""));
            // `[diff "tool"]` → `diff.tool`; `[core]` → `core`.
            section = match head.split_once(char::is_whitespace) {
                Some((name, sub)) => format!("{}.{}", name.to_ascii_lowercase(), sub.trim().trim_matches('"')),
                None => head.to_ascii_lowercase(),
            };
            rest = after.trim();
            if rest.is_empty() {
                continue;
            }
        }
        let (key, value) = match rest.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), v.trim()),
            None => (rest.trim().to_ascii_lowercase(), "true"),
        };
        let full = format!("{section}.{key}");
        if names_program(&section, &key, value) || !crate::git_inert::inert(&section, &key) {
            out.push(full);
        }
    }
    out
}

fn names_program(section: &str, key: &str, value: &str) -> bool {
    let name = section.split('.').next().unwrap_or(section);
    let sub = section.contains('.');
    let boolean =
        matches!(value.to_ascii_lowercase().as_str(), "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0" | "");
    match (name, key) {
        ("core", "fsmonitor") => !boolean,
        ("core", "pager" | "editor" | "sshcommand" | "hookspath" | "askpass" | "gitproxy") => true,
        // Moves the work tree (and with it what git reads and shows) somewhere else.
        ("core", "worktree") => true,
        ("include", "path") | ("includeif", "path") => true,
        ("alias", _) => value.trim_start_matches('"').starts_with('!'),
        ("submodule", "update") => value.trim_start_matches('"').starts_with('!'),
        ("diff", "external") => true,
        ("diff", "textconv" | "command") if sub => true,
        ("filter", "clean" | "smudge" | "process") if sub => true,
        ("merge", "driver") if sub => true,
        ("gpg", "program") => true,
        ("pager", _) => !boolean,
        ("interactive", "difffilter") | ("sequence", "editor") | ("credential", "helper") => true,
        ("uploadpack", "packobjectshook") => true,
        ("remote", "uploadpack" | "receivepack" | "vcs") if sub => true,
        ("difftool" | "mergetool", "cmd" | "path") if sub => true,
        ("web", "browser") | ("browser", _) | ("man", _) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_keys_are_found() {
        let text = "[core]\n\tbare = false\n\tfsmonitor = ./hook.sh\n[diff \"x\"]\n\ttextconv = ./conv\n[alias]\n\tst = status\n\tevil = !sh -c id\n[include]\n\tpath = ../other\n";
        assert_eq!(risky_keys(text), ["core.fsmonitor", "diff.x.textconv", "alias.evil", "include.path"]);
        assert!(
            risky_keys("[core]\n\tfsmonitor = false\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = x\n")
                .is_empty()
        );
        assert_eq!(risky_keys("[Core] Pager = less"), ["core.pager"]);
    }

    #[test]
    fn only_settings_known_to_be_inert_pass() {
        let clone = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\
                     \tlogallrefupdates = true\n[remote \"origin\"]\n\turl = https://x/y.git\n\
                     \tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\
                     \tmerge = refs/heads/main\n[pull]\n\trebase = true\n[color]\n\tui = auto\n";
        assert!(risky_keys(clone).is_empty(), "{:?}", risky_keys(clone));
        assert_eq!(risky_keys("[lfs \"customtransfer.x\"]\n\tpath = ./e\n"), ["lfs.customtransfer.x.path"]);
        assert_eq!(risky_keys("[unknown]\n\tx = 1\n"), ["unknown.x"]);
        assert_eq!(risky_keys("[submodule \"m\"]\n\tupdate = !sh x\n"), ["submodule.m.update"]);
        assert_eq!(risky_keys("\u{feff}[core]\n\tfsmonitor = ./x\n"), ["core.fsmonitor"]);
    }

    #[test]
    fn the_repository_is_found_from_a_subdirectory() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join(".git")).unwrap();
        std::fs::create_dir_all(d.path().join("src")).unwrap();
        std::fs::write(d.path().join(".git/config"), "[core]\n\tpager = ./p\n").unwrap();
        assert_eq!(programs_named(&d.path().join("src")), ["core.pager"]);
    }
}
