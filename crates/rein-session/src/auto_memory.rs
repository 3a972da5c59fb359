//! Where this session's persistent memory is (Claude Code's auto memory): on unless
//! `autoMemoryEnabled` is false or `CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`; in
//! `autoMemoryDirectory` when settings the repository does not control say so, else
//! `~/.claude/projects/<repository>/memory/`.

use std::path::{Path, PathBuf};

use rein_settings::{Scope, Settings};

/// The memory directory, or `None` when auto memory is off.
pub fn memory_dir(settings: &Settings, env: &crate::env::Env, cwd: &Path) -> Option<PathBuf> {
    if env.auto_memory_off || settings.scalar("/autoMemoryEnabled").and_then(|(v, _)| v.as_bool()) == Some(false) {
        return None;
    }
    // A repository cannot send the model's unasked writes elsewhere: its own settings'
    // directory (project or local) is not taken; nor is one that is not absolute or that
    // would hold the user's home, their Claude folder or the project.
    let custom = settings
        .files
        .iter()
        .filter(|f| !matches!(f.scope, Scope::Project | Scope::Local))
        .find_map(|f| f.get("/autoMemoryDirectory").and_then(|v| v.as_str()).map(str::to_string));
    let claude_dir = env.claude_config_dir.clone().or_else(|| env.home.as_ref().map(|h| h.join(".claude")));
    if let Some(dir) = custom {
        let dir = match (dir.as_str(), dir.strip_prefix("~/"), &env.home) {
            ("~", _, Some(home)) => home.clone(),
            (_, Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(dir),
        };
        let broad = |p: &Path| dir.components().count() <= 1 || p.starts_with(&dir);
        let too_broad = [env.home.as_deref(), claude_dir.as_deref(), Some(cwd)].into_iter().flatten().any(broad);
        if dir.is_absolute() && !too_broad {
            return Some(dir);
        }
        tracing::warn!(dir = %dir.display(), "autoMemoryDirectory ignored: not absolute, or it holds the home, Claude or project folder");
    }
    let claude_dir = claude_dir?;
    let root = rein_prompt::find_git_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
    // Named as Claude Code names the project's transcripts folder.
    Some(rein_transcript::project_dir(&claude_dir, &root).join("memory"))
}
