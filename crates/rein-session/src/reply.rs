//! The owner's typed answers to [`Command`](crate::Command)s, and their one wording for
//! a person ([`Reply::lines`]): the terminal shows these lines, an SDK program gets the
//! same facts as fields.

use std::path::PathBuf;

use serde::Serialize;

/// The answer to a command.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "reply", rename_all = "snake_case")]
pub enum Reply {
    /// The model the next turn uses.
    Model {
        model: String,
    },
    /// The permission mode now.
    Mode {
        mode: &'static str,
    },
    /// The reasoning effort now (`None`: the model's default); `changed` when the
    /// command set it.
    Effort {
        level: Option<String>,
        changed: bool,
    },
    Renamed {
        title: String,
    },
    /// The conversation was written to this file.
    Exported {
        to: PathBuf,
    },
    /// The conversation as Markdown (an export without a file: the clipboard's).
    Markdown {
        text: String,
    },
    /// The conversation was summarised (the Compacted event told the sizes).
    Compacted,
    Context(ContextUsage),
    Mcp {
        servers: Vec<McpServerState>,
    },
    Reconnected {
        server: String,
    },
    /// An MCP server turned on or off for this session.
    Toggled {
        server: String,
        enabled: bool,
    },
    /// Went back to before prompt `prompt`; the files restored.
    Rewound {
        prompt: usize,
        files: bool,
        conversation: bool,
        restored: Vec<PathBuf>,
    },
    Prompts {
        prompts: Vec<String>,
    },
    /// The answer to a side question (not part of the conversation).
    SideAnswer {
        answer: String,
    },
    /// What the session changed, file by file.
    Diff {
        files: Vec<FileChange>,
    },
    /// A new session began with this id.
    Cleared {
        session_id: String,
    },
    /// The conversation goes on as session `session_id`, a copy of `from`.
    Branched {
        session_id: String,
        from: String,
    },
    /// The folder is a working directory now; what DirectoryAdded hooks said.
    DirectoryAdded {
        path: PathBuf,
        notices: Vec<String>,
    },
    Commands {
        commands: Vec<crate::slash::CommandInfo>,
    },
    Models {
        models: Vec<ModelOffer>,
    },
    /// The running turn was told to stop.
    Interrupted,
}

/// How full the context window is, in estimated tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ContextUsage {
    pub model: String,
    pub used: u64,
    pub window: u64,
    /// Where automatic compaction starts.
    pub compact_at: u64,
    /// What fills it: the system prompt and memory, the tool definitions, the messages.
    pub categories: Vec<Category>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Category {
    pub name: &'static str,
    pub tokens: u64,
}

impl ContextUsage {
    pub(crate) fn new(model: &str, used: u64, window: u64, compact_at: u64, parts: [(&'static str, u64); 3]) -> Self {
        ContextUsage {
            model: model.to_string(),
            used,
            window,
            compact_at,
            categories: parts.iter().map(|&(name, tokens)| Category { name, tokens }).collect(),
        }
    }

    /// `used` as a share of the window, in percent.
    pub fn percent(&self) -> f64 {
        self.used as f64 * 100.0 / self.window.max(1) as f64
    }
}

/// One MCP server as the session sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpServerState {
    pub name: String,
    /// `connected`, `failed`, `pending`, `disabled`, `needs-auth`.
    pub status: &'static str,
    /// Where it is configured (`project`, `user`, `local`, …).
    pub scope: &'static str,
    pub error: Option<String>,
    /// Its tools, by their own names.
    pub tools: Vec<String>,
}

/// A model the session offers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelOffer {
    /// What to ask for (an alias).
    pub alias: &'static str,
    /// The model id it stands for here.
    pub id: String,
}

/// The servers' states, each with the tools of `tools` that are its own.
pub(crate) fn mcp_states(servers: Option<&rein_mcp::Servers>, tools: &[String]) -> Vec<McpServerState> {
    let Some(servers) = servers else { return Vec::new() };
    servers
        .statuses()
        .into_iter()
        .map(|s| {
            let prefix = format!("mcp__{}__", s.name);
            McpServerState {
                tools: tools.iter().filter_map(|t| t.strip_prefix(&prefix)).map(str::to_string).collect(),
                scope: s.source.name(),
                status: s.status,
                error: s.error,
                name: s.name,
            }
        })
        .collect()
}

impl Reply {
    /// What the reply says to a person, line by line.
    pub fn lines(&self) -> Vec<String> {
        match self {
            Reply::Model { model } => vec![format!("The model is now {model}")],
            Reply::Mode { mode: "plan" } => {
                vec!["Plan mode: rein reads and plans; it changes nothing until you approve its plan".into()]
            }
            Reply::Mode { mode } => vec![format!("Permission mode: {mode}")],
            Reply::Effort { level, changed: false } => vec![format!(
                "Effort: {} (/effort low|medium|high|xhigh|max|auto changes it)",
                level.as_deref().unwrap_or("the model's default")
            )],
            Reply::Effort { level: None, changed: true } => vec!["Effort set to the model's default".into()],
            Reply::Effort { level: Some(l), changed: true } => {
                vec![format!("Effort set to {l} for the turns that follow")]
            }
            Reply::Renamed { title } => vec![format!("Session renamed to {title:?}")],
            Reply::Exported { to } => vec![format!("Exported the conversation to {}", to.display())],
            Reply::Markdown { text } => text.lines().map(str::to_string).collect(),
            Reply::Compacted => Vec::new(),
            Reply::Context(usage) => context_lines(usage),
            Reply::Mcp { servers } if servers.is_empty() => {
                vec!["No MCP servers are configured (.mcp.json, ~/.claude.json, --mcp-config)".into()]
            }
            Reply::Mcp { servers } => mcp_lines(servers),
            Reply::Reconnected { server } => vec![format!("Reconnected {server}")],
            Reply::Toggled { server, enabled: true } => vec![format!("{server} is on again; its tools return")],
            Reply::Toggled { server, enabled: false } => {
                vec![format!("{server} is off for this session; its tools are withdrawn (`/mcp enable {server}`)")]
            }
            Reply::Rewound { prompt, files, conversation, restored } => {
                let what = match (files, conversation) {
                    (true, true) => "the code and the conversation",
                    (false, _) => "the conversation",
                    (true, false) => "the code",
                };
                let mut lines = vec![format!("Went back to before prompt {}: {what}", prompt + 1)];
                lines.extend(restored.iter().map(|p| format!("  restored {}", p.display())));
                lines
            }
            Reply::Prompts { prompts } => {
                prompts.iter().enumerate().map(|(i, p)| format!("{:>3}. {p}", i + 1)).collect()
            }
            Reply::Cleared { .. } => vec!["Started a new session".into()],
            Reply::Diff { files } => diff_lines(files),
            Reply::SideAnswer { answer } => {
                let mut lines = vec!["On the side (not part of the conversation):".to_string()];
                lines.extend(answer.lines().map(str::to_string));
                lines
            }
            Reply::Branched { session_id, from } => vec![
                format!("Branched: the conversation goes on as session {session_id}"),
                format!("The original stays as it was: `rein -r {from}` resumes it"),
            ],
            Reply::DirectoryAdded { path, notices } => {
                let mut lines = vec![format!("Added {} as a working directory for this session", path.display())];
                lines.extend(notices.iter().cloned());
                lines
            }
            Reply::Commands { commands } => {
                commands.iter().map(|c| format!("  /{:<13} {}", c.name, c.description)).collect()
            }
            Reply::Models { models } => models.iter().map(|m| format!("  {:<8} {}", m.alias, m.id)).collect(),
            Reply::Interrupted => vec!["Interrupted".into()],
        }
    }
}

/// `/context`: a bar, where compaction starts, and what fills the window.
fn context_lines(u: &ContextUsage) -> Vec<String> {
    let width = 40usize;
    let filled = ((u.used as f64 / u.window.max(1) as f64) * width as f64).round() as usize;
    let bar: String = (0..width).map(|i| if i < filled.min(width) { '█' } else { '░' }).collect();
    let share = |tokens: u64| tokens as f64 * 100.0 / u.window.max(1) as f64;
    let mut lines = vec![
        format!("{bar} {} / {} tokens ({:.0}%)", u.used, u.window, u.percent()),
        format!("Compaction starts at {} tokens ({} left)", u.compact_at, u.compact_at.saturating_sub(u.used)),
    ];
    for c in &u.categories {
        lines.push(format!("  {:<26} {:>8} tokens ({:.1}%)", c.name, c.tokens, share(c.tokens)));
    }
    let free = u.window.saturating_sub(u.used);
    lines.push(format!("  {:<26} {free:>8} tokens ({:.1}%)", "Free", share(free)));
    lines
}

/// `/mcp`: each server, its state, why it failed, its tools.
fn mcp_lines(servers: &[McpServerState]) -> Vec<String> {
    let mut out = Vec::new();
    for s in servers {
        let mark = match s.status {
            "connected" => "✔",
            "pending" => "…",
            "disabled" => "○",
            "needs-auth" => "⚠",
            _ => "✘",
        };
        out.push(format!("{mark} {} · {} · {} · {} tools", s.name, s.status, s.scope, s.tools.len()));
        if let Some(error) = &s.error {
            out.push(format!("    {error}"));
        }
        if !s.tools.is_empty() {
            out.push(format!("    {}", s.tools.join(", ")));
        }
    }
    out.push("/mcp reconnect NAME starts a server again · /mcp authenticate NAME signs in to one that needs it".into());
    out
}
/// A server that cannot be turned on or off, as the command's error.
pub(crate) fn toggle_error(e: rein_mcp::ServerError) -> crate::CommandError {
    match e {
        rein_mcp::ServerError::NotFound(name) => crate::CommandError::NoServer(name),
        other => crate::CommandError::Mcp(Box::new(other)),
    }
}

/// A file the session changed: what it held before its first change and what it holds
/// now (`None`: it did not exist / no longer does; text read lossily).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileChange {
    pub path: PathBuf,
    pub before: Option<String>,
    pub now: Option<String>,
}

/// The changes as `/diff` answers them: those still different from before.
pub(crate) fn changes(first: Vec<(PathBuf, Option<Vec<u8>>)>) -> Vec<FileChange> {
    first
        .into_iter()
        .map(|(path, before)| {
            let now = std::fs::read(&path).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
            let before = before.map(|b| String::from_utf8_lossy(&b).into_owned());
            FileChange { path, before, now }
        })
        .filter(|c| c.before != c.now)
        .collect()
}

/// A unified diff of each change, as a person reads it.
fn diff_lines(files: &[FileChange]) -> Vec<String> {
    if files.is_empty() {
        return vec!["This session has changed no file (or changed them back)".into()];
    }
    let mut lines = vec![format!("{} file(s) changed in this session:", files.len())];
    for f in files {
        let (before, now) = (f.before.as_deref().unwrap_or(""), f.now.as_deref().unwrap_or(""));
        let name = f.path.display().to_string();
        let (old, new) = match (&f.before, &f.now) {
            (None, _) => ("/dev/null".to_string(), name.clone()),
            (_, None) => (name.clone(), "/dev/null".to_string()),
            _ => (name.clone(), name.clone()),
        };
        let diff = similar::TextDiff::from_lines(before, now);
        let text = diff.unified_diff().context_radius(3).header(&old, &new).to_string();
        lines.extend(text.lines().map(str::to_string));
    }
    lines
}
