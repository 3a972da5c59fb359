//! The one table of slash commands: the terminal's `/help` and `/` menu are drawn from
//! it, and the SDK's command list (`initialize`, `get_server_info`) is made of it and
//! the project's own commands. A command that only makes sense at a terminal (`/vim`,
//! `/copy`, `/exit`) says so, and the SDK does not offer it.

use serde::Serialize;

/// Where a built-in command can be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reach {
    /// Any frontend: the session owner answers it (a [`Command`](crate::Command)).
    Session,
    /// Only at a terminal (it acts on the screen, the input box or the clipboard).
    Terminal,
}

/// One built-in slash command.
#[derive(Debug, Clone, Copy)]
pub struct Builtin {
    pub name: &'static str,
    pub argument_hint: &'static str,
    pub description: &'static str,
    pub reach: Reach,
}

const fn cmd(name: &'static str, argument_hint: &'static str, description: &'static str, reach: Reach) -> Builtin {
    Builtin { name, argument_hint, description, reach }
}

use Reach::{Session, Terminal};

/// Every built-in slash command, in the order `/help` lists them.
pub const BUILTIN: &[Builtin] = &[
    cmd("help", "", "this list", Terminal),
    cmd("cost", "", "tokens, cost and API time of this session", Terminal),
    cmd("status", "", "model, mode, working directory", Terminal),
    cmd("model", "[NAME]", "the model in use; `/model NAME` changes it", Session),
    cmd(
        "permissions",
        "[allow|ask|deny|remove RULE]",
        "the rules in force; `allow|ask|deny RULE` adds one, `remove RULE` drops it",
        Terminal,
    ),
    cmd("context", "", "how full the context window is", Session),
    cmd("btw", "QUESTION", "ask on the side: answered from the conversation, without joining it", Session),
    cmd("diff", "", "what this session changed in files (file tools and commands), as a diff", Session),
    cmd("compact", "[INSTRUCTIONS]", "summarise the conversation now", Session),
    cmd("clear", "", "start a new session (a new conversation and transcript)", Session),
    cmd("branch", "", "fork the conversation: go on in a new session, the original kept as it was", Session),
    cmd("hooks", "", "the hooks configured, with where they come from", Terminal),
    cmd("agents", "", "the subagents defined in .claude/agents", Terminal),
    cmd("skills", "", "the skills the model can use, with where each comes from", Terminal),
    cmd("review", "[FOCUS]", "ask rein to review the change in progress (git status and diff)", Terminal),
    cmd("security-review", "[FOCUS]", "ask rein to review the change in progress for security problems", Terminal),
    cmd("statusline", "[COMMAND]", "the command whose output shows under the input (saved for this project)", Terminal),
    cmd(
        "reload-plugins",
        "",
        "read the plugins (and all settings) again: rein picks this conversation up with them",
        Terminal,
    ),
    cmd("theme", "[NAME]", "the colour theme: dark, light, their colour-blind and terminal-colour forms", Terminal),
    cmd("doctor", "", "what rein read and found: settings, hooks, MCP servers, sandbox (as `rein doctor`)", Terminal),
    cmd("memory", "[list]", "edit CLAUDE.md in $EDITOR (`/memory list`: the memory files in the prompt)", Terminal),
    cmd("init", "", "ask rein to write a CLAUDE.md for this project", Terminal),
    cmd("config", "", "the settings files read, by scope", Terminal),
    cmd(
        "output-style",
        "[NAME]",
        "the output styles; `/output-style NAME` picks one for the next sessions here",
        Terminal,
    ),
    cmd(
        "plugin",
        "[ACTION]",
        "the plugins in use and installed; install, enable, disable, marketplace add… (as `rein plugin`)",
        Terminal,
    ),
    cmd("resume", "", "pick an earlier session of this directory to continue", Terminal),
    cmd("exit", "", "end the session (also Ctrl+C or Ctrl+D twice)", Terminal),
    cmd("rewind", "", "go back to before an earlier prompt: the code, the conversation or both (Esc Esc)", Terminal),
    cmd("export", "[FILE]", "the conversation as Markdown: `/export FILE` writes it, `/export` copies it", Session),
    cmd("copy", "", "copy rein's last answer to the clipboard", Terminal),
    cmd("rename", "NAME", "`/rename NAME` names this session (as /resume lists it)", Session),
    cmd("add-dir", "PATH", "`/add-dir PATH` lets rein work in another folder for this session", Session),
    cmd("plan", "", "plan mode: rein reads and plans, and changes nothing until you approve the plan", Session),
    cmd("effort", "[LEVEL]", "the reasoning effort: low, medium, high, xhigh, max or auto", Session),
    cmd("vim", "", "vim's normal and insert modes in the input box, on or off", Terminal),
    cmd(
        "mcp",
        "[reconnect|enable|disable|authenticate NAME]",
        "the MCP servers: state, tools, why one failed; `/mcp reconnect|enable|disable|authenticate NAME`",
        Session,
    ),
    cmd(
        "tasks",
        "[show|stop ID]",
        "the background commands: `/tasks` lists, `/tasks show ID` their output, `/tasks stop ID`",
        Terminal,
    ),
];

/// A command as a frontend lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandInfo {
    pub name: String,
    pub description: String,
    pub argument_hint: String,
    /// rein's own, not the project's or a plugin's.
    pub builtin: bool,
}

/// The commands a frontend offers: the built-in ones it can reach (`terminal`: all of
/// them; else those the owner answers), then the project's, skills and plugins'.
pub fn offered(terminal: bool, custom: &[rein_prompt::commands::CommandDef]) -> Vec<CommandInfo> {
    let builtin = BUILTIN.iter().filter(|b| terminal || b.reach == Reach::Session).map(|b| CommandInfo {
        name: b.name.to_string(),
        description: b.description.to_string(),
        argument_hint: b.argument_hint.to_string(),
        builtin: true,
    });
    let own = custom.iter().map(|c| CommandInfo {
        name: c.name.clone(),
        description: c.description.clone(),
        argument_hint: c.argument_hint.clone().unwrap_or_default(),
        builtin: false,
    });
    builtin.chain(own).collect()
}

/// The commands a program (the Agent SDK) can send: the skills a person may call, the
/// project's and plugins' commands, then rein's own that the owner answers.
pub fn for_programs(
    custom: &[rein_prompt::commands::CommandDef],
    skills: &[rein_prompt::skills::SkillDef],
) -> Vec<CommandInfo> {
    let skills = skills.iter().filter(|s| s.user_invocable).map(|s| CommandInfo {
        name: s.name.clone(),
        description: s.description.clone(),
        argument_hint: s.argument_hint.clone().unwrap_or_default(),
        builtin: false,
    });
    let mut out: Vec<CommandInfo> = skills.collect();
    let (builtin, own): (Vec<CommandInfo>, Vec<CommandInfo>) =
        offered(false, custom).into_iter().partition(|c| c.builtin);
    // A command and a skill of one name are the skill (as `/name` runs it); a name is
    // offered once.
    for c in own.into_iter().chain(builtin) {
        if !out.iter().any(|o| o.name == c.name) {
            out.push(c);
        }
    }
    out
}

/// rein's commands that only a terminal can run (they act on the screen, the input box
/// or the clipboard).
pub fn terminal_only() -> impl Iterator<Item = &'static str> {
    BUILTIN.iter().filter(|b| b.reach == Reach::Terminal).map(|b| b.name)
}

/// `text` (a line the person or a program typed) as the owner's command, when it is one
/// of the built-in commands the owner answers with what follows it: `/model sonnet`,
/// `/compact keep the plan`, `/context`, …. `None` for anything else (a prompt, a
/// terminal-only command, a command of the project's).
pub fn parse(text: &str, cwd: &std::path::Path) -> Option<crate::Command> {
    use crate::Command;
    let rest = text.trim().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).map_or((rest, ""), |(n, a)| (n, a.trim()));
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    Some(match name {
        "model" if !args.is_empty() => Command::SetModel { model: some(args) },
        "context" => Command::ContextUsage,
        "compact" => Command::Compact { instructions: args.to_string() },
        "clear" => Command::Clear,
        "branch" => Command::Branch,
        "diff" => Command::Diff,
        "btw" if !args.is_empty() => Command::SideQuestion { question: args.to_string() },
        "export" => Command::Export { to: some(args).map(|a| cwd.join(a)) },
        "rename" if !args.is_empty() => Command::Rename { title: args.to_string() },
        "add-dir" if !args.is_empty() => Command::AddDir { path: cwd.join(args) },
        "plan" => Command::SetMode { mode: "plan".into(), source: "/plan".into() },
        "effort" => Command::Effort { level: some(args) },
        // `/mcp authenticate NAME` (a browser) is the terminal's own; `/mcp reconnect`
        // without a name is answered with how to use it.
        "mcp" => match args.split_once(char::is_whitespace).map_or((args, ""), |(v, n)| (v, n.trim())) {
            ("reconnect", "") | ("authenticate" | "login", _) => return None,
            ("reconnect", server) => Command::McpReconnect { server: server.to_string() },
            ("enable" | "disable", "") => return None,
            ("enable", server) => Command::McpToggle { server: server.to_string(), enabled: true },
            ("disable", server) => Command::McpToggle { server: server.to_string(), enabled: false },
            _ => Command::McpStatus,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Command;

    #[test]
    fn every_command_the_owner_answers_parses_and_no_terminal_one_does() {
        let cwd = std::path::Path::new("/w");
        for b in BUILTIN {
            let line = match b.argument_hint {
                "NAME" | "PATH" | "[NAME]" | "QUESTION" => format!("/{} x", b.name),
                _ => format!("/{}", b.name),
            };
            let line = if b.name == "mcp" { "/mcp".to_string() } else { line };
            assert_eq!(parse(&line, cwd).is_some(), b.reach == Reach::Session, "/{}", b.name);
        }
        assert_eq!(parse("/export out.md", cwd), Some(Command::Export { to: Some("/w/out.md".into()) }));
        assert_eq!(parse("/mcp reconnect db", cwd), Some(Command::McpReconnect { server: "db".into() }));
        assert_eq!(parse("/mcp disable db", cwd), Some(Command::McpToggle { server: "db".into(), enabled: false }));
        assert_eq!(parse("/mcp enable db", cwd), Some(Command::McpToggle { server: "db".into(), enabled: true }));
        assert_eq!(parse("/mcp enable", cwd), None);
        assert_eq!(parse("/mcp authenticate db", cwd), None);
        assert_eq!(parse("/mcp reconnect", cwd), None, "the terminal says how to use it");
        assert_eq!(parse("/mcp list", cwd), Some(Command::McpStatus));
        assert_eq!(parse("/rename", cwd), None);
        assert_eq!(parse("/model", cwd), None, "the terminal says which model it is");
        assert_eq!(parse("explain /model", cwd), None);
    }

    #[test]
    fn the_sdk_is_offered_only_what_the_owner_answers() {
        let sdk = offered(false, &[]);
        assert!(sdk.iter().any(|c| c.name == "compact"));
        assert!(!sdk.iter().any(|c| c.name == "vim" || c.name == "copy" || c.name == "exit"));
        assert_eq!(offered(true, &[]).len(), BUILTIN.len());
    }
}
