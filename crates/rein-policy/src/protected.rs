//! Paths whose writes are always asked, even in bypassPermissions: they control git,
//! rein and Claude Code, editors, or what every new shell runs.

use std::path::Path;

/// Beyond the mechanisms' table: a repository's git directory (the sandbox finds git
/// directories by their shape and holds only what git runs in them; a tool's write
/// anywhere in one is asked) and managed settings.
const DIRS: &[&str] = &[".git"];
const FILES: &[&str] = &["managed-settings.json"];

/// Why writing `path` is protected, if it is: inside or at a file of one of
/// [`rein_effects::mechanisms::MECHANISMS`] (the sandbox's table too), inside a git
/// directory, or managed settings.
pub(crate) fn protected_reason(path: &Path) -> Option<String> {
    let mut components = path.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).peekable();
    let mut prev: Option<String> = None;
    while let Some(c) = components.next() {
        // `.claude/worktrees` is where agents work; everything else under .claude is
        // config. Inside a worktree the same paths are protected as anywhere else.
        if c == ".claude" && components.peek().is_some_and(|n| n == "worktrees") {
            components.next();
            prev = None;
            continue;
        }
        let last = components.peek().is_none();
        let named = rein_effects::mechanisms::mechanism_of(&c, prev.as_deref()).is_some();
        if DIRS.contains(&c.as_str()) || named && !last {
            return Some(format!("it writes inside {c}/, which is protected"));
        }
        if last && (named || FILES.contains(&c.as_str())) {
            return Some(format!("{c} is a protected file"));
        }
        prev = Some(c);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths() {
        for p in [
            "/p/.git/config",
            "/h/.bashrc",
            "/p/.claude/settings.json",
            "/p/sub/.rein/x",
            "/h/.config/git/config",
            "/p/.claude/worktrees/a/.bashrc",
            "/p/.claude/worktrees/a/.claude/settings.json",
            "/p/.claude/worktrees/a/.git",
            "/p/.hg/hgrc",
            "/p/mise.toml",
            "/p/.zed/tasks.json",
            "/h/.config/fish/config.fish",
            "/p/.githooks/../.gitattributes",
        ] {
            assert!(protected_reason(Path::new(p)).is_some(), "{p}");
        }
        for p in ["/p/src/main.rs", "/p/.claude/worktrees/a/file", "/p/gitconfig.txt", "/p/.github/workflows/ci.yml"] {
            assert!(protected_reason(Path::new(p)).is_none(), "{p}");
        }
    }
}
