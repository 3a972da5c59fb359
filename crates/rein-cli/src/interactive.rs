//! `rein` in a terminal: the interactive session (the `rein-tui` frontend), with the same
//! flags as headless mode; an optional first prompt.

use std::process::ExitCode;
use std::sync::Arc;

use rein_policy::PermissionMode;

use crate::args::Args;
use crate::session::Setup;

pub(crate) fn run(args: &Args, runtime: tokio::runtime::Runtime) -> anyhow::Result<ExitCode> {
    let mut args = args.clone();
    if args.resume.as_deref() == Some("") {
        match pick_session()? {
            Some(id) => args.resume = Some(id),
            None => return Ok(ExitCode::SUCCESS),
        }
    }
    let args = &args;
    let mut job = job(args, &runtime)?;
    let first_prompt = match &job {
        Some(j) if args.job_prompt => Some(j.reporter.intent()?),
        _ => args.prompt.clone(),
    };
    if !trusted(args)? {
        return Ok(ExitCode::FAILURE);
    }
    let mut options = args.options();
    options.trusted_for_session = true;
    let setup = crate::process_env::resolve(&options)?;
    let choices = crate::mcp_approval::ask(args, &setup)?;
    let setup = setup.with_overrides(choices)?;
    let setup = setup;
    let mcp_options = args.options();
    runtime.block_on(async move {
        let builder = rein_session::Builder::new(&setup).mcp(&mcp_options);
        let (approver, questions) = rein_tui::approver(builder.policy().clone());
        let session = crate::engine::build(builder.approver(Arc::new(approver)).network_questions())?;
        let titler = setup.transcript.is_some().then(|| session.titler());
        let project_root = rein_prompt::find_git_root(&setup.cwd).unwrap_or_else(|| setup.cwd.clone());
        let allow_bypass = args.dangerously_skip_permissions
            || args.permission_mode.as_deref().and_then(PermissionMode::parse)
                == Some(PermissionMode::BypassPermissions);
        // The user's own configuration folder, as plugins are found (`$CLAUDE_CONFIG_DIR`
        // or `~/.claude`): a keybindings file that is not JSON stops rein, naming its line.
        let keybindings = match rein_session::plugins::store(&setup.env) {
            Some(store) => rein_tui::load_keybindings(&store.config_dir)?,
            None => rein_tui::Keybindings::default(),
        };
        crate::messages::terminal_owned(true);
        let ending = rein_tui::run(rein_tui::Options {
            session,
            questions,
            cwd: setup.cwd.clone(),
            project_root,
            model: setup.model.clone(),
            first_prompt,
            allow_bypass,
            titler,
            status_line: setup.status_line.clone(),
            info: info(&setup, &options),
            rein_home: setup.env.rein_home.clone(),
            respect_gitignore: setup.prefs.respect_gitignore,
            keybindings,
            vim: setup.prefs.vim,
            theme: setup.prefs.theme.clone(),
            job: job.take(),
        })
        .await;
        crate::messages::terminal_owned(false);
        let ending = ending?;
        if let rein_tui::Ending::Resume(id) = ending {
            // `/resume`: this process becomes `rein --resume ID`.
            use std::os::unix::process::CommandExt;
            let exe = std::env::current_exe()?;
            // With rein's own environment, not what settings added to it.
            let err = std::process::Command::new(exe)
                .arg("--resume")
                .arg(&id)
                .env_clear()
                .envs(rein_session::env::original_env())
                .exec();
            anyhow::bail!("cannot resume {id}: {err}");
        }
        if let rein_tui::Ending::Reload { session, model, mode } = ending {
            use std::os::unix::process::CommandExt;
            let exe = std::env::current_exe()?;
            let argv = std::env::args_os().skip(1).collect();
            let args = crate::reload::relaunch_args(argv, args.prompt.as_deref(), session.as_deref(), &model, &mode);
            // With rein's own environment, not what settings added to it.
            let err =
                std::process::Command::new(exe).args(args).env_clear().envs(rein_session::env::original_env()).exec();
            anyhow::bail!("cannot start rein again: {err}");
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// The link to its host of the background session this is (`--job`, set by the host).
/// Its repaint signal is taken over first, before anything else can be asked of it.
fn job(args: &Args, runtime: &tokio::runtime::Runtime) -> anyhow::Result<Option<rein_tui::BackgroundJob>> {
    let Some(dir) = args.job.as_deref() else { return Ok(None) };
    let repaint = {
        let _inside = runtime.enter();
        rein_tui::RepaintSignal::listen()?
    };
    match rein_jobs::Reporter::at(dir) {
        Ok(r) => Ok(Some(rein_tui::BackgroundJob { reporter: Arc::new(r), repaint })),
        Err(e) => {
            crate::messages::message!("not recording this background session: {e}");
            Ok(None)
        }
    }
}

/// Workspace trust before anything of the folder's takes effect: a folder not trusted
/// yet (in `~/.claude.json`, shared with Claude Code) is shown with what it configures;
/// "Leave without starting" (the default) ends rein here, "Yes" records the trust.
pub(crate) fn trusted(args: &Args) -> anyhow::Result<bool> {
    let options = args.options();
    let env = options.env();
    let Some(file) = rein_session::mcp::claude_json(&env) else { return Ok(true) };
    let cwd = match &options.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    let home = env.home.as_deref();
    if rein_session::trust::is_trusted(&file, &cwd, home) {
        return Ok(true);
    }
    let configures = rein_session::trust::what_it_configures(&cwd, home);
    if !rein_tui::ask_trust(&cwd, &configures)? {
        return Ok(false);
    }
    // The home folder is trusted for this session only (as Claude Code does).
    if rein_session::trust::is_recorded(&cwd, home) {
        rein_session::trust::record_trust(&file, &cwd)?;
    }
    Ok(true)
}

/// `rein -r` without an id: the sessions of this directory, newest first, with their
/// first prompt and age, to pick from with the arrows (or a number) and Enter.
fn pick_session() -> anyhow::Result<Option<String>> {
    let cwd = std::env::current_dir()?;
    let sessions = rein_session::earlier_sessions(&crate::env::Env::read().rein_home, &cwd);
    if sessions.is_empty() {
        println!("No earlier sessions in {}", cwd.display());
        return Ok(None);
    }
    let shown: Vec<_> = sessions.iter().take(20).collect();
    let items: Vec<String> = shown
        .iter()
        .map(|s| {
            let age = s.modified.elapsed().map(|d| d.as_secs()).unwrap_or(0);
            let age = match age {
                a if a < 3600 => format!("{}m ago", a / 60),
                a if a < 86_400 => format!("{}h ago", a / 3600),
                a => format!("{}d ago", a / 86_400),
            };
            format!("{}  ({age}, {} turns)", s.label(), s.turns)
        })
        .collect();
    let picked = rein_tui::pick(&format!("Resume a session of {}:", cwd.display()), &items)?;
    Ok(picked.and_then(|i| shown.get(i)).map(|s| s.session_id.clone()))
}

/// Names a new session from its first prompt with the small model (in the background;
/// a failure leaves the session untitled, listed by its first prompt).
/// What `/hooks`, `/agents` and `/memory` list.
fn info(setup: &Setup, options: &rein_session::Options) -> rein_tui::Info {
    let mut hooks = Vec::new();
    if let Some(h) = &setup.hooks {
        for (event, groups) in &h.config.events {
            for g in groups {
                for handler in &g.handlers {
                    let matcher = match &g.matcher {
                        rein_hooks::Matcher::All => "*".to_string(),
                        rein_hooks::Matcher::Names(n) => n.join("|"),
                        rein_hooks::Matcher::Regex(r) => r.as_str().to_string(),
                    };
                    hooks.push(format!("{event} [{matcher}] {} ({})", handler.display(), handler.origin));
                }
            }
        }
    }
    let agents = setup.agents.iter().map(|a| format!("{}: {} ({})", a.name, a.description, a.path.display())).collect();
    let mut memory: Vec<String> = setup.memory.iter().map(|(p, kind)| format!("{kind}: {}", p.display())).collect();
    // The persistent memory (Claude Code's auto memory): where it is, and each memory.
    if let Some(dir) = &setup.policy.memory_dir {
        memory.push(format!("persistent memory: {}/ (MEMORY.md is its index)", dir.display()));
        for (path, description) in rein_prompt::auto_memory::list(dir) {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            memory.push(format!("  {name}: {description}"));
        }
    }
    let skills = setup
        .skills
        .iter()
        .map(|s| format!("{}: {} ({}, {})", s.name, s.description, s.scope, s.dir.display()))
        .collect();
    rein_tui::Info {
        hooks,
        agents,
        skills,
        options: Some(options.clone()),
        memory,
        settings: setup.settings_files.clone(),
        output_styles: setup.output_styles.iter().map(|s| (s.name.clone(), s.description.clone())).collect(),
        plugins: setup.plugins.iter().map(|p| format!("{} ({})", p.id, p.root.display())).collect(),
        plugin_store: rein_session::plugins::store(&setup.env),
        output_style: setup.output_style.as_ref().map_or("default".to_string(), |s| s.name.clone()),
    }
}
