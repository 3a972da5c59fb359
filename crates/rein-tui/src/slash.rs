//! The terminal's own slash commands: `/help`, `/cost`, `/status`, `/model` (which model),
//! `/permissions`, `/plugin`, `/exit`, …. Their output goes into the history like any
//! other line. The table of every built-in command is the session owner's
//! (`rein_session::slash`), and what the owner answers goes to it as a command.

use ratatui::text::Line;

use rein_policy::{Change, Destination};

use crate::app::App;
use crate::worker::ToEngine;

/// What `/init` asks.
/// `/review`: the model reviews the change in progress.
const REVIEW: &str = "Review the change in progress in this repository: what `git status`, `git diff` and `git diff \
--cached` show (and the branch's commits not yet on its upstream, if any). Read the surrounding code where it helps. \
Report, most important first: bugs and behaviour that is wrong, missing error handling or tests, and anything that \
will be hard to maintain, each with the file and line and a concrete fix. Say plainly if you find nothing worth \
changing. Do not change any file.";

/// `/security-review`: the same, for what an attacker could use.
const SECURITY_REVIEW: &str = "Review the change in progress in this repository for security: what `git status`, \
`git diff` and `git diff --cached` show. Look for what an attacker could use: injection (shell, SQL, paths, \
templates), secrets or credentials in code or logs, missing authentication or authorisation checks, unsafe \
deserialisation, untrusted input reaching files, processes or the network, and weakened defaults. For each finding \
give the file and line, how it could be exploited and the fix; say plainly if you find none. Do not change any file.";

const INIT: &str = "Look at this project (its layout, build and test commands, conventions) and write a concise \
CLAUDE.md at its root for future sessions: how to build, test and run it, the architecture in a few lines, and the \
conventions a newcomer must follow. If a CLAUDE.md exists, improve it instead.";

pub(crate) fn run(app: &mut App, command: &str) {
    let (name, args) = command.split_once(' ').unwrap_or((command, ""));
    // What the session owner answers goes to it as its command (the SDK asks the same).
    if name != "add-dir"
        && let Some(asked) = rein_session::slash::parse(&format!("/{command}"), &app.cwd)
    {
        app.pending.push(Line::from(format!("> /{command}")));
        match asked {
            // The mode is the shared policy's: changed at once, even while a turn runs.
            rein_session::Command::SetMode { mode, source } => {
                let lines = match &app.owner {
                    Some(owner) => owner.set_mode(&mode, &source).map_or_else(|e| vec![e.to_string()], |r| r.lines()),
                    None => vec!["the session has ended".into()],
                };
                for l in lines {
                    app.note(l);
                }
            }
            asked => app.ask_engine(ToEngine::Command(asked)),
        }
        return;
    }
    let mut out: Vec<String> = Vec::new();
    match name {
        "help" | "?" => {
            app.pending.push(Line::from(format!("> /{command}")));
            let lines = crate::help::lines(app, app.width);
            app.pending.extend(lines);
            return;
        }
        "cost" | "usage" => {
            let t = &app.totals;
            let u = &t.usage;
            out.push(format!("Total cost:            ${:.4}", t.cost_usd));
            out.push(format!("Total duration (API):  {:.1}s", t.api.as_secs_f64()));
            out.push(format!(
                "Usage:                 {} input, {} output, {} cache read, {} cache write",
                u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens
            ));
            out.push(format!("Model requests:        {}", t.turns));
            if u.web_searches() > 0 {
                out.push(format!("Web searches:          {}", u.web_searches()));
            }
        }
        "status" => {
            let p = app.policy.get();
            out.push(format!("Model: {}", app.model));
            out.push(format!(
                "Mode: {} (`{}`, from {})",
                crate::view::mode_label(p.mode),
                p.mode.name(),
                p.mode_source
            ));
            out.push(format!("Working directory: {}", app.cwd.display()));
            let added: Vec<String> =
                p.roots.iter().filter(|r| **r != app.project_root).map(|r| r.display().to_string()).collect();
            if !added.is_empty() {
                out.push(format!("Folders added: {}", added.join(", ")));
            }
        }
        "model" => out.push(format!("Model: {} (/model NAME changes it)", app.model)),
        "permissions" if !args.trim().is_empty() => permissions(app, args.trim(), &mut out),
        "permissions" => {
            let p = app.policy.get();
            out.push(format!("Mode: {} (`{}`)", crate::view::mode_label(p.mode), p.mode.name()));
            out.push(format!(
                "Folders: {}",
                p.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
            ));
            if p.mode == rein_policy::PermissionMode::Auto {
                out.push(
                    "  Auto mode: what the rules would ask about goes to a judge model first (not deny or ask \
                     rules, protected paths or read-only calls); `rein permissions check --auto 'Bash(…)'` shows \
                     how a call would be judged."
                        .into(),
                );
            }
            for rule in p.rules() {
                out.push(format!("  {:5} {}  ({})", rule.kind.name(), rule.text, rule.origin));
            }
        }
        "exit" | "quit" => app.quit = true,
        "hooks" => list(&mut out, "No hooks are configured.", &app.info.hooks),
        "agents" => list(&mut out, "No subagents are defined (.claude/agents/*.md).", &app.info.agents),
        "skills" => {
            list(&mut out, "No skills are defined (.claude/skills/NAME/SKILL.md, or a plugin's).", &app.info.skills);
        }
        "btw" => out.push("/btw QUESTION asks on the side: answered from the conversation, without joining it".into()),
        "statusline" if args.trim().is_empty() => out.push(match &app.status_line {
            Some(s) => format!("The status line runs `{}`; /statusline COMMAND sets another", s.command()),
            None => "No status line is set; /statusline COMMAND sets one (its first lines show under the input)".into(),
        }),
        "statusline" => {
            let command = args.trim().to_string();
            let value = serde_json::json!({"type": "command", "command": command});
            match rein_settings::set_local_value(&app.project_root, "statusLine", value) {
                Ok(path) => {
                    out.push(format!("The status line runs `{command}` from now on (saved in {})", path.display()));
                    app.status_line = Some(crate::status_line::StatusLine::new(command));
                }
                Err(e) => out.push(format!("Could not set the status line: {e}")),
            }
        }
        "reload-plugins" => out.push(reload(app).unwrap_or_else(|| {
            "Reading the plugins and settings again; rein picks this conversation up with them".into()
        })),
        "theme" if args.trim().is_empty() => {
            let items = crate::theme::Theme::ALL
                .iter()
                .map(|t| {
                    let now = if *t == crate::theme::current() { " (in use)" } else { "" };
                    (
                        format!("{}{now}: {}", t.name(), t.describe()),
                        crate::pickers::Pick::Run(format!("theme {}", t.name())),
                    )
                })
                .collect();
            let selected = crate::theme::Theme::ALL.iter().position(|t| *t == crate::theme::current()).unwrap_or(0);
            app.open(Box::new(crate::pickers::Choose { title: "Theme".into(), items, selected }));
            return;
        }
        "theme" => out.push(choose_theme(app, args)),
        "doctor" => match app.info.options.as_ref().map(rein_session::doctor::report) {
            Some(Ok(sections)) => {
                for section in sections {
                    out.push(section.title.to_string());
                    out.extend(section.lines.into_iter().map(|l| format!("  {l}")));
                }
            }
            Some(Err(e)) => out.push(format!("The configuration does not read: {e}")),
            None => out.push("`rein doctor` in a shell shows the report".into()),
        },
        "review" | "security-review" => {
            app.pending.push(Line::from(format!("> /{command}")));
            let focus = args.trim();
            let ask = if name == "security-review" { SECURITY_REVIEW } else { REVIEW };
            app.submit(if focus.is_empty() { ask.to_string() } else { format!("{ask}\n\nFocus on: {focus}") });
            return;
        }
        "memory" if args.trim() == "list" => {
            list(&mut out, "No memory files (CLAUDE.md, AGENTS.md, …) were found.", &app.info.memory);
        }
        "memory" => {
            // The file named, else the project's CLAUDE.md (made if missing).
            let path =
                if args.trim().is_empty() { app.project_root.join("CLAUDE.md") } else { app.cwd.join(args.trim()) };
            list(&mut out, "No memory files (CLAUDE.md, AGENTS.md, …) were found.", &app.info.memory);
            out.push(format!("Opening {} in your editor (new sessions read it)", path.display()));
            app.edit = Some(path);
        }
        "output-style" if args.trim().is_empty() => {
            let next = app.output_style_next.clone();
            let items = app
                .info
                .output_styles
                .iter()
                .map(|(name, description)| {
                    let now = if *name == app.info.output_style { " (this session)" } else { "" };
                    let later = if next.as_deref() == Some(name) { " (next sessions)" } else { "" };
                    let pick = crate::pickers::Pick::Run(format!("output-style {name}"));
                    (format!("{name}{now}{later}: {description}"), pick)
                })
                .collect::<Vec<_>>();
            let selected = items.iter().position(|(l, _)| l.contains("(next sessions)")).unwrap_or_else(|| {
                app.info.output_styles.iter().position(|(n, _)| *n == app.info.output_style).unwrap_or(0)
            });
            app.open(Box::new(crate::pickers::Choose { title: "Output style".into(), items, selected }));
            return;
        }
        "output-style" => {
            let wanted = args.trim();
            match app.info.output_styles.iter().find(|(n, _)| n.eq_ignore_ascii_case(wanted)) {
                Some((name, _)) => {
                    match rein_settings::set_local_value(&app.project_root, "outputStyle", name.as_str().into()) {
                        Ok(path) => {
                            out.push(format!(
                                "Output style set to {name} in {} (sessions started from now on use it)",
                                path.display()
                            ));
                            app.output_style_next = Some(name.clone());
                        }
                        Err(e) => out.push(format!("Could not set the output style: {e}")),
                    }
                }
                None => out.push(format!("No output style named {wanted:?} (/output-style lists them)")),
            }
        }
        "plugin" | "plugins" => {
            if let Some(list) = crate::plugin_view::open(app, args) {
                app.open(Box::new(list));
                return;
            }
            out.extend(crate::plugin_slash::run(args, &app.cwd, &app.info.plugins, app.info.plugin_store.as_ref()));
        }
        "config" => {
            list(&mut out, "No settings files were read.", &app.info.settings);
            let mode = app.policy.get().mode;
            out.push(format!("Mode: {} (`{}`)", crate::view::mode_label(mode), mode.name()));
        }
        "resume" => {
            let sessions = rein_session::earlier_sessions(&app.rein_home, &app.cwd);
            let list: Vec<(String, String)> = sessions
                .into_iter()
                .filter(|s| s.session_id != app.session_id)
                .take(20)
                .map(|s| {
                    let prompt = s.label();
                    (s.session_id, format!("{prompt}  ({}, {} turns)", age(s.modified), s.turns))
                })
                .collect();
            if list.is_empty() {
                out.push("No earlier sessions in this directory.".into());
            } else {
                app.open(Box::new(crate::pickers::Sessions { list, selected: 0 }));
            }
        }
        "init" => {
            app.pending.push(Line::from(format!("> /{command}")));
            app.submit(INIT.to_string());
            return;
        }
        other => match crate::slash_session::run(app, other, args) {
            Some(lines) => out = lines,
            None => out.push(format!("Unknown command /{other}; /help lists them")),
        },
    }
    app.pending.push(Line::from(format!("> /{command}")));
    let indent = |i: usize| if i == 0 { "  ⎿  " } else { "     " };
    app.pending.extend(out.into_iter().enumerate().map(|(i, l)| Line::from(format!("{}{l}", indent(i)))));
}

fn list(out: &mut Vec<String>, empty: &str, items: &[String]) {
    if items.is_empty() {
        out.push(empty.to_string());
    }
    out.extend(items.iter().cloned());
}

/// `/permissions allow|ask|deny RULE` and `/permissions remove RULE`: the session and
/// the project's `.claude/settings.local.json` change together.
fn permissions(app: &mut App, args: &str, out: &mut Vec<String>) {
    use rein_policy::ListKind;
    let (verb, rule) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
    let rule = rule.trim();
    if rule.is_empty() {
        out.push("Usage: /permissions allow|ask|deny RULE, or /permissions remove RULE".into());
        return;
    }
    let kind = match verb {
        "allow" => ListKind::Allow,
        "ask" => ListKind::Ask,
        "deny" => ListKind::Deny,
        "remove" => {
            match app.apply(Change::RemoveRules(vec![rule.to_string()]), Destination::LocalSettings) {
                Ok(Some(path)) => out.push(format!("Removed {rule} (from this session and {})", path.display())),
                Ok(None) => out.push(format!("Removed {rule} from this session")),
                Err(e) => out.push(format!("Could not change the settings: {e}")),
            }
            return;
        }
        other => {
            out.push(format!("Unknown /permissions action {other:?}"));
            return;
        }
    };
    match app.apply(Change::AddRules(kind, vec![rule.to_string()]), Destination::LocalSettings) {
        Ok(Some(path)) => out.push(format!("Added {rule} to the {} list ({})", kind.name(), path.display())),
        Ok(None) => out.push(format!("Added {rule} for this session")),
        Err(e @ rein_policy::UpdateError::Rule { .. }) => out.push(format!("Not added: {e}")),
        Err(e) => out.push(format!("Added for this session; could not change the settings: {e}")),
    }
}

/// How long ago, roughly.
fn age(when: std::time::SystemTime) -> String {
    let secs = when.elapsed().map(|d| d.as_secs()).unwrap_or(0);
    match secs {
        s if s < 60 => "just now".into(),
        s if s < 3600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3600),
        s => format!("{}d ago", s / 86_400),
    }
}

impl App {
    /// A built-in slash command typed at the input box (`command` without its `/`).
    pub(crate) fn run_slash(&mut self, command: &str) {
        run(self, command);
    }
}

/// `/theme NAME`: use it now and save it in the user's settings (every later session
/// uses it); what happened, for the history.
fn choose_theme(app: &App, name: &str) -> String {
    use crate::theme::{Theme, set};
    let Some(theme) = Theme::parse(name) else {
        let names: Vec<&str> = Theme::ALL.iter().map(|t| t.name()).collect();
        return format!("No theme named {:?}; rein has {}", name.trim(), names.join(", "));
    };
    set(theme);
    let saved = app.info.plugin_store.as_ref().map(|store| {
        rein_settings::set_value_in(&store.config_dir.join("settings.json"), "theme", theme.name().into())
    });
    match saved {
        Some(Ok(path)) => format!("Theme set to {} (saved in {})", theme.name(), path.display()),
        Some(Err(e)) => format!("Theme set to {} for this session; it could not be saved: {e}", theme.name()),
        None => format!("Theme set to {} for this session (no home folder to save it in)", theme.name()),
    }
}

/// `/reload-plugins`: end the session so that rein starts again on it, reading every
/// plugin (commands, subagents, skills, hooks, MCP and language servers, output styles)
/// and setting anew. Not while a turn or background work runs (it would end with it):
/// then why not, for the person.
fn reload(app: &mut App) -> Option<String> {
    if app.busy.is_some() {
        return Some("rein is working: /reload-plugins once the turn has ended (or Esc to stop it)".into());
    }
    let commands = app.jobs.as_ref().map_or(0, |j| j.list().iter().filter(|j| j.running).count());
    let agents = app
        .jobs
        .as_ref()
        .map_or(0, |j| j.agents().list().iter().filter(|a| a.state == rein_tools::AgentState::Running).count());
    if commands + agents > 0 {
        return Some(format!(
            "{commands} background command(s) and {agents} background agent(s) are running, and would end: \
             /reload-plugins once they are done (or stopped with /tasks)"
        ));
    }
    let policy = app.policy.get();
    app.reload = Some(crate::app::Reload {
        session: (app.turns_taken && !app.session_id.is_empty()).then(|| app.session_id.clone()),
        model: app.model.clone(),
        mode: policy.mode.name().to_string(),
    });
    app.quit = true;
    None
}
