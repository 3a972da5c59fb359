//! EnterWorktree and ExitWorktree, as Claude Code offers them: the model moves the
//! session into a new git worktree (`.claude/worktrees/NAME`, branch `worktree-NAME`) to
//! work apart from the main checkout, and back out again — keeping the worktree, or
//! removing it (with `discard_changes` when it has changes). The move takes effect once
//! the response's calls are done ([`Engine::apply_workdir_move`]): the tools' working
//! directory, the policy's and the shell's all follow.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rein_tools::git_worktree::{self, Finished, Worktree};
use rein_tools::{Effects, Tool, ToolContext, ToolError, ToolOutput};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::{Engine, EngineServices};

/// Where the session works: the worktree it is in, and a move still to make.
#[derive(Debug, Default)]
pub struct Workdir {
    /// Where the session was before it entered the worktree.
    original: Option<PathBuf>,
    worktree: Option<Worktree>,
    pending: Option<PathBuf>,
}

pub(crate) type SharedWorkdir = Arc<Mutex<Workdir>>;

fn lock(w: &SharedWorkdir) -> std::sync::MutexGuard<'_, Workdir> {
    w.lock().unwrap_or_else(|p| p.into_inner())
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct EnterWorktreeInput {
    /// The worktree's name (one word); made up when left out.
    pub name: Option<String>,
}

pub(crate) struct EnterWorktree;

impl Tool for EnterWorktree {
    type Input = EnterWorktreeInput;

    fn name(&self) -> &'static str {
        "EnterWorktree"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Moves this session into a new git worktree (.claude/worktrees/NAME on branch worktree-NAME) to work apart \
         from the main checkout; only when the user asks to work in a worktree. ExitWorktree leaves it."
            .into()
    }

    /// The name is taken as sent (never trimmed) and the repository must not name
    /// programs git would run for it: what is checked is what is made.
    fn validate(&self, input: &EnterWorktreeInput, ctx: &ToolContext) -> Result<(), rein_tools::InputError> {
        let name = input.name.clone().unwrap_or_else(|| "new".into());
        git_worktree::place(&ctx.cwd, &name).map_err(|e| e.to_string())?;
        refuse_untrusted(&ctx.cwd)
    }

    /// A write where the worktree goes, symlinks on the way resolved.
    fn effects(&self, input: &EnterWorktreeInput, ctx: &ToolContext) -> Effects {
        let name = input.name.clone().unwrap_or_else(|| "new".into());
        let place = git_worktree::place(&ctx.cwd, &name).map(|(p, _)| p).unwrap_or_else(|_| ctx.cwd.join(&name));
        Effects::writing([rein_tools::canonical_target(&place).unwrap_or(place)])
    }

    fn offered_to_subagents(&self) -> bool {
        false
    }

    async fn call(&self, input: EnterWorktreeInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let services = EngineServices::of(ctx)?;
        let mut state = lock(&services.workdir);
        if let Some(w) = &state.worktree {
            return Err(ToolError::new(format!(
                "This session already works in the worktree {}; ExitWorktree first",
                w.path.display()
            )));
        }
        let name = input.name.unwrap_or_else(git_worktree::made_up_name);
        let worktree = git_worktree::create(&ctx.cwd, &name).map_err(|e| ToolError::new(e.to_string()))?;
        let text = format!(
            "Now working in the worktree {} on branch {}: commands run there and relative paths start there. \
             The main checkout at {} is left as it is. ExitWorktree leaves it.",
            worktree.path.display(),
            worktree.branch,
            ctx.cwd.display()
        );
        state.original = Some(ctx.cwd.clone());
        state.pending = Some(worktree.path.clone());
        state.worktree = Some(worktree);
        Ok(ToolOutput::text(text))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ExitWorktreeInput {
    /// `keep` the worktree on disk, or `remove` it (and its branch).
    pub action: ExitAction,
    /// With `remove`: remove it even though it has changes (they are lost).
    #[serde(default)]
    pub discard_changes: bool,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ExitAction {
    Keep,
    Remove,
}

pub(crate) struct ExitWorktree;

impl Tool for ExitWorktree {
    type Input = ExitWorktreeInput;

    fn name(&self) -> &'static str {
        "ExitWorktree"
    }

    fn deferred_by_default(&self) -> bool {
        true
    }

    fn description(&self) -> String {
        "Moves this session back out of the worktree EnterWorktree made, keeping the worktree or removing it \
         (removing one with changes needs discard_changes: true)."
            .into()
    }

    fn validate(&self, input: &ExitWorktreeInput, ctx: &ToolContext) -> Result<(), rein_tools::InputError> {
        if input.action == ExitAction::Remove { Ok(refuse_untrusted(&ctx.cwd)?) } else { Ok(()) }
    }

    fn effects(&self, _input: &ExitWorktreeInput, ctx: &ToolContext) -> Effects {
        Effects::writing([ctx.cwd.clone()])
    }

    fn offered_to_subagents(&self) -> bool {
        false
    }

    async fn call(&self, input: ExitWorktreeInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let services = EngineServices::of(ctx)?;
        let mut state = lock(&services.workdir);
        let Some(worktree) = state.worktree.clone() else {
            return Err(ToolError::new("This session is not in a worktree EnterWorktree made"));
        };
        let back = state.original.clone().unwrap_or_else(|| worktree.repo.clone());
        let what = match input.action {
            ExitAction::Keep => {
                format!("The worktree {} is kept (branch {})", worktree.path.display(), worktree.branch)
            }
            ExitAction::Remove => match worktree.finish(input.discard_changes) {
                Finished::Removed => format!("The worktree {} and its branch were removed", worktree.path.display()),
                Finished::Kept(why) => {
                    return Err(ToolError::new(format!(
                        "The worktree {} was not removed: {why}. Keep it, or remove it with discard_changes: true \
                         (its changes are lost).",
                        worktree.path.display()
                    )));
                }
            },
        };
        state.worktree = None;
        state.pending = Some(back.clone());
        Ok(ToolOutput::text(format!("{what}; back in {}.", back.display())))
    }
}

/// A repository whose own configuration names programs git would run is refused.
pub(crate) fn refuse_untrusted(dir: &std::path::Path) -> Result<(), rein_tools::InputError> {
    let found = git_worktree::untrusted_programs(dir);
    if found.is_empty() {
        return Ok(());
    }
    Err(rein_tools::InputError::Refused(format!(
        "this repository's git configuration names programs git would run for a worktree ({}); rein does not make \
         or remove worktrees here",
        found.join(", ")
    )))
}

impl Engine {
    /// A worktree tool asked for a move: the tools, the policy and the shell now work
    /// in the new directory.
    pub(crate) fn apply_workdir_move(&mut self) {
        let Some(dir) = lock(&self.workdir).pending.take() else { return };
        self.ctx.cwd = dir.clone();
        self.ctx.shell_dir.set(dir.clone());
        let canonical = std::fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
        self.gate.policy.update(|p| {
            p.cwd = dir.clone();
            if !p.roots.iter().any(|r| canonical.starts_with(r)) {
                p.roots.push(canonical.clone());
            }
        });
        if let Some(shell) = self.registry.session_shell() {
            shell.move_to(&dir);
        }
        // The environment block tells the model where it works.
        let shown = dir.display().to_string();
        self.config.system = self.config.system.with_working_directory(&shown);
        if let Some(base) = &mut self.base_system {
            *base = base.with_working_directory(&shown);
        }
    }
}
