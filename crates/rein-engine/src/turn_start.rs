//! What starting a turn records besides the prompt itself: the judge's view of the
//! user's requests and the checkpoint turn (with the ids the prompt is known by).

use rein_protocol::Message;

use crate::{Engine, EngineError};

impl Engine {
    /// Push the turn's prompt, noting it for the auto-mode judge and starting its
    /// checkpoint turn (a subagent's writes belong to the turn that started it).
    pub(crate) fn push_prompt(&mut self, prompt: Message) -> Result<(), EngineError> {
        self.gate.judge_context.note_request(&prompt.text());
        let turn = self.conversation.messages().filter(|m| crate::direct::is_prompt(m)).count();
        self.push_user(prompt, false)?;
        if let Some(cp) = self.ctx.checkpoints.as_ref().filter(|_| self.subagent.is_none()) {
            let mut ids = std::mem::take(&mut self.prompt_ids);
            ids.extend(self.transcript.last_uuid());
            cp.begin_turn(turn, &ids);
        }
        Ok(())
    }
}
