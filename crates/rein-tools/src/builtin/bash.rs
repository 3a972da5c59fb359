//! Bash: run a command in the session's shell (see `shell`), in the foreground with a
//! timeout, or in the background with an id for TaskOutput and TaskStop.

use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::shell::{Ending, Shell};
use super::shell_output::Limits;
use crate::{Confinement, Effects, RuleKind, ShellCommand, Tool, ToolContext, ToolError, ToolOutput};
use rein_effects::Grant;
use rein_sandbox::Profile;

const DEFAULT_TIMEOUT_MS: u64 = 120_000;
const MAX_TIMEOUT_MS: u64 = 600_000;

/// The git and GitHub part of the description.
const GIT_GUIDANCE_TEXT: &str = "\nGit and GitHub: commit, push or open a pull request only when asked. Before \
    committing on the default branch, make a branch unless told otherwise. Never use interactive flags (`-i`), never \
    skip hooks or rewrite published history unless asked, and never commit secrets (.env, keys). Write messages that \
    say why; follow the configured commit attribution. Use `gh` for GitHub (issues, pull requests, checks); mention \
    `@name` only for logins you know exist.";

/// What the session's configuration says about the Bash tool: its timeouts
/// (`BASH_DEFAULT_TIMEOUT_MS`, `BASH_MAX_TIMEOUT_MS`) and whether its description gives
/// the model git guidance (`includeGitInstructions`). Plain data, one per session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BashSettings {
    /// Milliseconds; `None`: the built-in two minutes.
    pub default_timeout_ms: Option<u64>,
    /// Milliseconds; `None`: the built-in ten minutes.
    pub max_timeout_ms: Option<u64>,
    pub git_guidance: bool,
}

impl Default for BashSettings {
    fn default() -> Self {
        BashSettings { default_timeout_ms: None, max_timeout_ms: None, git_guidance: true }
    }
}

impl BashSettings {
    /// The default and longest timeouts in force (the default never above the longest;
    /// 0 counts as unset).
    fn timeouts(&self) -> (u64, u64) {
        let pick = |v: Option<u64>, builtin: u64| v.filter(|v| *v > 0).unwrap_or(builtin);
        let max = pick(self.max_timeout_ms, MAX_TIMEOUT_MS);
        (pick(self.default_timeout_ms, DEFAULT_TIMEOUT_MS).min(max), max)
    }
}

pub(crate) const MAX_OUTPUT_CHARS: usize = 30_000;

pub struct Bash {
    shell: Arc<Shell>,
    settings: BashSettings,
}

/// What SessionStart hooks write through `CLAUDE_ENV_FILE` (in the session directory);
/// every command sources it.
pub(super) const ENV_FILE: &str = "session-env.sh";

impl Bash {
    pub(crate) fn new(shell: Arc<Shell>, settings: BashSettings) -> Self {
        Bash { shell, settings }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BashInput {
    pub command: String,
    /// In milliseconds.
    pub timeout: Option<u64>,
    /// What it does, in 5-10 words.
    pub description: Option<String>,
    pub run_in_background: Option<bool>,
    /// Run outside the sandbox. Only when the user asks, or a command just failed because
    /// of a sandbox restriction; always needs approval.
    #[serde(rename = "dangerouslyDisableSandbox")]
    pub dangerously_disable_sandbox: Option<bool>,
}

impl Bash {
    /// Where this call runs: in the sandbox, outside it by its own request (honoured only
    /// when `allowUnsandboxedCommands` is on), or on the host (no sandbox, or an
    /// `excludedCommands` match).
    /// `analysed` gives the line's analysis; it is only asked for when `excludedCommands`
    /// are configured.
    fn confinement(&self, input: &BashInput, analysed: impl FnOnce() -> ShellCommand) -> Confinement {
        let Some(sandbox) = self.shell.sandbox.as_ref().filter(|s| s.is_active()) else { return Confinement::None };
        if input.dangerously_disable_sandbox == Some(true) && sandbox.config.allow_unsandboxed_commands {
            return Confinement::Unsandboxed;
        }
        let patterns = &sandbox.config.excluded_commands;
        if !patterns.is_empty() && excluded(patterns, &analysed()) {
            return Confinement::None;
        }
        Confinement::Sandboxed
    }
}

impl Bash {
    /// The powers this call runs with (`None`: unconfined). What the person allowed runs
    /// where their setup says: in their sandbox when it is on and the call does not
    /// leave it. What rein allowed by its own judgement runs with only the powers that
    /// judgement covered, sandbox on or off — except on a host where nothing can
    /// confine a command, where the judgement is trusted (and the person was told the
    /// sandbox is unavailable when they asked for it).
    fn profile(&self, input: &BashInput, grant: Grant, analysed: impl FnOnce() -> ShellCommand) -> Option<Profile> {
        let sandbox = self.shell.sandbox.as_ref()?;
        let configured = (self.confinement(input, analysed) == Confinement::Sandboxed).then_some(Profile::Configured);
        if grant == Grant::User || !sandbox.can_enforce() {
            return configured;
        }
        Some(match grant {
            Grant::ReadOnly => Profile::ReadOnly,
            Grant::Edits => Profile::Workspace { network: false },
            _ => configured.unwrap_or(Profile::Workspace { network: true }),
        })
    }
}

/// An `excludedCommands` match: every command of the line matches a pattern, and the
/// line has nothing that could smuggle another command or file out (no `cd`, no
/// substitution or other construct the analysis cannot read, no redirection other than
/// descriptor duplication).
fn excluded(patterns: &[String], shell: &ShellCommand) -> bool {
    let a = &shell.analysis;
    a.understood()
        && !a.commands.is_empty()
        && a.redirects.iter().all(|r| r.target.text.chars().all(|c| c.is_ascii_digit() || c == '-'))
        && a.commands.iter().all(|c| {
            let form = c.allow_form();
            c.program() != Some("cd")
                && patterns.iter().any(|p| wildcard(p.trim_end_matches(":*"), &form, p.ends_with(":*")))
        })
}

/// `*` matches any run of characters; a legacy `prefix:*` pattern matches the prefix
/// followed by nothing or a space.
fn wildcard(pattern: &str, text: &str, legacy_prefix: bool) -> bool {
    if legacy_prefix {
        return text == pattern || text.starts_with(&format!("{pattern} "));
    }
    rein_effects::wildcard_match(pattern, text)
}

impl Tool for Bash {
    type Input = BashInput;

    fn name(&self) -> &'static str {
        "Bash"
    }

    fn description(&self) -> String {
        format!(
            "Runs a bash command in the session's persistent shell (`cd`, exports and functions carry over; stdin is \
             closed); returns stdout and stderr interleaved, and a non-zero exit code. Output past \
             {MAX_OUTPUT_CHARS} characters is saved whole to a file you can Read or Grep; you get its head, its tail \
             and the path. Timeout {}s (max {}s), then the command and all it \
             started are killed. Use run_in_background for servers and watchers (then TaskOutput, TaskStop). \
             Prefer Read, Glob and Grep to cat, find and grep; quote paths with spaces.",
            self.settings.timeouts().0 / 1000,
            self.settings.timeouts().1 / 1000
        ) + if self.settings.git_guidance { GIT_GUIDANCE_TEXT } else { "" }
            + &self.sandbox_note()
    }

    fn hidden_fields(&self) -> Vec<&'static str> {
        match &self.shell.sandbox {
            Some(s) if s.is_active() && s.config.allow_unsandboxed_commands => Vec::new(),
            _ => vec!["dangerouslyDisableSandbox"],
        }
    }

    fn validate(&self, input: &BashInput, _ctx: &ToolContext) -> Result<(), crate::InputError> {
        if input.command.trim().is_empty() {
            return Err("command is empty".into());
        }
        Ok(())
    }

    /// The line as the session shell will run it: from its current directory.
    fn effects(&self, input: &BashInput, ctx: &ToolContext) -> Effects {
        self.shell.use_env_file(ctx.session_dir.join(ENV_FILE));
        if let Some(checkpoints) = &ctx.checkpoints {
            self.shell.use_checkpoints(checkpoints.clone());
        }
        let cwd = self.shell.current_dir().unwrap_or_else(|| ctx.cwd.clone());
        let mut shell = ShellCommand::new(&input.command, &cwd, ctx.home.as_deref()).with_state(self.shell.state());
        shell.confinement = self.confinement(input, || shell.clone());
        let effects = Effects::running(shell);
        if input.run_in_background == Some(true) { effects.not_read_only() } else { effects }
    }

    fn rule_kind(&self) -> RuleKind {
        RuleKind::Command { field: "command" }
    }

    fn max_result_chars(&self) -> Option<usize> {
        Some(MAX_OUTPUT_CHARS + 200)
    }

    async fn call(&self, input: BashInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        self.shell.use_env_file(ctx.session_dir.join(ENV_FILE));
        if let Some(checkpoints) = &ctx.checkpoints {
            self.shell.use_checkpoints(checkpoints.clone());
        }
        let analysed = || {
            let cwd = self.shell.current_dir().unwrap_or_else(|| ctx.cwd.clone());
            ShellCommand::new(&input.command, &cwd, ctx.home.as_deref())
        };
        let profile = self.profile(&input, ctx.grant, analysed);
        if input.run_in_background == Some(true) {
            if ctx.trial.is_some() {
                return Err(ToolError::new("a background command is not tried first"));
            }
            let id = self
                .shell
                .spawn_background(&ctx.cwd, &input.command, profile)
                .map_err(|e| ToolError::new(format!("cannot start bash: {e}")))?;
            return Ok(ToolOutput::text(format!(
                "Started in the background as {id}. Read its output with TaskOutput, stop it with TaskStop."
            )));
        }
        let (default_ms, max_ms) = self.settings.timeouts();
        let timeout = Duration::from_millis(input.timeout.unwrap_or(default_ms).clamp(1, max_ms));
        let spill = crate::spilling::new_file(ctx, "Bash");
        let (output, ending) = if let Some(slot) = &ctx.trial {
            // Tried first: run where it can change nothing; the permission stage decides
            // what becomes of what it did.
            let limits = Limits { timeout, abort: &ctx.abort, limit: MAX_OUTPUT_CHARS, spill: &spill };
            self.shell
                .try_first(&ctx.cwd, &input.command, limits, slot)
                .await
                .map_err(|e| ToolError::new(format!("cannot try bash: {e}")))?;
            match slot.peek_output() {
                Some(ran) => ran,
                None => return Err(ToolError::new("the command could not be tried")),
            }
        } else {
            self.shell
                .run(&ctx.cwd, &input.command, timeout, &ctx.abort, MAX_OUTPUT_CHARS, profile, &spill)
                .await
                .map_err(|e| ToolError::new(format!("cannot run bash: {e}")))?
        };
        // The whole output, when only its preview goes to the model, is there for hooks.
        let saved = spill.is_file().then_some(spill);
        if let Some(dir) = self.shell.current_dir() {
            ctx.shell_dir.set(dir);
        }
        let output = output.trim_end_matches('\n');
        let sep = if output.is_empty() { "" } else { "\n" };
        let output = match ending {
            Ending::Exited(Some(0)) => ToolOutput::text(if output.is_empty() { "(no output)" } else { output }),
            Ending::Exited(code) => {
                let code = code.map(|c| c.to_string()).unwrap_or_else(|| "none (killed by a signal)".into());
                ToolOutput::failure(format!("{output}{sep}Exit code {code}"))
            }
            Ending::TimedOut => ToolOutput::failure(format!(
                "{output}{sep}Command timed out after {} ms; it and everything it started were killed",
                timeout.as_millis()
            )),
            Ending::Cancelled => ToolOutput::failure(format!("{output}{sep}{}", rein_protocol::INTERRUPTED)),
            Ending::Backgrounded(id) => ToolOutput::text(format!(
                "The user moved this command to the background; it is still running with ID: {id}. Read its \
                 output (from the start) with TaskOutput, stop it with TaskStop."
            )),
        };
        Ok(output.saved_in(saved))
    }
}

impl Bash {
    /// What the model is told about the sandbox its commands run in.
    fn sandbox_note(&self) -> String {
        let Some(sandbox) = self.shell.sandbox.as_ref().filter(|s| s.config.enabled) else { return String::new() };
        if !sandbox.is_active() {
            return " Commands are NOT sandboxed on this machine: they run with the user's full access.".into();
        }
        let escape = if sandbox.config.allow_unsandboxed_commands {
            " Set dangerouslyDisableSandbox only when the user asks, or when a command just failed because of a \
             sandbox restriction (Read-only file system, Operation not permitted, a refused connection); such runs \
             are always asked, and start in the shell's directory without its exports or functions (keeping none of \
             theirs). A denial of a credential or host the task does not need is the boundary working: tell the \
             user instead."
        } else {
            " Running outside the sandbox is not available."
        };
        format!(
            " Commands run in an OS sandbox: {}. Writable: {} and $TMPDIR. Protected (read-only) inside them: \
             .git/hooks, .git/config, .claude/, shell start-up files, .mcp.json.{escape}",
            sandbox.summary().trim_start_matches("sandbox: "),
            sandbox.roots().iter().map(|r| r.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    }
}
