//! The session's system prompt as the setup shapes it: the texts given
//! (`--system-prompt`, `--append-system-prompt`, the Agent SDK's), the memory files less
//! `claudeMdExcludes`, the output style, and what the preferences add (attribution).

use std::path::PathBuf;

use rein_prompt::{PromptOptions, build_system_prompt};

use crate::Setup;

/// The memory files in the prompt, with their kind.
type Memory = Vec<(PathBuf, &'static str)>;

impl Setup {
    /// Build the system prompt again with these replacement and appended texts.
    pub fn set_system_prompt(&mut self, replace: Option<String>, append: Option<String>) {
        let home = self.env.home.clone();
        let (system, memory) =
            system_prompt(&self.cwd, home.as_deref(), &self.model, (replace.clone(), append.clone()), &self.shape());
        self.system = system;
        self.memory = memory;
        self.prompt_parts = (replace, append);
        self.append_preferences();
    }

    /// What shapes the prompt besides the texts given: excluded memory, the style.
    fn shape(&self) -> PromptShape {
        PromptShape {
            memory_excludes: self.memory_excludes.clone(),
            output_style: self.output_style.clone(),
            auto_memory: self.policy.memory_dir.clone(),
            facts: self.facts.clone(),
            ..PromptShape::reading_as(&self.policy)
        }
    }

    /// What the preferences add to the system prompt (attribution).
    pub(crate) fn append_preferences(&mut self) {
        for text in [self.prefs.attribution_prompt(), self.prefs.language_prompt()].into_iter().flatten() {
            self.system = self.system.with_session_appended(&format!("\n\n{text}"));
        }
    }
}

/// `claudeMdExcludes`, the output style, the persistent memory's directory and the
/// environment's facts.
#[derive(Default)]
pub(crate) struct PromptShape {
    memory_excludes: Vec<String>,
    output_style: Option<rein_prompt::output_styles::OutputStyle>,
    auto_memory: Option<PathBuf>,
    facts: Vec<String>,
    /// What memory files may import: the workspace, and what the Read tool may read.
    workspace: Vec<PathBuf>,
    readable: Option<rein_prompt::ReadableFilter>,
}

impl PromptShape {
    /// No excluded memory and the default style; the persistent memory and the facts;
    /// memory reads as `policy`'s Read tool would.
    pub(crate) fn new(policy: &rein_policy::Policy, facts: Vec<String>) -> PromptShape {
        PromptShape { auto_memory: policy.memory_dir.clone(), facts, ..PromptShape::reading_as(policy) }
    }

    /// Memory imports obey `policy`: its Read deny rules (by any name of the file),
    /// rein's own process files, and its workspace roots.
    fn reading_as(policy: &rein_policy::Policy) -> PromptShape {
        let guard = std::sync::Arc::new(policy.clone());
        let readable = rein_prompt::ReadableFilter(std::sync::Arc::new(move |p: &std::path::Path| {
            !rein_tools::ReadGuard::denies(guard.as_ref(), p, None)
        }));
        PromptShape { workspace: policy.roots.clone(), readable: Some(readable), ..PromptShape::default() }
    }
}

pub(crate) fn system_prompt(
    cwd: &std::path::Path,
    home: Option<&std::path::Path>,
    model: &str,
    (replace, append): (Option<String>, Option<String>),
    shape: &PromptShape,
) -> (rein_model::System, Memory) {
    let prompt = build_system_prompt(&PromptOptions {
        cwd: cwd.to_path_buf(),
        home: home.map(std::path::Path::to_path_buf),
        managed_dir: Some(PathBuf::from("/etc/claude-code")),
        system_prompt: replace,
        append_system_prompt: append,
        model: model.to_string(),
        date: String::new(),
        memory_excludes: shape.memory_excludes.clone(),
        output_style: shape.output_style.clone(),
        auto_memory: shape.auto_memory.clone(),
        facts: shape.facts.clone(),
        workspace: shape.workspace.clone(),
        readable: shape.readable.clone(),
    });
    let system = rein_model::System::split(&prompt.text[..prompt.stable_len], &prompt.text[prompt.stable_len..]);
    (system, prompt.memory.iter().map(|m| (m.path.clone(), m.kind)).collect())
}

/// What the model is told of its environment besides the environment block: the git
/// state (one safe git call), the permission mode it starts in, and the models.
pub(crate) fn environment_facts(cwd: &std::path::Path, mode: &str, aliases: &rein_model::Aliases) -> Vec<String> {
    let mut facts = Vec::new();
    if let Some(git) = rein_tools::git_worktree::state(cwd) {
        let default = git.default_branch.map_or(String::new(), |d| format!("; default branch {d}"));
        let changes = match git.dirty {
            Some(true) => "uncommitted changes to tracked files",
            Some(false) => "no uncommitted changes",
            None => "changes not checked",
        };
        facts.push(format!("Git, as the session started: branch {}{default}; {changes}", git.branch));
    }
    facts.push(format!("Permission mode: {mode} (you are told when it changes)"));
    let ids: Vec<String> =
        ["opus", "sonnet", "haiku", "fable"].iter().map(|a| format!("{a} = {}", aliases.resolve(a))).collect();
    facts.push(format!("Claude models: {}", ids.join(", ")));
    facts
}
