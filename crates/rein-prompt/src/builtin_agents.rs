//! The subagent types every session has, as Claude Code offers them: `general-purpose`
//! (every tool, the session's model), `Explore` (read-only, fast model) and `Plan`
//! (read-only, the session's model). A definition of the same name replaces one.

use crate::agent_def::{AgentDef, AgentSource};

/// Tools the read-only types never get.
const READ_ONLY_DENIED: [&str; 6] = ["Agent", "ExitPlanMode", "Edit", "Write", "NotebookEdit", "MultiEdit"];

const GENERAL: &str = "You are a subagent of rein, a coding agent. Do the task you are given with the tools you \
have, then answer with a concise, complete report: what you found or did, with file paths and line numbers. Your \
answer is all the caller sees.";

const EXPLORE: &str = "You are a rein subagent that finds things in a codebase and reports them. Locate files \
with Glob, search their text with Grep, Read the parts that matter; in the shell, only look (listing directories, \
the git history and diffs).\n\nYou change nothing: no file is created, edited, moved or deleted, and no command \
may alter the machine or the repository (no output redirected into files, no installs, no commits). Start wide, \
then narrow; independent searches can go in one response. Your answer is all the caller sees: name the files and \
lines that matter and say what they show.";

const PLAN: &str = "You are a rein subagent that designs how a change should be made. Study the code the task \
touches and work out the approach.\n\nYou change nothing: no file is created, edited, moved or deleted, and no \
command may alter the machine or the repository. Follow the patterns the code already has and weigh the options. \
Your answer is all the caller sees: an ordered plan (which files change and how, the risks, how to test it), \
ending with the few files the plan depends on most.";

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
        background: false,
        hooks: None,
        mcp_servers: None,
        prompt: prompt.into(),
        path: "(built in)".into(),
        source: AgentSource::BuiltIn,
    }
}

/// The built-in types.
pub(crate) fn builtin_agents() -> Vec<AgentDef> {
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
            "Finds files and code and answers questions about the codebase, quickly, changing nothing. Say how \
             thorough to be: \"quick\", \"medium\" or \"very thorough\".",
            EXPLORE,
            true,
            Some("haiku"),
        ),
        builtin(
            "Plan",
            "Designs how to carry out a task, changing nothing: a step-by-step plan with the files that matter and \
             the trade-offs.",
            PLAN,
            true,
            None,
        ),
    ]
}
