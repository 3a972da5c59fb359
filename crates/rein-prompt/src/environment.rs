//! The environment block of the system prompt: working directory, platform, date,
//! model, and whether the directory is a git repository (read without running git).

use std::path::{Path, PathBuf};

/// The nearest directory at or above `dir` that holds a `.git` entry (directory, or file
/// for worktrees and submodules). Found by looking at the disk, never by running git.
pub fn find_git_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf)
}

/// The environment section of the system prompt.
pub fn environment_block(cwd: &Path, model: &str, date: &str) -> String {
    let git = if find_git_root(cwd).is_some() { "Yes" } else { "No" };
    format!(
        "# Environment\nWorking directory: {}\nGit repository: {git}\nPlatform: {}\nDate: {date}\nModel: {model}",
        cwd.display(),
        std::env::consts::OS,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_repo_is_found_from_a_subdirectory() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        assert!(environment_block(&sub, "m", "2026-11-29").contains("Git repository: No"));
        std::fs::create_dir(d.path().join(".git")).unwrap();
        assert_eq!(find_git_root(&sub).as_deref(), Some(d.path()));
        let block = environment_block(&sub, "m", "2026-11-29");
        assert!(block.contains("Git repository: Yes"), "{block}");
        assert!(block.contains(&format!("Working directory: {}", sub.display())));
    }
}
