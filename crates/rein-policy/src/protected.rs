//! Paths whose writes are always asked, even in bypassPermissions: they control git,
//! rein and Claude Code, editors, or what every new shell runs.

use std::path::Path;

const DIRS: &[&str] = &[".git", ".claude", ".rein", ".vscode", ".idea", ".husky", ".devcontainer"];
const FILES: &[&str] = &[
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".cshrc",
    ".tcshrc",
    ".kshrc",
    ".inputrc",
    ".gitconfig",
    ".gitmodules",
    ".npmrc",
    ".mcp.json",
    ".claude.json",
    ".envrc",
    "config.fish",
    "managed-settings.json",
];

/// Why writing `path` is protected, if it is.
pub fn protected_reason(path: &Path) -> Option<String> {
    let mut components = path.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).peekable();
    let mut prev: Option<String> = None;
    while let Some(c) = components.next() {
        if DIRS.contains(&c.as_str()) {
            // `.claude/worktrees` is where agents work; everything else under .claude is
            // config. Inside a worktree the same paths are protected as anywhere else.
            if c == ".claude" && components.peek().is_some_and(|n| n == "worktrees") {
                components.next();
                prev = None;
                continue;
            }
            return Some(format!("it writes inside {c}/, which is protected"));
        }
        if components.peek().is_none() && FILES.contains(&c.as_str()) {
            return Some(format!("{c} is a protected file"));
        }
        if prev.as_deref() == Some(".config") && (c == "git" || c == "fish") {
            return Some(format!(".config/{c} is protected"));
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
        ] {
            assert!(protected_reason(Path::new(p)).is_some(), "{p}");
        }
        for p in ["/p/src/main.rs", "/p/.claude/worktrees/a/file", "/p/gitconfig.txt", "/p/.github/workflows/ci.yml"] {
            assert!(protected_reason(Path::new(p)).is_none(), "{p}");
        }
    }
}
