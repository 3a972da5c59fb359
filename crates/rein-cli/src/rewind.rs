//! Going back to before a prompt, outside the interactive picker: `rein rewind` (list the
//! prompts of a session, or restore one's files and conversation) and `--rewind-to
//! UUID` on a resumed session. A file changed outside rein since its checkpoint is
//! overwritten only after a yes (asked in a terminal; `--yes` otherwise).

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use rein_session::Session;
use rein_session::events::RewindFailed;
use rein_tools::RewindError;

use crate::args::Args;

/// What to restore.
#[derive(Debug, Clone, Copy)]
pub(crate) struct What {
    pub files: bool,
    pub conversation: bool,
}

/// `rein rewind [TARGET]`.
pub(crate) async fn command(args: &Args, target: Option<&str>, what: What, yes: bool) -> anyhow::Result<ExitCode> {
    let mut args = args.clone();
    if args.resume.is_none() {
        args.continue_session = true;
    }
    let setup = crate::process_env::resolve(&args.options())?;
    // No model request is made: a model that has nothing to say will do.
    let model: Arc<dyn rein_model::Model> = Arc::new(rein_model::ScriptedModel::new("rewind", Vec::new()));
    // Built as it was left: `--rewind-to` has no say here.
    let builder = rein_session::Builder::new(&setup).model(model);
    for notice in builder.notices() {
        crate::messages::message!("{notice}");
    }
    let mut session = builder.build()?;
    let prompts = session.prompts();
    let Some(target) = target else {
        println!("Prompts of session {} (rein rewind N restores to before prompt N):", setup.session_id);
        for (i, p) in prompts.iter().enumerate() {
            let line: String = p.lines().next().unwrap_or_default().chars().take(70).collect();
            println!("  {:>3}. {line}", i + 1);
        }
        return Ok(ExitCode::SUCCESS);
    };
    let n = match target.parse::<usize>() {
        Ok(k) if (1..=prompts.len()).contains(&k) => k - 1,
        Ok(k) => bail!("there is no prompt {k} (the session has {})", prompts.len()),
        Err(_) => session.prompt_of(target).with_context(|| format!("no prompt with the message id {target}"))?,
    };
    let restored = rewind_asking(&mut session, n, what, yes)?;
    println!("Went back to before prompt {}: {} file(s) restored", n + 1, restored.len());
    for p in restored {
        println!("  {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `--rewind-to UUID` on a resumed session, before its first prompt.
pub(crate) fn before_first_prompt(session: &mut Session, uuid: &str) -> anyhow::Result<()> {
    let n = session.prompt_of(uuid).with_context(|| format!("--rewind-to: no prompt with the message id {uuid}"))?;
    let restored = rewind_asking(session, n, What { files: true, conversation: true }, false)?;
    crate::messages::message!("went back to before that prompt ({} file(s) restored)", restored.len());
    Ok(())
}

/// Rewind; when files changed outside rein, ask in a terminal (else stop, unless `yes`).
fn rewind_asking(session: &mut Session, n: usize, what: What, yes: bool) -> anyhow::Result<Vec<std::path::PathBuf>> {
    match session.rewind(n, what.files, what.conversation, yes) {
        Ok(restored) => Ok(restored),
        Err(RewindFailed::Files(RewindError::ChangedOutside(paths))) => {
            let list: Vec<String> = paths.iter().map(|p| format!("  {}", p.display())).collect();
            let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
            if !terminal {
                bail!(
                    "these files changed outside rein since their checkpoint; nothing was restored (rein rewind … \
                     --yes overwrites them):\n{}",
                    list.join("\n")
                );
            }
            eprint!(
                "These files changed outside rein since their checkpoint:\n{}\nOverwrite them? [y/N] ",
                list.join("\n")
            );
            std::io::stderr().flush()?;
            let mut answer = String::new();
            std::io::stdin().lock().read_line(&mut answer)?;
            if !matches!(answer.trim(), "y" | "Y" | "yes") {
                bail!("nothing was restored");
            }
            Ok(session.rewind(n, what.files, what.conversation, true)?)
        }
        Err(e) => Err(e.into()),
    }
}
