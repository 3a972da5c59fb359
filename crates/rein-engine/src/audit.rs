//! The audit trail: every permission decision goes to the debug log (target
//! `rein::audit`), including calls stopped before later stages ran. (The transcript
//! records them too once sessions are persisted.)

use rein_protocol::ToolUse;

use crate::gate::Verdict;

pub(crate) fn record(call: &ToolUse, verdict: &Verdict) {
    tracing::info!(
        target: "rein::audit",
        tool = %call.name,
        tool_use_id = %call.id,
        input = %call.input,
        decision = verdict.decision.behavior.name(),
        asked = verdict.asked,
        source = %verdict.decision.source,
        // Where an allowed command runs: as the person's setup says, or in the jail
        // rein's own judgement is held to ("tried first" in the source: it already ran
        // in the copy-on-write jail).
        runs_in = verdict.decision.grant.name(),
        reason = %verdict.decision.reason,
        "permission decision"
    );
}
