//! The rules a "Yes, and don't ask again" answer remembers: one per command of a shell
//! line that needed approval (up to five), never wider than what was asked: a prefix rule
//! `Bash(program sub *)` for a program's subcommand, else the command exactly; the
//! domain of a fetch; otherwise the tool itself.

use rein_bash::AllowBy;

use crate::decide::Call;
use crate::{Behavior, Policy};

/// Programs whose first argument names what they do (`git push`, `npm test`).
const SUBCOMMAND_PROGRAMS: &[&str] = &[
    "git",
    "npm",
    "npx",
    "pnpm",
    "yarn",
    "cargo",
    "go",
    "docker",
    "kubectl",
    "make",
    "pip",
    "pip3",
    "python",
    "python3",
    "node",
    "deno",
    "bun",
    "gh",
    "poetry",
    "uv",
    "bundle",
    "rails",
    "mvn",
    "gradle",
    "dotnet",
    "terraform",
];

impl Policy {
    /// Rules that would allow `call` from now on (nothing for file edits, which are
    /// allowed for the session by switching to acceptEdits).
    pub fn suggested_rules(&self, call: &Call<'_>) -> Vec<String> {
        let effects = call.effects;
        if let Some(shell) = &effects.shell {
            let mut rules: Vec<String> = Vec::new();
            for cmd in shell.analysis.commands.iter().filter(|c| c.allow_by != AllowBy::DenyCheckOnly) {
                let literal = cmd.words.iter().take_while(|w| w.literal).count();
                let words: Vec<String> = cmd.words.iter().take(literal).map(|w| w.text.clone()).collect();
                let Some(program) = words.first() else { continue };
                let sub = words.get(1).filter(|w| {
                    SUBCOMMAND_PROGRAMS.contains(&program.as_str())
                        && !w.starts_with('-')
                        && !w.contains(['/', '.', '='])
                });
                // Never wider than what was asked: a program's subcommand (`npm test *`),
                // else the command exactly as written (`rm -rf build`, not `rm *`); a
                // command only known when it runs, or that a rule cannot spell exactly,
                // offers none.
                let exact = literal == cmd.words.len()
                    && !words
                        .iter()
                        .any(|w| w.is_empty() || w.contains(|c: char| c.is_whitespace() || "*()".contains(c)));
                let rule = match sub {
                    Some(s) => format!("{}({program} {s} *)", call.tool),
                    None if exact => format!("{}({})", call.tool, words.join(" ")),
                    None => continue,
                };
                // Only what still needs approval, each once.
                if !rules.contains(&rule) && self.command_needs_approval(cmd) {
                    rules.push(rule);
                }
            }
            rules.truncate(5);
            return rules;
        }
        if !effects.hosts.is_empty() {
            return effects.hosts.iter().map(|h| format!("{}(domain:{h})", call.tool)).collect();
        }
        if !effects.writes.is_empty() {
            return Vec::new();
        }
        vec![call.tool.to_string()]
    }

    /// Whether an allow rule or the read-only facts leave this command to a question.
    fn command_needs_approval(&self, cmd: &rein_bash::Command) -> bool {
        let one = rein_effects::ShellCommand::new(&cmd.allow_form(), &self.cwd, self.home.as_deref());
        let effects = rein_effects::Effects::running(one);
        let input = serde_json::json!({"command": cmd.allow_form()});
        self.decide(&Call { tool: "Bash", input: &input, effects: &effects }).behavior != Behavior::Allow
    }
}
