//! The session's background subagents (the Agent tool's `run_in_background`): each one's
//! id, name and task, whether it still runs, and its report once it ends. TaskOutput
//! reads and TaskStop stops them as they do background commands; `/tasks` lists them;
//! the parent model is told of each one that ended with the next message it gets.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

/// How a background agent stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentState {
    Running,
    /// Ended with this report.
    Done(String),
    /// Ended without a report: what went wrong.
    Failed(String),
    /// Stopped by TaskStop or `/tasks stop`.
    Stopped,
}

impl AgentState {
    pub fn describe(&self) -> &'static str {
        match self {
            AgentState::Running => "running",
            AgentState::Done(_) => "completed",
            AgentState::Failed(_) => "failed",
            AgentState::Stopped => "stopped",
        }
    }
}

/// One background agent, as TaskOutput, `/tasks` and the end-of-run notice see it.
#[derive(Debug, Clone)]
pub struct AgentInfo {
    pub id: String,
    /// The call's `name`, else its subagent type.
    pub name: String,
    /// The call's `description` (3-5 words).
    pub description: String,
    pub state: AgentState,
    pub age: Duration,
}

struct Entry {
    info: AgentInfo,
    started: Instant,
    abort: CancellationToken,
    /// The parent model has been told how it ended.
    told: bool,
}

/// How many background agents may run at once unless the session says otherwise.
pub(crate) const DEFAULT_LIMIT: usize = 8;

/// The session's background agents, shared by every clone (the Agent tool, TaskOutput,
/// TaskStop, the engine, a frontend).
#[derive(Clone)]
pub struct BackgroundAgents {
    entries: Arc<Mutex<Vec<Entry>>>,
    /// How many may run at once.
    limit: Arc<std::sync::atomic::AtomicUsize>,
    /// Wakes whoever waits for an agent's end.
    ended: Arc<tokio::sync::Notify>,
}

impl Default for BackgroundAgents {
    fn default() -> Self {
        BackgroundAgents {
            entries: Arc::default(),
            limit: Arc::new(std::sync::atomic::AtomicUsize::new(DEFAULT_LIMIT)),
            ended: Arc::default(),
        }
    }
}

impl std::fmt::Debug for BackgroundAgents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundAgents").field("count", &self.lock().len()).finish()
    }
}

impl BackgroundAgents {
    fn lock(&self) -> MutexGuard<'_, Vec<Entry>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// How many may run at once (`REIN_MAX_BACKGROUND_AGENTS`).
    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, std::sync::atomic::Ordering::Relaxed);
    }

    /// Note a new agent as running (`abort` stops it), unless as many as the limit run
    /// already: then why not.
    pub fn start(&self, id: &str, name: &str, description: &str, abort: CancellationToken) -> Result<(), AtLimit> {
        let limit = self.limit.load(std::sync::atomic::Ordering::Relaxed);
        let mut all = self.lock();
        let running = all.iter().filter(|e| e.info.state == AgentState::Running).count();
        if running >= limit {
            return Err(AtLimit(running));
        }
        let info = AgentInfo {
            id: id.to_string(),
            name: name.to_string(),
            description: description.to_string(),
            state: AgentState::Running,
            age: Duration::ZERO,
        };
        all.push(Entry { info, started: Instant::now(), abort, told: false });
        Ok(())
    }

    /// The agent `id` ended as `state` (a stopped agent stays stopped).
    pub fn finish(&self, id: &str, state: AgentState) {
        if let Some(e) = self.lock().iter_mut().find(|e| e.info.id == id)
            && e.info.state == AgentState::Running
        {
            e.info.state = state;
        }
        self.ended.notify_one();
    }

    /// Resolves once an agent has ended since the last time it resolved (an end that
    /// came while nobody waited is not lost).
    pub async fn ended(&self) {
        self.ended.notified().await;
    }

    /// Stop the agent `id`; how it stands after, or `None` for an unknown id.
    pub fn stop(&self, id: &str) -> Option<AgentState> {
        let mut all = self.lock();
        let e = all.iter_mut().find(|e| e.info.id == id)?;
        if e.info.state == AgentState::Running {
            e.abort.cancel();
            e.info.state = AgentState::Stopped;
        }
        Some(e.info.state.clone())
    }

    /// The agent `id` now, or `None` for an unknown id.
    pub fn get(&self, id: &str) -> Option<AgentInfo> {
        self.lock().iter().find(|e| e.info.id == id).map(Entry::snapshot)
    }

    /// Every agent of the session, oldest first.
    pub fn list(&self) -> Vec<AgentInfo> {
        self.lock().iter().map(Entry::snapshot).collect()
    }

    pub fn ids(&self) -> Vec<String> {
        self.lock().iter().map(|e| e.info.id.clone()).collect()
    }

    /// The agents that ended since the model was last told, now marked as told (an
    /// agent whose report TaskOutput already returned counts as told).
    pub fn take_ended(&self) -> Vec<AgentInfo> {
        let mut all = self.lock();
        let ended = all.iter_mut().filter(|e| !e.told && e.info.state != AgentState::Running);
        ended
            .map(|e| {
                e.told = true;
                e.snapshot()
            })
            .collect()
    }

    /// The notice of the agents that ended since the model was last told, now told.
    pub fn take_notice(&self) -> Option<String> {
        ended_notice(&self.take_ended())
    }

    /// Mark `id` as told (its report was read).
    pub fn mark_told(&self, id: &str) {
        if let Some(e) = self.lock().iter_mut().find(|e| e.info.id == id && e.info.state != AgentState::Running) {
            e.told = true;
        }
    }

    /// Stop every agent still running (the session ends).
    pub fn stop_all(&self) {
        for e in self.lock().iter_mut().filter(|e| e.info.state == AgentState::Running) {
            e.abort.cancel();
            e.info.state = AgentState::Stopped;
        }
    }
}

impl Entry {
    fn snapshot(&self) -> AgentInfo {
        AgentInfo { age: self.started.elapsed(), ..self.info.clone() }
    }
}

/// How much of each report the notice of an agent's end carries (TaskOutput reads it
/// whole).
const REPORT_CHARS: usize = 20_000;

/// What the parent model is told of agents that ended: one reminder, each agent's
/// report (at most [`REPORT_CHARS`] characters of each).
pub fn ended_notice(ended: &[AgentInfo]) -> Option<String> {
    if ended.is_empty() {
        return None;
    }
    let mut text = String::from("<system-reminder>\n");
    for a in ended {
        let (how, report) = match &a.state {
            AgentState::Done(r) => ("finished", r.as_str()),
            AgentState::Failed(why) => ("failed", why.as_str()),
            AgentState::Stopped => ("was stopped", ""),
            AgentState::Running => continue,
        };
        // A workflow's run (its id `wf_…`) is told as one.
        let what = if a.id.starts_with("wf_") { "workflow" } else { "agent" };
        text.push_str(&format!("The background {what} {} ({}: {}) {how}.", a.id, a.name, a.description));
        if !report.is_empty() {
            let cut: String = report.chars().take(REPORT_CHARS).collect();
            let more = if cut.len() < report.len() { "\n[report cut; TaskOutput reads it whole]" } else { "" };
            text.push_str(&format!(" Its report:\n{cut}{more}"));
        }
        text.push('\n');
    }
    text.push_str("</system-reminder>");
    Some(text)
}

/// As many background agents run as the session allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "{0} background agents run already, as many as this session allows (REIN_MAX_BACKGROUND_AGENTS); wait for one \
     (TaskOutput) or stop one (TaskStop) first"
)]
pub struct AtLimit(pub usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ended_agent_is_told_once_and_a_stopped_one_stays_stopped() {
        let agents = BackgroundAgents::default();
        let token = CancellationToken::new();
        agents.set_limit(1);
        assert!(agents.start("agent-1", "scout", "look around", token.clone()).is_ok());
        assert!(agents.start("agent-9", "x", "y", token.clone()).is_err(), "the limit holds");
        assert!(agents.take_ended().is_empty(), "a running agent is not reported");
        agents.finish("agent-1", AgentState::Done("all quiet".into()));
        let ended = agents.take_ended();
        assert_eq!(ended.len(), 1);
        let notice = ended_notice(&ended).unwrap_or_default();
        assert!(notice.contains("agent-1 (scout: look around) finished") && notice.contains("all quiet"), "{notice}");
        assert!(agents.take_ended().is_empty(), "told once");

        assert!(agents.start("agent-2", "b", "d", token.clone()).is_ok(), "room again once one ended");
        assert_eq!(agents.stop("agent-2"), Some(AgentState::Stopped));
        assert!(token.is_cancelled());
        agents.finish("agent-2", AgentState::Done("late".into()));
        assert_eq!(agents.get("agent-2").map(|a| a.state), Some(AgentState::Stopped));
        assert_eq!(agents.stop("nope"), None);
    }
}
