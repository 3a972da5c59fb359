//! `rein` in a terminal: the interactive session (the `rein-tui` frontend), with the same
//! flags as headless mode; an optional first prompt.

use std::process::ExitCode;
use std::sync::Arc;

use rein_policy::{PermissionMode, SharedPolicy};

use crate::args::Args;
use crate::session::Setup;

pub fn run(args: &Args, runtime: tokio::runtime::Runtime) -> anyhow::Result<ExitCode> {
    let setup = Setup::from_args(args)?;
    runtime.block_on(async move {
        let model = setup.anthropic_model()?;
        let policy = SharedPolicy::from(setup.policy.clone());
        let (approver, questions) = rein_tui::approver(policy.clone());
        let engine = crate::engine::build(&setup, model, policy, Some(Arc::new(approver)))?;
        let project_root = rein_prompt::find_git_root(&setup.cwd).unwrap_or_else(|| setup.cwd.clone());
        let allow_bypass = args.dangerously_skip_permissions
            || args.permission_mode.as_deref().and_then(PermissionMode::parse)
                == Some(PermissionMode::BypassPermissions);
        rein_tui::run(rein_tui::Options {
            engine,
            questions,
            cwd: setup.cwd.clone(),
            project_root,
            model: setup.model.clone(),
            first_prompt: args.prompt.clone(),
            allow_bypass,
            commands: setup.commands.clone(),
            session_id: setup.session_id.clone(),
        })
        .await?;
        Ok(ExitCode::SUCCESS)
    })
}
