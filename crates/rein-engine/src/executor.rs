//! The streaming executor. Tool calls are handed over as their `content_block_stop`
//! arrives, while the model is still streaming, and start as soon as the batching rules
//! allow: consecutive concurrency-safe calls run together (up to a cap); an unsafe call
//! runs alone and holds the queue behind it. Results come back in call order. When a
//! shell call of a concurrent batch fails, its running siblings are cancelled; on an
//! interrupt every unanswered call gets an "Interrupted by user" result; after a broken
//! stream, calls started from it are cancelled and their results discarded.

use std::sync::Arc;
use std::time::Duration;

use rein_protocol::ContentBlock;
use rein_protocol::{INTERRUPTED, ToolUse};
use rein_tools::{AgentStep, PreparedCall, Registry, StepSink, ToolContext};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::chain::{self, CallReport, Checked};
use crate::{EngineEvent, Gate};

/// How long cancelled calls get to clean up (kill their process groups) before their
/// tasks are dropped.
const CANCEL_GRACE: Duration = Duration::from_secs(3);

struct Entry {
    call: ToolUse,
    /// The call through the schema stage (parsed once, at submit).
    prepared: Option<Box<dyn PreparedCall>>,
    /// The call with its effects, worked out when it reaches the head of the queue —
    /// after every call before it that could change the session (a `cd`) has finished —
    /// and handed to the chain.
    checked: Option<Checked>,
    /// Whether it may run beside other concurrency-safe calls; known at the head.
    safe: Option<bool>,
    started: bool,
    cancel: CancellationToken,
    handle: Option<JoinHandle<()>>,
    report: Option<CallReport>,
}

pub(crate) struct Executor {
    registry: Arc<Registry>,
    gate: Gate,
    ctx: ToolContext,
    cap: usize,
    entries: Vec<Entry>,
    tx: mpsc::UnboundedSender<(usize, CallReport)>,
    rx: mpsc::UnboundedReceiver<(usize, CallReport)>,
    /// The steps of agents working inside running calls, passed on as they come.
    steps_tx: mpsc::UnboundedSender<(String, AgentStep)>,
    steps_rx: mpsc::UnboundedReceiver<(String, AgentStep)>,
}

impl Executor {
    pub(crate) fn new(registry: Arc<Registry>, gate: Gate, ctx: ToolContext, cap: usize) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let (steps_tx, steps_rx) = mpsc::unbounded_channel();
        Executor { registry, gate, ctx, cap: cap.max(1), entries: Vec::new(), tx, rx, steps_tx, steps_rx }
    }

    /// Accept a complete `tool_use` (once per id) and start what may start.
    pub(crate) fn submit(&mut self, mut call: ToolUse, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        if self.entries.iter().any(|e| e.call.id == call.id) {
            return;
        }
        if let Some(input) = self.registry.expand_paths(&call.name, &call.input, &self.ctx) {
            call.input = input;
        }
        let prepared = self.registry.prepare(&call.name, &call.input).ok();
        self.entries.push(Entry {
            call,
            prepared,
            checked: None,
            safe: None,
            started: false,
            cancel: CancellationToken::new(),
            handle: None,
            report: None,
        });
        self.schedule(sink);
    }

    fn running(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.started && e.report.is_none())
    }

    /// Safety is a property of the call: its effects, in the session as it is now,
    /// decide. Bad input is unsafe.
    fn assess(&mut self, i: usize) -> bool {
        let entry = &mut self.entries[i];
        if let Some(safe) = entry.safe {
            return safe;
        }
        let checked = entry.prepared.take().map(|prepared| {
            let effects = prepared.effects(&self.ctx);
            Checked { prepared, effects }
        });
        let safe = checked.as_ref().is_some_and(|c| c.effects.concurrency_safe);
        entry.checked = checked;
        entry.safe = Some(safe);
        safe
    }

    /// Start queued calls, in order, while the rules allow.
    /// The next call is judged only when no unsafe call is running: an unsafe call
    /// (a `cd`, say) may change what the next one touches.
    fn schedule(&mut self, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        while let Some(i) = self.entries.iter().position(|e| !e.started) {
            let running: Vec<bool> = self.running().map(|e| e.safe == Some(true)).collect();
            if running.iter().any(|safe| !safe) {
                return;
            }
            let may = if self.assess(i) { running.len() < self.cap } else { running.is_empty() };
            if !may {
                return;
            }
            self.start(i, sink);
        }
    }

    fn start(&mut self, i: usize, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        let token = self.ctx.abort.child_token();
        let mut ctx = self.ctx.clone();
        ctx.abort = token.clone();
        ctx.steps = Some(StepSink::new(self.entries[i].call.id.clone(), self.steps_tx.clone()));
        let (registry, gate, tx) = (self.registry.clone(), self.gate.clone(), self.tx.clone());
        let entry = &mut self.entries[i];
        sink(EngineEvent::ToolStarted(entry.call.clone()));
        let call = entry.call.clone();
        let checked = entry.checked.take();
        entry.started = true;
        entry.cancel = token;
        entry.handle = Some(tokio::spawn(async move {
            let report = chain::run_call(&registry, &gate, &call, &ctx, checked).await;
            let _ = tx.send((i, report));
        }));
    }

    /// Wait for the next call to finish and start what may follow. Never resolves when
    /// nothing is running (so it can sit in a `select!` beside the model stream).
    pub(crate) async fn progress(&mut self, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        if self.running().next().is_none() {
            return std::future::pending().await;
        }
        loop {
            tokio::select! {
                biased;
                Some((parent, step)) = self.steps_rx.recv() => sink(EngineEvent::AgentStep { parent, step }),
                report = self.rx.recv() => {
                    if let Some((i, report)) = report {
                        self.complete(i, report, sink).await;
                    }
                    return;
                }
            }
        }
    }

    async fn complete(&mut self, i: usize, report: CallReport, sink: &mut (dyn FnMut(EngineEvent) + Send)) {
        if self.entries[i].report.is_some() {
            return;
        }
        sink(EngineEvent::ToolDone { id: self.entries[i].call.id.clone() });
        let failed_shell = report.ran_shell
            && self.entries[i].safe == Some(true)
            && matches!(report.result, ContentBlock::ToolResult { is_error: true, .. })
            && report.verdict.as_ref().is_some_and(|v| v.allowed());
        self.entries[i].report = Some(report);
        if failed_shell {
            let failed = &self.entries[i].call;
            let why = format!(
                "Cancelled: the parallel {} call {} failed, so this call was stopped. Run it again if it is still needed.",
                failed.name, failed.id
            );
            let siblings: Vec<usize> = (0..self.entries.len())
                .filter(|j| self.entries[*j].started && self.entries[*j].report.is_none())
                .collect();
            self.cancel(&siblings, &why).await;
        }
        self.schedule(sink);
    }

    /// Cancel calls and answer them with `message`, after their cleanup (or a grace period).
    async fn cancel(&mut self, which: &[usize], message: &str) {
        for &j in which {
            self.entries[j].cancel.cancel();
        }
        let deadline = tokio::time::Instant::now() + CANCEL_GRACE;
        let mut waiting: Vec<usize> = which.to_vec();
        while !waiting.is_empty() {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some((k, report))) => {
                    waiting.retain(|w| *w != k);
                    // A call the person refused as the turn stopped keeps its refusal:
                    // it never ran, and the model should read why.
                    if report.verdict.as_ref().is_some_and(|v| !v.allowed()) && !report.ran_shell {
                        self.entries[k].report = Some(report);
                    }
                }
                _ => break,
            }
        }
        for &j in which {
            if let Some(h) = self.entries[j].handle.take() {
                h.abort();
            }
            if self.entries[j].report.is_some() {
                continue;
            }
            let id = self.entries[j].call.id.clone();
            self.entries[j].report = Some(CallReport::synthetic(&id, message));
        }
    }

    /// Wait for every call; if `abort` fires first, interrupt. Reports in call order.
    pub(crate) async fn finish(
        &mut self,
        abort: &CancellationToken,
        sink: &mut (dyn FnMut(EngineEvent) + Send),
    ) -> (Vec<CallReport>, bool) {
        loop {
            if abort.is_cancelled() {
                return (self.interrupt().await, true);
            }
            self.schedule(sink);
            if self.entries.iter().all(|e| e.report.is_some()) {
                return (self.take(), false);
            }
            tokio::select! {
                biased;
                _ = abort.cancelled() => return (self.interrupt().await, true),
                _ = self.progress(sink) => {}
            }
        }
    }

    /// Stop everything: running calls are cancelled, and every call without a result is
    /// answered "Interrupted by user". Reports in call order.
    pub(crate) async fn interrupt(&mut self) -> Vec<CallReport> {
        let running: Vec<usize> =
            (0..self.entries.len()).filter(|j| self.entries[*j].started && self.entries[*j].report.is_none()).collect();
        self.cancel(&running, INTERRUPTED).await;
        for e in self.entries.iter_mut().filter(|e| e.report.is_none()) {
            e.report = Some(CallReport::synthetic(&e.call.id, INTERRUPTED));
        }
        self.take()
    }

    /// After a broken stream: cancel what was started from it and forget every result.
    pub(crate) async fn discard(&mut self) {
        let _ = self.interrupt().await;
    }

    fn take(&mut self) -> Vec<CallReport> {
        self.entries.drain(..).filter_map(|e| e.report).collect()
    }
}
