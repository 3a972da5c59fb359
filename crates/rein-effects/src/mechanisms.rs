//! The files that make something run without the person choosing to run it, by the
//! mechanism that runs them: one table for the sandbox (which holds them read-only in
//! every writable root, at any depth) and the permission engine (which asks before a
//! tool writes them). A file name is a row of a mechanism, never the rule: a new
//! mechanism is a new row with its files, and each row has a test.
//!
//! The git structure itself (git directories found by their shape, `.git` files,
//! `commondir`, included configs, a `core.hooksPath` directory) is found by the
//! sandbox's walk, not by name.
//!
//! Not here: `pyvenv.cfg` and `site-packages/*.pth` (a venv is code the command may
//! write anyway), `.env` files (data), `.lfsconfig` (git-lfs takes only URLs and fetch
//! filters from it), `Makefile`s, `package.json` scripts and `pyproject.toml` (code,
//! like the rest of the tree: run only when the person runs them).

/// A protected file: a name wherever it is, or a name inside a directory of that name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    Any(&'static str),
    In(&'static str, &'static str),
}

impl Name {
    /// The file's own name.
    pub fn name(self) -> &'static str {
        match self {
            Name::Any(n) | Name::In(_, n) => n,
        }
    }
}

/// One mechanism and its files.
#[derive(Debug)]
pub struct Mechanism {
    /// What runs, and when.
    pub runs: &'static str,
    pub files: &'static [Name],
    /// Whether a permission rule naming the file (`Edit(.npmrc)`, an `allowWrite` entry)
    /// keeps it writable in the sandbox: toolchain and editor files, never the agent,
    /// shell and version-control ones.
    pub writable_by_rule: bool,
}

use Name::{Any, In};

/// Every mechanism.
pub const MECHANISMS: &[Mechanism] = &[
    Mechanism {
        runs: "rein and Claude Code: hooks, MCP servers, status lines, settings, commands and skills the next session runs",
        files: &[Any(".claude"), Any(".rein"), Any(".mcp.json"), Any(".claude.json")],
        writable_by_rule: false,
    },
    Mechanism {
        runs: "a shell at start or exit (login, interactive, every zsh), and readline's key bindings",
        files: &[
            Any(".bashrc"),
            Any(".bash_profile"),
            Any(".bash_login"),
            Any(".bash_logout"),
            Any(".bash_aliases"),
            Any(".profile"),
            Any(".zshrc"),
            Any(".zprofile"),
            Any(".zshenv"),
            Any(".zlogin"),
            Any(".zlogout"),
            Any(".kshrc"),
            Any(".cshrc"),
            Any(".tcshrc"),
            Any(".inputrc"),
            In("fish", "config.fish"),
            In("fish", "conf.d"),
        ],
        writable_by_rule: false,
    },
    Mechanism {
        runs: "git, for every command: the user's configuration (pager, editor, fsmonitor, aliases, credential helpers)",
        files: &[Any(".gitconfig"), In("git", "config")],
        writable_by_rule: false,
    },
    Mechanism {
        runs: "git, from tracked files: filter, diff and merge drivers per path; submodule URLs and paths",
        files: &[Any(".gitattributes"), Any(".gitmodules")],
        writable_by_rule: true,
    },
    Mechanism {
        runs: "git hook managers on commit and checkout (husky sets core.hooksPath; pre-commit, lefthook, overcommit and simple-git-hooks run the commands their files name)",
        files: &[
            Any(".husky"),
            Any(".pre-commit-config.yaml"),
            Any("lefthook.yml"),
            Any(".lefthook.yml"),
            Any("lefthook-local.yml"),
            Any(".lefthook-local.yml"),
            Any(".overcommit.yml"),
            Any(".simple-git-hooks.json"),
            Any(".simple-git-hooks.js"),
            Any(".simple-git-hooks.cjs"),
            Any("simple-git-hooks.json"),
        ],
        writable_by_rule: true,
    },
    Mechanism {
        runs: "other version control on every command: Mercurial's [hooks] and extensions, Jujutsu's aliases and fsmonitor, darcs' posthooks",
        files: &[
            In(".hg", "hgrc"),
            In(".hg", "hgrc.d"),
            In(".hg", "sharedpath"),
            In("repo", "config.toml"),
            In("_darcs", "prefs"),
        ],
        writable_by_rule: false,
    },
    Mechanism {
        runs: "a directory environment on `cd`: direnv runs .envrc, mise runs its tasks, hooks and env scripts",
        files: &[
            Any(".envrc"),
            Any("mise.toml"),
            Any(".mise.toml"),
            Any("mise.local.toml"),
            Any(".mise.local.toml"),
            In("mise", "config.toml"),
        ],
        writable_by_rule: true,
    },
    Mechanism {
        runs: "an editor when the folder is opened: tasks, launch configurations, devcontainer commands, exrc files",
        files: &[
            Any(".vscode"),
            Any(".idea"),
            Any(".devcontainer"),
            Any(".zed"),
            Any(".fleet"),
            Any(".nvim.lua"),
            Any(".nvimrc"),
            Any(".exrc"),
            Any(".vimrc"),
            Any("_vimrc"),
            Any(".gvimrc"),
        ],
        writable_by_rule: true,
    },
    Mechanism {
        runs: "tools at start from the directory or the home: tmux (run-shell), ripgrep's flags, irb, gdb and lldb command files",
        files: &[Any(".tmux.conf"), Any(".ripgreprc"), Any(".irbrc"), Any(".gdbinit"), Any(".lldbinit")],
        writable_by_rule: false,
    },
    Mechanism {
        runs: "npm, yarn and pnpm on install and run: script-shell, node-options, yarnPath, plugins, pnpmfile hooks",
        files: &[Any(".npmrc"), Any(".yarnrc"), Any(".yarnrc.yml"), Any(".pnpmfile.cjs"), Any("pnpm-workspace.yaml")],
        writable_by_rule: true,
    },
    Mechanism {
        runs: "cargo and rustup on every build: runners, linkers, rustc wrappers, aliases, a toolchain path",
        files: &[
            In(".cargo", "config"),
            In(".cargo", "config.toml"),
            Any("rust-toolchain"),
            Any("rust-toolchain.toml"),
        ],
        writable_by_rule: true,
    },
    Mechanism {
        runs: "pip, uv and bundler on install: the index or the path, and so the code that is installed and run",
        files: &[Any("pip.conf"), Any("uv.toml"), In(".bundle", "config")],
        writable_by_rule: true,
    },
];

/// The row `name` (inside a directory named `parent`) belongs to.
pub fn mechanism_of(name: &str, parent: Option<&str>) -> Option<&'static Mechanism> {
    MECHANISMS.iter().find(|m| {
        m.files.iter().any(|f| match *f {
            Any(n) => n == name,
            In(p, n) => n == name && parent == Some(p),
        })
    })
}

/// Whether the name alone cannot decide: some row needs the parent directory's name.
pub fn needs_parent(name: &str) -> bool {
    MECHANISMS.iter().any(|m| m.files.iter().any(|f| matches!(*f, In(_, n) if n == name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_belongs_to_one_mechanism() {
        for m in MECHANISMS {
            assert!(!m.runs.is_empty() && !m.files.is_empty());
            for f in m.files {
                let parent = match *f {
                    In(p, _) => Some(p),
                    Any(_) => None,
                };
                let found = mechanism_of(f.name(), parent).map(|m| m.runs);
                assert_eq!(found, Some(m.runs), "{f:?}");
            }
        }
        assert!(mechanism_of("config.toml", Some("src")).is_none() && mechanism_of("README.md", None).is_none());
    }
}
