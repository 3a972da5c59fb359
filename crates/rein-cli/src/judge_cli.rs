//! `rein permissions check --auto`: how the auto-mode judge would decide a call the
//! rules would ask about — the same judge, rubric and model as a session's.

use std::sync::Arc;
use std::time::Duration;

use rein_engine::{Judge, JudgeRequest, JudgeVerdict};
use rein_policy::{Behavior, Decision, Effects};
use rein_protocol::ToolUse;

use crate::args::Args;

pub(crate) struct Judging {
    judge: rein_judge::ModelJudge,
    runtime: tokio::runtime::Runtime,
}

impl Judging {
    pub(crate) fn new(args: &Args) -> anyhow::Result<Judging> {
        let provider = crate::provider::Provider::choose(args.provider, None, &[])?;
        let model: Arc<dyn rein_model::Model> = provider.client(None)?;
        let name = match provider {
            crate::provider::Provider::Anthropic => crate::env::Env::small_fast_model(),
            _ => crate::env::Env::lookup("ANTHROPIC_SMALL_FAST_MODEL").unwrap_or_else(|| {
                crate::session::resolve_model(&crate::env::Env::read(), args.model.as_deref(), None)
            }),
        };
        let timeout = Duration::from_millis(crate::env::Env::read().judge_timeout_ms.unwrap_or(15_000));
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        Ok(Judging { judge: rein_judge::ModelJudge::new(model, name, timeout), runtime })
    }

    /// Print what auto mode does with `call`.
    pub(crate) fn explain(&self, call: &ToolUse, effects: &Effects, decision: &Decision, roots: &[std::path::PathBuf]) {
        if decision.behavior != Behavior::Ask {
            println!("  auto mode: not judged (the rules decide: {})", decision.behavior.name());
            return;
        }
        if decision.explicit || effects.read_only {
            let why = if decision.explicit { "an ask rule or a protected path" } else { "a read-only call" };
            println!("  auto mode: not judged ({why}: the person is asked)");
            return;
        }
        let request = JudgeRequest { call, effects, decision, roots, context: Vec::new() };
        let j = self.runtime.block_on(self.judge.judge(request));
        let verdict = match j.verdict {
            JudgeVerdict::Allow => "allow",
            JudgeVerdict::Block => "block",
            JudgeVerdict::Failed => "failed (the person would be asked; headless: denied)",
        };
        println!(
            "  auto mode: the judge ({}) says {verdict}: {} ({} ms, {} + {} tokens, ${:.6})",
            j.model,
            j.reason,
            j.latency.as_millis(),
            j.usage.input_tokens,
            j.usage.output_tokens,
            j.cost_usd
        );
    }
}
