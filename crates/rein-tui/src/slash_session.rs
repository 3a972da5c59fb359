//! The session's own slash commands: `/rewind` (the Esc Esc picker), `/export [FILE]`,
//! `/copy`, `/rename NAME`, `/add-dir PATH`, `/plan`, `/effort [LEVEL]`, `/vim`, `/tasks`, `/mcp`. Each returns the
//! lines it shows, or `None` when the command is not one of these.

use ratatui::crossterm::event::{KeyCode, KeyEvent};
use rein_session::Command;

use crate::app::App;
use crate::vim::Vim;
use crate::worker::ToEngine;

pub(crate) fn run(app: &mut App, name: &str, args: &str) -> Option<Vec<String>> {
    let args = args.trim();
    let mut out = Vec::new();
    match name {
        "rewind" | "checkpoint" => app.ask_engine(ToEngine::Command(Command::Prompts)),
        "copy" if app.last_answer.is_empty() => out.push("Nothing to copy yet: rein has not answered".into()),
        "copy" => {
            let answer = app.last_answer.clone();
            app.copy_to_clipboard("the last answer", &answer);
        }
        "rename" => out.push("Usage: /rename NAME".into()),
        "add-dir" if args.is_empty() => out.push("Usage: /add-dir PATH".into()),
        "add-dir" => {
            if let Some(problem) = add_dir(app, args) {
                out.push(problem);
            }
        }
        "vim" => out.push(app.toggle_vim()),
        "tasks" | "bashes" => out = tasks(app, args),
        "mcp" => match args.strip_prefix("authenticate").or_else(|| args.strip_prefix("login")) {
            Some(name) => app.ask_engine(ToEngine::McpSignIn(name.trim().to_string())),
            None => out.push("Usage: /mcp, or /mcp reconnect|enable|disable|authenticate NAME".into()),
        },
        _ => return None,
    }
    Some(out)
}

/// `/tasks`, `/tasks show ID`, `/tasks stop ID`.
fn tasks(app: &App, args: &str) -> Vec<String> {
    let Some(jobs) = &app.jobs else { return vec!["This session has no shell".into()] };
    let (verb, id) = args.split_once(' ').map_or((args, ""), |(v, i)| (v, i.trim()));
    match verb {
        "" | "list" => {
            let list = jobs.list();
            if list.is_empty() {
                return vec!["No background commands (the model starts them with run_in_background)".into()];
            }
            list.iter()
                .map(|j| {
                    format!(
                        "{}  {}  ({}s)  {}",
                        j.id,
                        j.state,
                        j.age.as_secs(),
                        crate::summary::one_line(&j.command, 80)
                    )
                })
                .collect()
        }
        "show" | "output" => match jobs.tail(id, 40) {
            Some(text) if text.trim().is_empty() => vec![format!("{id}: no output yet")],
            Some(text) => text.lines().map(str::to_string).collect(),
            None => vec![format!("No background command {id:?} (/tasks lists them)")],
        },
        "stop" | "kill" => match jobs.stop(id) {
            Some(state) => vec![format!("{id}: {state}")],
            None => vec![format!("No background command {id:?} (/tasks lists them)")],
        },
        other => vec![format!("Unknown /tasks action {other:?}: list, show ID or stop ID")],
    }
}

/// `/add-dir PATH`: a workspace root for the rest of the session, which the permission
/// rules then treat as the working directory's own.
/// `/add-dir PATH`: the session owner adds it (and raises DirectoryAdded); what to say
/// first, if anything (what is wrong with the path, or how much it adds).
fn add_dir(app: &mut App, path: &str) -> Option<String> {
    let home = rein_process::env::os(rein_process::env::Var::Home).map(std::path::PathBuf::from);
    let dir = match (path, path.strip_prefix("~/"), &home) {
        ("~", _, Some(home)) => home.clone(),
        (_, Some(rest), Some(home)) => home.join(rest),
        _ => app.cwd.join(path),
    };
    if !dir.is_dir() {
        return Some(format!("{} is not a folder", dir.display()));
    }
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    // Adding this much is allowed, and said.
    let wide = (dir.parent().is_none() || home.as_deref().is_some_and(|h| h == dir)).then(|| {
        format!(
            "{} holds far more than a project: rein's file tools may now read and change anything in it that \
             your account can",
            dir.display()
        )
    });
    app.ask_engine(ToEngine::Command(Command::AddDir { path: dir }));
    wide
}

impl App {
    /// Put `text` on the clipboard and say where it went.
    pub(crate) fn copy_to_clipboard(&mut self, what: &str, text: &str) {
        match crate::clipboard::copy(text) {
            Ok(how) => {
                self.note(format!("Copied {what} ({} characters) to the clipboard via {how}", text.chars().count()));
            }
            Err(e) => self.note(format!("Could not copy {what}: {e}")),
        }
    }
}

impl App {
    /// A key through vim mode, when it is on: the key to handle as usual, or `None` when
    /// vim mode did what it meant. Esc while a turn runs with nothing typed still
    /// interrupts.
    pub(crate) fn vim_key(&mut self, key: KeyEvent) -> Option<KeyEvent> {
        let interrupting = key.code == KeyCode::Esc && self.busy.is_some() && self.composer.is_empty();
        let Some(vim) = self.vim.as_mut().filter(|_| !interrupting) else { return Some(key) };
        let step = vim.key(key);
        crate::vim::apply(step, vim.mode, &mut self.composer)
    }

    /// Ctrl+B: the shell commands running now go on in the background, and the turn
    /// goes on without waiting for them.
    pub(crate) fn background_running(&mut self) {
        let shell_running = self.busy.is_some() && self.running.iter().any(|r| r.call.name == "Bash");
        let hint = match &self.jobs {
            Some(jobs) if shell_running => {
                jobs.detach_running();
                "Moved to the background: /tasks lists it"
            }
            _ => "Ctrl+B moves a running command to the background",
        };
        self.hint = Some((hint.into(), std::time::Instant::now()));
    }

    /// `/vim`: vim's modes in the input box, on or off.
    fn toggle_vim(&mut self) -> String {
        if self.vim.take().is_some() {
            "Vim mode off".into()
        } else {
            self.vim = Some(Vim::default());
            "Vim mode on: Esc for normal mode (h l w b 0 $ x dd dw cw u p …), i or a to type".into()
        }
    }
}
