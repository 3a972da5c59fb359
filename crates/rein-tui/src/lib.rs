//! The interactive terminal UI: where a person works with rein. A ratatui frontend that
//! maps keys to the live session's commands (`rein-session`) and its events to views,
//! over the `Approver` seam — the session runs on its own task and knows no screen.
//! Finished history goes into the terminal's own scrollback once, wrapped; the live area
//! right below it (text still streaming, running calls, spinner, the top modal view —
//! a dialog, a picker, search — or the input box, the footer) is as tall as it must be.

mod app;
mod approver;
mod attach;
pub mod bench;
mod clipboard;
mod composer;
mod dialog;
mod dialog_parts;
mod escapes;
mod events;
mod hangup;
mod help;
mod highlight;
mod history;
mod inline;
mod inline_pick;
mod job_relay;
mod keybindings;
mod keys;
mod markdown;
mod mcp_pick;
mod mcp_view;
mod mentions;
mod menu;
mod modal;
mod modal_host;
mod on_purpose;
mod out;
mod overlay;
mod permission_view;
mod pickers;
mod plugin_slash;
mod plugin_view;
mod repaint;
mod rewind_menu;
mod saved_output;
mod screen;
mod slash;
mod slash_session;
mod status_line;
mod stream;
mod summary;
mod term;
pub mod theme;
mod trust_dialog;
mod user_dialog;
mod view;
mod vim;
mod worker;
mod wrap;

use std::path::PathBuf;

use rein_policy::SharedPolicy;
use tokio::sync::mpsc;

pub use approver::{Question, TuiApprover};
pub use inline_pick::pick;
pub use keybindings::{Keybindings, KeybindingsError};
pub use mcp_pick::pick_mcp_servers;
pub use repaint::RepaintSignal;
pub use trust_dialog::ask_trust;
pub use worker::{Titler, owner_answer};

/// The person's `keybindings.json` in `claude_dir` (`~/.claude`); a file that is not
/// JSON is an error naming its line.
pub fn load_keybindings(claude_dir: &std::path::Path) -> Result<Keybindings, KeybindingsError> {
    Keybindings::load(&claude_dir.join("keybindings.json"))
}

/// The questions a [`TuiApprover`] sends, for [`run`].
pub type Questions = mpsc::UnboundedReceiver<Question>;

/// An approver for an engine, and where its questions arrive.
pub fn approver(policy: SharedPolicy) -> (TuiApprover, Questions) {
    let (questions, rx) = mpsc::unbounded_channel();
    (TuiApprover { questions, policy }, rx)
}

/// Lists the session shows on request (`/hooks`, `/agents`, `/memory`).
#[derive(Debug, Clone, Default)]
pub struct Info {
    pub hooks: Vec<String>,
    pub agents: Vec<String>,
    /// The skills, each with where it comes from (`/skills`).
    pub skills: Vec<String>,
    /// The flags the session started with, for `/doctor` (which reads the configuration
    /// again, as `rein doctor` does).
    pub options: Option<rein_session::Options>,
    pub memory: Vec<String>,
    /// The settings files read, with their scope.
    pub settings: Vec<String>,
    /// The output styles installed (name and description) and the one in use.
    pub output_styles: Vec<(String, String)>,
    pub output_style: String,
    /// The plugins in use (`id` and folder).
    pub plugins: Vec<String>,
    /// Where `/plugin` keeps plugins: the user's own configuration folder, as the session
    /// found it before any settings' `env` applied (a project cannot move it).
    pub plugin_store: Option<rein_plugins::Store>,
}

/// How the interactive session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    Quit,
    /// `/resume`: continue that session instead.
    Resume(String),
    /// `/reload-plugins`: start again, reading every plugin and setting anew, and go on
    /// with this session (when it has a conversation yet) in this model and mode.
    Reload {
        session: Option<String>,
        model: String,
        mode: String,
    },
}

/// What the interactive session starts from.
pub struct Options {
    /// The live session the UI drives.
    pub session: rein_session::Session,
    pub questions: Questions,
    pub cwd: PathBuf,
    /// Where "don't ask again" rules are written (`.claude/settings.local.json`).
    pub project_root: PathBuf,
    pub model: String,
    pub first_prompt: Option<String>,
    /// Shift+Tab may reach bypassPermissions.
    pub allow_bypass: bool,
    /// Names a new session after its first turn (the small model); `None`: no titles.
    pub titler: Option<worker::Titler>,
    /// The `statusLine` setting's command.
    pub status_line: Option<String>,
    pub info: Info,
    /// rein's home (`~/.rein`): prompt history is kept there.
    pub rein_home: PathBuf,
    /// The `respectGitignore` setting: the `@` picker follows `.gitignore`.
    pub respect_gitignore: bool,
    /// `~/.claude/keybindings.json` ([`load_keybindings`]).
    pub keybindings: Keybindings,
    /// The `editorMode` setting is `vim`: the input box starts in vim's insert mode.
    pub vim: bool,
    /// The `theme` setting (`dark` when unset).
    pub theme: Option<String>,
    /// A background session's link to its host (`rein --bg`).
    pub job: Option<BackgroundJob>,
}

/// What a background session shares with its host.
pub struct BackgroundJob {
    /// Its record, kept current as the session works.
    pub reporter: std::sync::Arc<rein_jobs::Reporter>,
    /// The host's requests to draw everything again.
    pub repaint: RepaintSignal,
}

/// Run the interactive session until the person exits.
pub async fn run(options: Options) -> std::io::Result<Ending> {
    let session = options.session;
    let policy = session.live().policy().clone();
    let session_id = session.session_id();
    let history = session.history();
    let (reporter, repaint) = options.job.map(|j| (j.reporter, j.repaint)).unzip();
    let (prompts, prompt_rx, ui, ui_rx, questions) = match reporter {
        Some(reporter) => {
            let live = session.live().clone();
            reporter.opened(&session_id, &options.cwd, Some(live.transcript()), options.first_prompt.is_none());
            let r = job_relay::relay(reporter, options.questions, live, options.cwd.clone());
            (r.prompts, r.prompt_rx, r.ui, r.ui_rx, r.questions)
        }
        None => {
            let (prompts, prompt_rx) = mpsc::unbounded_channel();
            let (ui, ui_rx) = mpsc::unbounded_channel();
            (prompts, prompt_rx, ui, ui_rx, options.questions)
        }
    };
    let commands: Vec<(String, String)> =
        session.commands().iter().map(|c| (c.name.clone(), format!("{} ({})", c.description, c.label))).collect();
    let jobs = session.jobs();
    let owner = session.handle();
    let engine_task = tokio::spawn(worker::run(session, options.titler, prompt_rx, ui));
    let mut app = app::App::new(options.cwd, options.project_root, options.model, policy, prompts);
    app.allow_bypass = options.allow_bypass;
    app.background_session = repaint.is_some();
    app.commands = commands;
    app.keybindings = options.keybindings;
    app.banner(env!("CARGO_PKG_VERSION"));
    app.replay(&history);
    app.status_line = options.status_line.map(status_line::StatusLine::new);
    app.info = options.info;
    app.respect_gitignore = options.respect_gitignore;
    for warning in app.keybindings.warnings.clone() {
        app.note(warning);
    }
    app.jobs = jobs;
    app.owner = Some(owner);
    if options.vim {
        app.vim = Some(vim::Vim::default());
    }
    match options.theme.as_deref().map(|t| (t, theme::Theme::parse(t))) {
        Some((_, Some(t))) => theme::set(t),
        Some((t, None)) => app.note(format!("the theme {t:?} is not one rein has (/theme lists them); using dark")),
        None => {}
    }
    let history = history::History::new(&options.rein_home, &app.cwd);
    app.composer.set_history(history.load());
    app.history = Some(history);
    app.rein_home = options.rein_home.clone();
    app.session_id = session_id;
    if let Some(p) = options.first_prompt {
        app.submit(p);
    }
    let result = term::run(app, ui_rx, questions, repaint).await;
    // The prompts channel is closed: the engine ends the session (SessionEnd hooks).
    if tokio::time::timeout(std::time::Duration::from_secs(3), engine_task).await.is_err() {
        tracing::warn!("the engine did not end in time");
    }
    result.map(|(resume, reload)| match (reload, resume) {
        (Some(app::Reload { session, model, mode }), _) => Ending::Reload { session, model, mode },
        (None, Some(id)) => Ending::Resume(id),
        (None, None) => Ending::Quit,
    })
}
#[cfg(test)]
mod ask_tests;
#[cfg(test)]
mod dialog_tests;
#[cfg(test)]
mod view_tests;
