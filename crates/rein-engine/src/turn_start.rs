//! What starting a turn records besides the prompt itself: the judge's view of the
//! user's requests, the checkpoint turn (with the ids the prompt is known by), and a
//! note of the permission mode when it changed since the model was last told (Shift+Tab,
//! `/plan`, an SDK's `set_permission_mode`, an approved plan): the system prompt only
//! says the mode the session started in. Tool results and Stop-hook continuations carry
//! the note too when the change came during a turn.

use rein_policy::PermissionMode;
use rein_protocol::{ContentBlock, Message};

use crate::{Engine, EngineError};

/// What the model is told when the mode changed to `mode`.
pub(crate) fn mode_note(mode: PermissionMode) -> String {
    let what = match mode {
        PermissionMode::Plan => {
            "only read and plan: change nothing (no edits, no commands that change anything). When the plan is \
             ready, present it with ExitPlanMode (input: {\"plan\": \"...\"}) for the user to approve"
        }
        PermissionMode::Default => "calls that change things may ask the user first",
        PermissionMode::AcceptEdits => "file edits in the working directory run without asking; other calls may ask",
        PermissionMode::Auto => "calls the rules leave open are judged by a classifier instead of asking the user",
        PermissionMode::DontAsk => "calls no rule allows are refused without asking",
        PermissionMode::BypassPermissions => "calls run without asking",
    };
    format!("<system-reminder>\nThe permission mode is now {}: {what}.\n</system-reminder>", mode.name())
}

/// A prompt's words as the person wrote them: rein's notes to the model left out.
/// What a prompt with the word `ultracode` adds.
const WORKFLOW_NOTE: &str = "<system-reminder>\nThe person wrote ultracode: do this task as a workflow. Load the \
    Workflow tool (ToolSearch, select:Workflow), write a script that splits the work over agents, run it, and report \
    its result.\n</system-reminder>";

/// Whether `words` has `ultracode` as a word of its own.
fn asks_for_workflow(words: &str) -> bool {
    words.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w.eq_ignore_ascii_case("ultracode"))
}

pub(crate) fn prompt_words(m: &Message) -> String {
    let words = m.content.iter().filter_map(|b| match b {
        ContentBlock::Text { text } if !text.starts_with("<system-reminder>") => Some(text.as_str()),
        _ => None,
    });
    words.collect()
}

impl Engine {
    /// Add what the model was not told of yet to `message` (a prompt, the results of a
    /// turn's calls, a Stop hook's continuation): a mode change made during a turn
    /// (Shift+Tab, "accept edits" in a dialog, an approved plan), and background agents
    /// that ended, reach the model with the next message it gets, not a turn later.
    pub(crate) fn note_news(&mut self, message: &mut Message) {
        let mode = self.gate.policy.get().mode;
        if self.told_mode != Some(mode) && self.subagent.is_none() {
            message.content.push(ContentBlock::text(mode_note(mode)));
            self.told_mode = Some(mode);
        }
        self.note_ended_agents(message);
    }

    /// Add what background agents that ended since the model was last told reported.
    fn note_ended_agents(&mut self, message: &mut Message) {
        if self.subagent.is_some() {
            return;
        }
        if let Some(notice) = self.registry.session_shell().and_then(|s| s.agents().take_notice()) {
            message.content.push(ContentBlock::text(notice));
        }
    }

    /// Push the turn's prompt, noting it for the auto-mode judge and starting its
    /// checkpoint turn (a subagent's writes belong to the turn that started it).
    pub(crate) fn push_prompt(&mut self, mut prompt: Message) -> Result<(), EngineError> {
        // Only the person's own words are their request: not rein's notes (a background
        // agent's report comes as one), and not a subagent's task (the model wrote it).
        let words = prompt_words(&prompt);
        if self.subagent.is_none() && !words.trim().is_empty() {
            self.gate.judge_context.note_request(&words);
        }
        self.note_news(&mut prompt);
        if self.config.workflow_keyword && self.subagent.is_none() && asks_for_workflow(&words) {
            prompt.content.push(ContentBlock::text(WORKFLOW_NOTE));
        }
        let turn = self.conversation.messages().filter(|m| is_prompt(m)).count();
        self.push_user(prompt, false)?;
        if let Some(cp) = self.ctx.checkpoints.as_ref().filter(|_| self.subagent.is_none()) {
            let mut ids = std::mem::take(&mut self.prompt_ids);
            ids.extend(self.transcript.last_uuid());
            cp.begin_turn(turn, &ids);
        }
        Ok(())
    }
}

/// A message the person wrote (not tool results).
pub(crate) fn is_prompt(m: &rein_protocol::Message) -> bool {
    m.role == rein_protocol::Role::User
        && m.content.iter().any(|b| matches!(b, rein_protocol::ContentBlock::Text { .. }))
        && !m.content.iter().any(|b| matches!(b, rein_protocol::ContentBlock::ToolResult { .. }))
}
