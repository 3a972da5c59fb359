//! Settings that shape how the session behaves rather than what it may do, resolved
//! once from every scope and the environment: automatic compaction
//! (`autoCompactEnabled`, `DISABLE_AUTO_COMPACT`), commit and pull-request attribution
//! (`attribution`, `includeCoAuthoredBy`), whether the `@` file picker follows
//! `.gitignore` (`respectGitignore`), and the output style (`outputStyle`).

use rein_settings::Settings;
use serde_json::Value;

/// The resolved preferences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preferences {
    /// Summarise the conversation when it nears the window (Claude Code's default: on).
    pub auto_compact: bool,
    /// Text to end commit messages with (`attribution.commit`); `None`: nothing.
    pub commit_attribution: Option<String>,
    /// Text to end pull-request descriptions with (`attribution.pr`).
    pub pr_attribution: Option<String>,
    /// The `@` file picker leaves out what `.gitignore` ignores (default: yes).
    pub respect_gitignore: bool,
    /// `outputStyle`: the name of the style in use (`default` when unset).
    pub output_style: String,
    /// `editorMode: "vim"`: the input box has vim's normal and insert modes.
    pub vim: bool,
    /// `language`: the language the person wants answers in.
    pub language: Option<String>,
    /// `fileCheckpointingEnabled: false`: no checkpoints are kept (nothing to rewind).
    pub checkpointing: bool,
    /// `cleanupPeriodDays` (30 by default, as Claude Code): older sessions' checkpoints
    /// and spilled results go when a session is built.
    pub cleanup_days: u64,
    /// `theme`: the terminal's colour theme (`dark` when unset).
    pub theme: Option<String>,
}

impl Preferences {
    pub fn from_settings(settings: &Settings, env: &crate::env::Env) -> Preferences {
        let flag = |key: &str| settings.scalar(key).and_then(|(v, _)| v.as_bool());
        let text = |key: &str| {
            settings
                .scalar(key)
                .and_then(|(v, _)| v.as_str().map(str::trim).filter(|s| !s.is_empty()).map(String::from))
        };
        // `includeCoAuthoredBy: false` (the older key) turns attribution off; an empty
        // `attribution.commit` does too.
        let attribution_on = flag("/includeCoAuthoredBy") != Some(false);
        let attribution = |key: &str| {
            settings.scalar(key).and_then(|(v, _)| match v {
                Value::String(s) if !s.trim().is_empty() && attribution_on => Some(s.clone()),
                _ => None,
            })
        };
        Preferences {
            auto_compact: flag("/autoCompactEnabled") != Some(false) && !env.disable_auto_compact,
            commit_attribution: attribution("/attribution/commit"),
            pr_attribution: attribution("/attribution/pr"),
            respect_gitignore: flag("/respectGitignore") != Some(false),
            vim: text("/editorMode").is_some_and(|m| m.eq_ignore_ascii_case("vim")),
            output_style: text("/outputStyle").unwrap_or_else(|| "default".into()),
            language: text("/language"),
            theme: text("/theme"),
            checkpointing: flag("/fileCheckpointingEnabled") != Some(false),
            cleanup_days: settings.scalar("/cleanupPeriodDays").and_then(|(v, _)| v.as_u64()).unwrap_or(30),
        }
    }

    /// What the system prompt says about attribution, if anything.
    pub fn attribution_prompt(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(c) = &self.commit_attribution {
            parts.push(format!("When you write a git commit message, end it with these lines:\n{c}"));
        }
        if let Some(p) = &self.pr_attribution {
            parts.push(format!("When you write a pull request description, end it with:\n{p}"));
        }
        (!parts.is_empty()).then(|| format!("# Attribution\n{}", parts.join("\n\n")))
    }

    /// What the system prompt says about the person's language, if they set one.
    pub fn language_prompt(&self) -> Option<String> {
        self.language.as_ref().map(|l| {
            format!(
                "# Language\nThe user prefers {l}: write your replies to them in {l}, whatever language the code is in."
            )
        })
    }
}
