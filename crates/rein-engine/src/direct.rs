//! Calls the person makes directly — `!cmd` in the interactive session, a custom
//! command's `` !`cmd` `` snippets and `@file` mentions — run through the same chain as
//! the model's calls (schema, hooks, permissions), and custom commands expanded with them.

use std::path::Path;
use std::sync::Arc;

use rein_policy::{Access, RuleKind};
use rein_prompt::commands::CommandDef;
use rein_protocol::{ContentBlock, ToolResultContent, ToolUse};
use serde_json::json;

use crate::turn_start::is_prompt;

use crate::Engine;

/// Where a command's turn-only rules come from (removed when the turn ends).
pub(crate) fn turn_origin(name: &str) -> String {
    format!("command /{name} (this turn)")
}

impl Engine {
    /// Run one call through the whole chain: the result as the tool gave it (an image
    /// stays an image), and whether it failed.
    async fn run_direct_content(&mut self, call: ToolUse) -> (ToolResultContent, bool) {
        let report = crate::chain::run_call(&self.registry, &self.gate, &call, &self.tool_context(), None).await;
        if let Some(verdict) = &report.verdict {
            crate::audit::record(&call, verdict);
        }
        match report.result {
            ContentBlock::ToolResult { content, is_error, .. } => (content, is_error),
            other => (ToolResultContent::Text(format!("{other:?}")), true),
        }
    }

    /// The tool that reads rules of `kind`: the shell (command rules) or the file reader.
    fn tool_for(&self, wanted: impl Fn(RuleKind) -> bool) -> Option<String> {
        self.registry.rule_kinds().into_iter().find(|(_, r)| wanted(r.kind)).map(|(name, _)| name)
    }

    /// Call `name` with `input` as someone outside the conversation asks (the person's
    /// `!cmd`, a client of `rein mcp serve`): through the whole chain, joining nothing.
    pub async fn run_tool(&mut self, name: &str, input: serde_json::Value) -> (ToolResultContent, bool) {
        let call = ToolUse { id: format!("direct_{}", uuid_like()), name: name.to_string(), input };
        self.run_direct_content(call).await
    }

    /// Run a shell command line as the person asked (`!cmd`).
    pub async fn run_shell(&mut self, command: &str) -> (String, bool) {
        let Some(tool) = self.tool_for(|k| matches!(k, RuleKind::Command { .. })) else {
            return ("no shell tool is available".into(), true);
        };
        let (content, failed) = self.run_tool(&tool, json!({"command": command})).await;
        (content.to_text(), failed)
    }

    /// Expand a custom command: its arguments, then its `` !`cmd` `` snippets (run
    /// through the chain) and its `@file` mentions (read through the chain). Its
    /// `allowed-tools` hold for the turn that follows.
    pub async fn expand_command(
        &mut self,
        def: &CommandDef,
        args: &str,
        project_dir: &Path,
        session_id: &str,
    ) -> Result<Attached, CommandAborted> {
        let e = def
            .expand(args, project_dir, session_id)
            .map_err(|error| CommandAborted::Unreadable { command: def.name.clone(), error })?;
        let origin = turn_origin(&def.name);
        for rule in &def.allowed_tools {
            if let Err(err) = self.gate.policy.remember(rule, &origin) {
                tracing::warn!(error = %err, "a command's allowed-tools rule does not parse");
            }
        }
        let mut outputs = Vec::new();
        let skill = def.label.starts_with("skill").then_some(def.name.as_str());
        let ctx = self.tool_context();
        for cmd in &e.shell {
            match run_shell_line(&self.registry, &self.gate, &ctx, skill, cmd).await {
                Ok(output) => outputs.push(output),
                // As in Claude Code, a shell line that fails or is not permitted stops the command.
                Err(output) => {
                    self.end_command_turn(def);
                    return Err(CommandAborted::ShellLine { command: def.name.clone(), line: cmd.clone(), output });
                }
            }
        }
        let text = e.fill(&outputs);
        Ok(self.attach_files(text, &e.files).await)
    }

    /// A prompt with the files its `@path` mentions name attached (read through the
    /// chain): a text file in the text, an image, PDF or notebook as its blocks;
    /// mentions of what is not a file stay as written.
    pub async fn attach_mentions(&mut self, text: String) -> Attached {
        let files: Vec<String> = text
            .split_whitespace()
            .filter_map(|w| w.strip_prefix('@'))
            .map(|p| p.trim_end_matches([',', '.', ';', ':', ')', '?', '!']).to_string())
            .filter(|p| !p.is_empty() && self.ctx.effect_path(p).is_file())
            .collect();
        self.attach_files(text, &files).await
    }

    async fn attach_files(&mut self, mut text: String, files: &[String]) -> Attached {
        let reader = self.tool_for(|k| matches!(k, RuleKind::Path { access: Access::Read, field: "file_path" }));
        let mut blocks = Vec::new();
        for file in files {
            let Some(tool) = reader.clone() else { break };
            let path = self.ctx.effect_path(file);
            let call = ToolUse {
                id: format!("direct_{}", uuid_like()),
                name: tool,
                input: json!({"file_path": path.display().to_string()}),
            };
            match self.run_direct_content(call).await {
                (_, true) => {}
                (ToolResultContent::Text(content), false) => {
                    text.push_str(&format!("\n\n<file path=\"{file}\">\n{content}\n</file>"));
                }
                (ToolResultContent::Blocks(content), false) => {
                    blocks.push(ContentBlock::text(format!("<file path=\"{file}\">")));
                    blocks.extend(content);
                }
            }
        }
        Attached { text, blocks }
    }

    /// The turn a command ran is over: its `allowed-tools` no longer hold.
    pub fn end_command_turn(&mut self, def: &CommandDef) {
        let origin = turn_origin(&def.name);
        self.gate.policy.update(|p| p.forget(&origin));
    }
}

/// One `` !`cmd` `` line of a command or skill (`skill`: its name): the
/// PreSkillShellCommand hooks first for a skill's, then the shell tool through the whole
/// chain. Its output, or why it did not run or failed.
pub(crate) async fn run_shell_line(
    registry: &rein_tools::Registry,
    gate: &crate::Gate,
    ctx: &rein_tools::ToolContext,
    skill: Option<&str>,
    line: &str,
) -> Result<String, ShellLineError> {
    if gate.policy.get().skill_shell_disabled {
        return Err(ShellLineError::Disabled);
    }
    if let (Some(name), Some(hooks)) = (skill, &gate.hooks) {
        let input = rein_hooks::HookInput::PreSkillShellCommand { skill_name: name.into(), command: line.into() };
        if let Some((reason, hook)) = hooks.fire_input(&input, |_| true).await.block() {
            return Err(ShellLineError::Blocked { hook, reason });
        }
    }
    let shell = registry.rule_kinds().into_iter().find(|(_, r)| matches!(r.kind, RuleKind::Command { .. }));
    let Some((tool, _)) = shell else { return Err(ShellLineError::NoShell) };
    let call = ToolUse { id: format!("direct_{}", uuid_like()), name: tool, input: json!({"command": line}) };
    let report = crate::chain::run_call(registry, gate, &call, ctx, None).await;
    if let Some(verdict) = &report.verdict {
        crate::audit::record(&call, verdict);
    }
    match report.result {
        ContentBlock::ToolResult { content, is_error: false, .. } => Ok(content.to_text()),
        ContentBlock::ToolResult { content, .. } => Err(ShellLineError::Failed(content.to_text())),
        other => Err(ShellLineError::Failed(format!("{other:?}"))),
    }
}

/// Why a skill's or command's `` !`cmd` `` line gave no output to fill in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellLineError {
    #[error("the settings turn off shell lines in skills and commands (disableSkillShellExecution)")]
    Disabled,
    #[error("the PreSkillShellCommand hook `{hook}` blocked it: {reason}")]
    Blocked { hook: String, reason: String },
    #[error("no shell tool is available")]
    NoShell,
    /// It was refused or ran and failed: the call's error result.
    #[error("{0}")]
    Failed(String),
}

/// A prompt with its attachments: the text (text files appended in `<file>` elements)
/// and the blocks of the images, PDFs and notebooks it mentioned.
#[derive(Debug, Clone, Default)]
pub struct Attached {
    pub text: String,
    pub blocks: Vec<ContentBlock>,
}

impl Attached {
    /// The content of the user message: the text, then the attachments.
    pub fn into_content(self) -> Vec<ContentBlock> {
        std::iter::once(ContentBlock::text(self.text)).chain(self.blocks).collect()
    }
}

/// A custom command that was not sent: one of its `` !`cmd` `` lines failed or was not
/// permitted, or its file could no longer be read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CommandAborted {
    #[error("/{command} was not run: its shell line `{line}` failed: {output}")]
    ShellLine { command: String, line: String, output: ShellLineError },
    #[error("/{command} was not run: {error}")]
    Unreadable { command: String, error: rein_prompt::body::BodyError },
}

/// A short unique id for direct calls.
fn uuid_like() -> String {
    format!("{:016x}", fastrand::u64(..))
}

impl Engine {
    /// `/compact [instructions]`: summarise the conversation now, keeping what the
    /// instructions ask for.
    pub async fn compact_now(
        &mut self,
        instructions: &str,
        sink: &mut (dyn FnMut(crate::EngineEvent) + Send),
    ) -> Result<(), crate::EngineError> {
        self.compact_instructions = Some(instructions.to_string());
        let result = self.compact("manual", sink).await;
        self.compact_instructions = None;
        result
    }

    /// `/context`: tokens in use (estimated), the window, and where compaction starts.
    pub fn context_usage(&self) -> (u64, u64, u64) {
        let limits = self.config.context;
        (self.estimated_tokens(), limits.window, limits.autocompact_at)
    }

    /// `/clear`: a new conversation; the next prompt fires SessionStart with source
    /// `clear`.
    pub fn clear_conversation(&mut self) {
        self.conversation = crate::Conversation::new();
        self.counted = None;
        self.told_mode = None;
        self.restart_session("clear");
    }
}

impl Engine {
    /// Record the session's title in its transcript (Claude Code's summary line).
    pub fn record_title(&self, title: &str) {
        self.transcript.write(|t| t.title(title));
    }

    /// The prompts the person wrote, in order (tool results and notes left out).
    pub fn user_prompts(&self) -> Vec<String> {
        self.conversation.messages().filter(|m| is_prompt(m)).map(crate::turn_start::prompt_words).collect()
    }

    /// Go back to before the `n`th prompt (Esc Esc): later messages are dropped, and the
    /// transcript records the new history after a boundary, so that a resume agrees.
    pub fn rewind_to(&mut self, n: usize) -> Result<(), crate::EngineError> {
        let mut seen = 0;
        let mut kept = Vec::new();
        for m in self.conversation.messages() {
            if is_prompt(m) {
                if seen == n {
                    break;
                }
                seen += 1;
            }
            kept.push(m.clone());
        }
        self.conversation.replace(kept.clone())?;
        self.counted = None;
        // The note of a mode change may have gone with the later prompts.
        self.told_mode = None;
        // The next prompt is turn `n` again: the checkpoints of the old ones go.
        if let Some(cp) = &self.ctx.checkpoints {
            cp.forget_from(n);
        }
        self.log(|t| {
            t.event(&rein_transcript::TranscriptEvent::CompactBoundary { trigger: "rewind".into(), pre_tokens: 0 })?;
            kept.iter().try_for_each(|m| t.message(m))
        });
        Ok(())
    }

    /// Go back to before the `n`th prompt: the files the file tools changed since (when
    /// `files`), the conversation (when `conversation`). A file changed outside rein
    /// since its checkpoint stops the rewind unless `force` (the person said yes).
    /// The rewind is recorded in the transcript. Returns the files restored.
    pub fn rewind(
        &mut self,
        n: usize,
        files: bool,
        conversation: bool,
        force: bool,
    ) -> Result<Vec<std::path::PathBuf>, crate::RewindFailed> {
        let mut restored = Vec::new();
        if files {
            let Some(cp) = &self.ctx.checkpoints else {
                return Err(crate::RewindFailed::Files(rein_tools::RewindError::Store(
                    "no checkpoints in this session".into(),
                )));
            };
            restored = cp.rewind(n, force).map_err(crate::RewindFailed::Files)?;
        }
        if conversation {
            self.rewind_to(n).map_err(crate::RewindFailed::Conversation)?;
        }
        let event = rein_transcript::TranscriptEvent::Rewind {
            to_prompt: n,
            files: restored.iter().map(|p| p.display().to_string()).collect(),
            conversation,
        };
        self.log(|t| t.event(&event));
        Ok(restored)
    }

    /// Each file the session changed and what it held before (`/diff`).
    pub fn first_versions(&self) -> Vec<(std::path::PathBuf, Option<Vec<u8>>)> {
        self.ctx.checkpoints.as_ref().map(|cp| cp.first_versions()).unwrap_or_default()
    }

    /// The prompt (its position, as [`rewind`](Self::rewind) takes it) a message id
    /// names: a transcript uuid, or the uuid an Agent SDK gave its user line.
    pub fn prompt_of(&self, id: &str) -> Option<usize> {
        self.ctx.checkpoints.as_ref()?.turn_of(id)
    }

    /// `model` as the session would use it (an alias resolved).
    pub fn resolve_model(&self, model: &str) -> String {
        self.config.aliases.resolve(model)
    }

    /// `/model NAME`: the model for the turns that follow.
    pub fn set_model(&mut self, model: &str) {
        self.config.model = self.config.aliases.resolve(model);
    }

    /// `/effort LEVEL`: the reasoning effort for the turns that follow (`None`: the
    /// model's default).
    pub fn set_effort(&mut self, effort: Option<rein_model::Effort>) {
        self.config.thinking.effort = effort;
    }

    /// The reasoning effort asked for, if any.
    pub fn effort(&self) -> Option<rein_model::Effort> {
        self.config.thinking.effort
    }

    /// Every tool the session has now, MCP servers' that connected since the last turn
    /// included (`/mcp`).
    pub fn available_tool_names(&self) -> Vec<String> {
        self.registry.names()
    }

    /// The session's background commands (`/tasks`).
    pub fn session_shell(&self) -> Option<Arc<dyn rein_tools::SessionShell>> {
        self.registry.session_shell()
    }

    /// The session's hooks, if it has any.
    pub fn hooks(&self) -> Option<Arc<rein_hooks::Hooks>> {
        self.gate.hooks.clone()
    }
}
