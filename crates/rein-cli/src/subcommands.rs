//! `rein`'s subcommands (`rein mcp …`, `rein sandbox check`, `rein permissions …`, …),
//! shaped like `claude`'s.

use clap::Subcommand;

use crate::formats::OutputFormat;

#[derive(Debug, Clone, Subcommand)]
pub(crate) enum Command {
    /// Run a real session on a scratch copy of a bundled sample project, driven by a
    /// built-in scripted model (no key, no network); uses the real model when
    /// ANTHROPIC_API_KEY is set, unless --scripted.
    Demo {
        /// Use the scripted model even when an API key is set.
        #[arg(long)]
        scripted: bool,
        /// Output format (default: a readable transcript).
        #[arg(long, value_enum)]
        output_format: Option<OutputFormat>,
    },
    /// List this directory's sessions, newest first.
    Sessions,
    /// List the environment variables rein reads, with their defaults.
    Env,
    /// What rein makes of the configuration here: the folder's trust, settings keys it
    /// does not support, hooks it never raises, definitions it skipped, MCP servers'
    /// state, the sandbox tier — each with its file and line. Runs nothing of the folder's.
    Doctor,
    /// Go back to before a prompt of a session (the latest here, or -r ID): without a
    /// target, list the prompts; with one (its number or message uuid), restore the
    /// files rein's file tools changed since and the conversation.
    Rewind {
        /// The prompt: its number in the list, or its message uuid.
        target: Option<String>,
        /// Restore only the files.
        #[arg(long, conflicts_with = "conversation_only")]
        files_only: bool,
        /// Restore only the conversation.
        #[arg(long)]
        conversation_only: bool,
        /// Overwrite files changed outside rein since their checkpoint without asking.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Inspect the permission rules in force here.
    Permissions {
        #[command(subcommand)]
        action: PermissionsAction,
    },
    /// Configure and check MCP servers (the same files as `claude mcp`).
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
    /// Plugins and marketplaces (the same files and settings as `claude plugin`).
    Plugin {
        #[command(subcommand)]
        action: crate::plugin_cli::PluginAction,
    },
    /// The background sessions (`rein --bg`): running, waiting for you, ended.
    Agents {
        /// One JSON object per session, in an array.
        #[arg(long)]
        json: bool,
        /// Accepted for Claude Code's `claude agents --all`: every session is listed.
        #[arg(long)]
        all: bool,
    },
    /// What a background session did: its prompts, answers and tool calls.
    Logs {
        /// Its id, the start of its id, or part of its name.
        id: String,
        /// Keep printing what it does until it ends.
        #[arg(short = 'f', long)]
        follow: bool,
    },
    /// Open a background session in this terminal (Ctrl+Z detaches; an ended one is
    /// resumed).
    Attach {
        /// Its id, the start of its id, or part of its name.
        id: String,
    },
    /// End a background session.
    Stop {
        /// Its id, the start of its id, or part of its name.
        id: String,
    },
    /// End a background session if it runs and forget it (its conversation stays, for
    /// `rein -r`).
    Rm {
        /// Its id, the start of its id, or part of its name.
        id: String,
    },
    /// Inspect the OS sandbox.
    Sandbox {
        #[command(subcommand)]
        action: SandboxAction,
    },
}

#[derive(Debug, Clone, Subcommand)]
pub(crate) enum McpAction {
    /// List the configured servers and check each one.
    List,
    /// Serve rein's own tools to another MCP client on stdio (as `claude mcp serve`):
    /// each call checked against this folder's permission rules and run in the sandbox;
    /// a call the rules would ask about is refused (nobody is there to answer).
    Serve,
    /// Show one server.
    Get { name: String },
    /// Add a server: `rein mcp add NAME -- COMMAND ARGS…` or `rein mcp add -t http NAME URL`.
    Add {
        name: String,
        /// local (this project, private), project (.mcp.json) or user.
        #[arg(short, long, default_value = "local")]
        scope: String,
        /// stdio, http or sse.
        #[arg(short, long, default_value = "stdio")]
        transport: String,
        /// Environment for a stdio server: KEY=value.
        #[arg(short, long)]
        env: Vec<String>,
        /// A header for an HTTP server: 'Name: value'.
        #[arg(short = 'H', long)]
        header: Vec<String>,
        /// The command and its arguments, or the URL.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        target: Vec<String>,
    },
    /// Add a server from its JSON entry (`-` reads it from stdin).
    AddJson {
        name: String,
        json: String,
        #[arg(short, long, default_value = "local")]
        scope: String,
    },
    /// Remove a server (from the first scope that has it, unless -s says which).
    Remove {
        name: String,
        #[arg(short, long)]
        scope: Option<String>,
    },
    /// Sign in to an HTTP server with OAuth: the browser opens the server's sign-in page
    /// (`$BROWSER`, else xdg-open); the tokens are kept in ~/.claude/.credentials.json.
    Login {
        name: String,
        /// Print the URL without opening a browser.
        #[arg(long)]
        no_browser: bool,
    },
    /// Forget the OAuth tokens of a server.
    Logout { name: String },
}

#[derive(Debug, Clone, Subcommand)]
pub(crate) enum SandboxAction {
    /// Print the tier, each mechanism found, and the effective policy.
    Check,
}

#[derive(Debug, Clone, Subcommand)]
pub(crate) enum PermissionsAction {
    /// Explain the decision for calls written like rules: 'Bash(git push)',
    /// 'Read(./.env)', 'WebFetch(https://example.com)', 'Edit(src/main.rs)'.
    Check {
        #[arg(required = true)]
        calls: Vec<String>,
        /// Also ask the auto-mode judge about each call the rules would ask about.
        #[arg(long)]
        auto: bool,
    },
    /// List every rule with the file it comes from, the mode and the workspace.
    List,
}
