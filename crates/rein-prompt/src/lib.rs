//! Builds rein's system prompt: the built-in instructions for a coding agent, an
//! environment block (working directory, platform, date, whether it is a git repo) and
//! the user's memory files, read the way Claude Code reads them (`CLAUDE.md`,
//! `CLAUDE.local.md`, `.claude/rules`, plus `AGENTS.md`, with `@path` imports).
//! Nothing here runs a program: the git check looks for a `.git` entry on disk.

mod agent_def;
pub mod agents;
pub mod auto_memory;
pub mod body;
mod builtin_agents;
pub mod canon;
pub mod commands;
mod environment;
pub mod frontmatter;
mod memory;
pub mod nested_memory;
pub mod output_styles;
pub mod skills;
pub mod workflows;

use std::path::PathBuf;

pub use environment::{environment_block, find_git_root};
pub use memory::{MemoryFile, MemorySources, ReadableFilter, load_memory};

/// The built-in instructions.
pub const BASE_PROMPT: &str = include_str!("base_prompt.md");

/// How to assemble the system prompt.
#[derive(Debug, Clone, Default)]
pub struct PromptOptions {
    pub cwd: PathBuf,
    /// Where `~/.claude` lives; `None` skips user memory.
    pub home: Option<PathBuf>,
    /// Directory of managed settings (`/etc/claude-code`); `None` skips it.
    pub managed_dir: Option<PathBuf>,
    /// `--system-prompt`: replaces the built-in instructions.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt`: added at the end.
    pub append_system_prompt: Option<String>,
    pub model: String,
    /// `YYYY-MM-DD`; today when empty.
    pub date: String,
    /// `claudeMdExcludes`: globs of memory files left out.
    pub memory_excludes: Vec<String>,
    /// The output style, when it is not the default.
    pub output_style: Option<output_styles::OutputStyle>,
    /// The persistent memory's directory (its index and how to keep it), when it is on.
    pub auto_memory: Option<PathBuf>,
    /// More facts of the environment (the git state, the permission mode, the models),
    /// one a line, after the environment block.
    pub facts: Vec<String>,
    /// The workspace roots (what a project's memory may import from).
    pub workspace: Vec<PathBuf>,
    /// What memory may read at all (the Read tool's deny rules).
    pub readable: Option<memory::ReadableFilter>,
}

/// The assembled prompt and the memory files it includes.
#[derive(Debug, Clone)]
pub struct SystemPrompt {
    pub text: String,
    /// The first `stable_len` bytes of `text` (the instructions) are the same in every
    /// session; the rest (environment, memory, appended text) belongs to this one.
    pub stable_len: usize,
    pub memory: Vec<MemoryFile>,
}

/// The tools the built-in instructions give a line of guidance each.
const GUIDED_TOOLS: [&str; 6] = ["TodoWrite", "Agent", "AskUserQuestion", "ExitPlanMode", "WebSearch", "WebFetch"];

/// `text` without the built-in instructions' lines about a tool the session does not
/// offer (a deny rule removed it, the provider has no web search, `--tools` left it
/// out): the model is never pointed at a tool it cannot call. A prompt of the user's
/// own is left as it is: only lines of the built-in one are dropped.
pub fn fit_to_tools(text: &str, offered: impl Fn(&str) -> bool) -> String {
    let guided: Vec<&str> = BASE_PROMPT.lines().filter(|l| l.starts_with("- ")).collect();
    let names_missing =
        |line: &str| line.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| GUIDED_TOOLS.contains(&w) && !offered(w));
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if !(guided.contains(&line.trim_end_matches('\n')) && names_missing(line)) {
            out.push_str(line);
        }
    }
    out
}

pub fn build_system_prompt(opts: &PromptOptions) -> SystemPrompt {
    let memory = load_memory(&MemorySources {
        cwd: opts.cwd.clone(),
        home: opts.home.clone(),
        managed_dir: opts.managed_dir.clone(),
        excludes: opts.memory_excludes.clone(),
        workspace: opts.workspace.clone(),
        readable: opts.readable.clone(),
    });
    let mut text = opts.system_prompt.clone().unwrap_or_else(|| match &opts.output_style {
        Some(style) => style.apply(BASE_PROMPT.trim_end()),
        None => BASE_PROMPT.trim_end().to_string(),
    });
    text.push_str("\n\n");
    let stable_len = text.len();
    let date =
        if opts.date.is_empty() { chrono::Local::now().format("%Y-%m-%d").to_string() } else { opts.date.clone() };
    text.push_str(&environment_block(&opts.cwd, &opts.model, &date));
    for fact in &opts.facts {
        text.push('\n');
        text.push_str(fact);
    }
    if !memory.is_empty() {
        text.push_str(
            "\n\n# Memory\nThe user's instructions from memory files follow. They come before these general instructions where \
             the two differ.\n",
        );
        for m in &memory {
            text.push_str(&format!("\nContents of {} ({}):\n\n{}\n", m.path.display(), m.kind, m.content.trim_end()));
        }
    }
    if let Some(dir) = &opts.auto_memory {
        text.push_str("\n\n");
        text.push_str(auto_memory::section(dir).trim_end());
    }
    if let Some(extra) = &opts.append_system_prompt {
        text.push_str("\n\n");
        text.push_str(extra);
    }
    SystemPrompt { text, stable_len, memory }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_built_in_lines_about_a_missing_tool_go() {
        let all = fit_to_tools(BASE_PROMPT, |_| true);
        assert_eq!(all, BASE_PROMPT);
        let fitted = fit_to_tools(BASE_PROMPT, |t| t != "WebSearch" && t != "Agent");
        assert!(!fitted.contains("WebSearch") && !fitted.contains("(Agent)"), "{fitted}");
        assert!(fitted.contains("WebFetch") && fitted.contains("TodoWrite"), "{fitted}");
        let own = "- Use WebSearch for everything.\n";
        assert_eq!(fit_to_tools(own, |_| false), own, "a prompt of the user's own stays");
    }

    #[test]
    fn custom_and_appended_prompts() {
        let d = tempfile::tempdir().unwrap();
        let opts = PromptOptions {
            cwd: d.path().to_path_buf(),
            system_prompt: Some("You are a pirate.".into()),
            append_system_prompt: Some("Always answer in French.".into()),
            model: "m".into(),
            date: "2026-01-02".into(),
            ..PromptOptions::default()
        };
        let p = build_system_prompt(&opts);
        assert!(p.text.starts_with("You are a pirate."));
        assert!(!p.text.contains(BASE_PROMPT.lines().next().unwrap()));
        assert!(p.text.contains("2026-01-02"));
        assert!(p.text.trim_end().ends_with("Always answer in French."));
        let (stable, session) = p.text.split_at(p.stable_len);
        assert_eq!(stable, "You are a pirate.\n\n");
        assert!(session.contains("2026-01-02"), "the date belongs to the session part");
    }
}
