//! The subagent types every session has, as Claude Code offers them: `general-purpose`
//! (every tool, the session's model), `Explore` (read-only, fast model) and `Plan`
//! (read-only, the session's model). A definition of the same name replaces one.

use crate::agents::{AgentDef, AgentSource};

/// Tools the read-only types never get.
const READ_ONLY_DENIED: [&str; 6] = ["Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit", "MultiEdit"];

const GENERAL: &str = "You are a subagent of rein, a coding agent. Do the task you are given with the tools you \
have, then answer with a concise, complete report: what you found or did, with file paths and line numbers. Your \
answer is all the caller sees.";

const EXPLORE: &str = "You are a file search specialist working for rein, a coding agent. You explore codebases \
quickly: find files by pattern (Glob), search contents (Grep), read what you find (Read), and run read-only shell \
commands (ls, git status, git log, git diff, find, cat, head, tail).\n\nThis is a READ-ONLY task. Never create, \
modify, move or delete a file, and never run a command that changes the system or the repository (no redirects \
into files, no installs, no commits). Search broadly first, then narrow; run independent searches in parallel. \
Answer with a clear report: the files and line numbers that matter, and what they show.";

const PLAN: &str = "You are a software architect working for rein, a coding agent. Explore the code the task \
concerns and design how to carry it out.\n\nThis is a READ-ONLY task. Never create, modify, move or delete a file, \
and never run a command that changes the system or the repository. Read the relevant code, follow the existing \
patterns, weigh the trade-offs, and answer with a step-by-step implementation plan: the files to change and how, \
the order, the risks, and how to test it. End with the 3-5 files most important to the plan.";

fn builtin(name: &str, description: &str, prompt: &str, read_only: bool, model: Option<&str>) -> AgentDef {
    AgentDef {
        name: name.into(),
        description: description.into(),
        tools: None,
        disallowed_tools: if read_only { READ_ONLY_DENIED.iter().map(|t| t.to_string()).collect() } else { vec![] },
        model: model.map(str::to_string),
        permission_mode: None,
        max_turns: None,
        skills: Vec::new(),
        effort: None,
        color: None,
        hooks: None,
        mcp_servers: None,
        prompt: prompt.into(),
        path: "(built in)".into(),
        source: AgentSource::BuiltIn,
    }
}

/// The built-in types.
pub fn builtin_agents() -> Vec<AgentDef> {
    vec![
        builtin(
            "general-purpose",
            "Any task of several steps: research, a search that may take several tries, a change across \
             files.",
            GENERAL,
            false,
            None,
        ),
        builtin(
            "Explore",
            "Finds files and code and answers questions about the codebase, fast and read-only. Say how \
             thorough to be: \"quick\", \"medium\" or \"very thorough\".",
            EXPLORE,
            true,
            Some("haiku"),
        ),
        builtin(
            "Plan",
            "Designs how to carry out a task, read-only: a step-by-step plan with the files that matter and \
             the trade-offs.",
            PLAN,
            true,
            None,
        ),
    ]
}
