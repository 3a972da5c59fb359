//! The rules a "Yes, and don't ask again" answer remembers: one per command of a shell
//! line that needed approval (none when that would take more than eight: remembering
//! some would leave the same line asking again), never wider than what was asked and only one
//! that really allows it: a prefix rule `Bash(program sub *)` for a program's subcommand
//! (never a runner's: `uv run`, `pnpm exec`), else the command exactly; the
//! domain of a fetch; otherwise the tool itself.

use rein_bash::AllowBy;

use crate::Call;
use crate::{Behavior, Policy};

/// The most rules "don't ask again" offers for one command.
const MAX_REMEMBERED: usize = 8;

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
                if words.is_empty() {
                    continue;
                }
                // Never wider than what was asked, and only a rule that really allows it
                // from now on: a program's subcommand as a prefix (`npm test *`, `gh pr
                // view *`), never a runner's (`uv run …`, `pnpm exec …` take any command);
                // else the command exactly as written (`rm -rf build`, not `rm *`); else
                // none (a command only known when it runs, or one no rule can spell).
                let exact = literal == cmd.words.len()
                    && !words
                        .iter()
                        .any(|w| w.is_empty() || w.contains(|c: char| c.is_whitespace() || "*()".contains(c)));
                let mut candidates = Vec::new();
                if let Some(prefix) = subcommand_prefix(&words) {
                    candidates.push(format!("{}({prefix} *)", call.tool));
                }
                if exact {
                    candidates.push(format!("{}({})", call.tool, words.join(" ")));
                }
                let Some(rule) = candidates.into_iter().find(|r| self.would_allow(r, cmd)) else { continue };
                // Only what still needs approval, each once.
                if !rules.contains(&rule) && self.command_needs_approval(cmd) {
                    rules.push(rule);
                }
            }
            // A rule for each would be many: remembering only some of them would leave
            // the same command asking again, so none is offered.
            if rules.len() > MAX_REMEMBERED {
                rules.clear();
            }
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

    /// Whether `rule`, added to the allow list, would let `cmd` run unasked.
    fn would_allow(&self, rule: &str, cmd: &rein_bash::Command) -> bool {
        let Ok(parsed) = self.parse_rule_as(rule, crate::ListKind::Allow, "suggestion") else { return false };
        let mut with = self.clone();
        with.allow.push(parsed);
        !with.command_needs_approval(cmd)
    }

    /// Whether an allow rule or the read-only facts leave this command to a question.
    fn command_needs_approval(&self, cmd: &rein_bash::Command) -> bool {
        let one = rein_effects::ShellCommand::new(&cmd.allow_form(), &self.cwd, self.home.as_deref());
        let effects = rein_effects::Effects::running(one);
        let input = serde_json::json!({"command": cmd.allow_form()});
        self.decide(&Call { tool: "Bash", input: &input, effects: &effects }).behavior != Behavior::Allow
    }
}

/// Subcommands that run whatever follows them (a script, a package, any program).
const RUNNERS: &[&str] =
    &["run", "exec", "x", "dlx", "api", "eval", "shell", "script", "start", "tool", "create", "init", "watch"];

/// `program sub [subsub]` for a program whose first arguments name what it does, the
/// words up to the first option or path; `None` for other programs, and for a runner.
fn subcommand_prefix(words: &[String]) -> Option<String> {
    let program = words.first()?;
    // These run the package their first word names: no prefix of theirs is narrow.
    if !SUBCOMMAND_PROGRAMS.contains(&program.as_str()) || ["npx", "bunx", "pipx", "uvx"].contains(&program.as_str()) {
        return None;
    }
    let plain = |w: &&String| !w.starts_with('-') && !w.contains(['/', '.', '=', ':', '@']);
    let subs: Vec<&String> = words.iter().skip(1).take_while(plain).take(2).collect();
    if subs.is_empty() || subs.iter().any(|w| RUNNERS.contains(&w.as_str())) {
        return None;
    }
    let mut prefix = program.clone();
    for w in subs {
        prefix.push(' ');
        prefix.push_str(w);
    }
    Some(prefix)
}
