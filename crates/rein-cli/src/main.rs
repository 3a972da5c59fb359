//! `rein`: the binary — argv, the print frontend, one file per subcommand and the demo.
//! The session itself (its configuration, its builder, its live facts and the commands
//! every frontend sends) is `rein-session`'s; the Agent SDK loop and its typed frames are
//! `rein-sdk`'s; the interactive UI is `rein-tui`'s. This crate turns flags into
//! `rein_session::Options`, hands the session to the frontend asked for, prints through
//! the one door (`messages.rs`) and exits with a meaningful code.

// A binary: what it prints is its output.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod background;
use rein_session::{env, mcp, provider};
mod demo;
mod engine;
mod formats;
mod human;
mod interactive;
mod interrupt;
mod judge_cli;
mod mcp_approval;
mod mcp_cli;
mod messages;
mod permissions;
mod plugin_cli;
mod print;
mod process_env;
mod reload;
mod rewind;
mod sandbox;
mod sdk;
mod session;
mod sessions_cmd;
mod subcommands;
mod worktree;

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use anyhow::{Context, bail};

use args::{Args, Command, OutputFormat};

fn main() -> ExitCode {
    // The sandbox's helper stage: confine this process, then become the command.
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // A trial's mount stage: the copy-on-write view, then bubblewrap.
    if argv.get(1).is_some_and(|a| a == rein_sandbox::trial::STAGE_ARG) {
        let err = rein_sandbox::trial::stage(&argv[2..]);
        crate::messages::message!("{err}");
        return ExitCode::from(126);
    }
    if argv.get(1).is_some_and(|a| a == rein_sandbox::HELPER_ARG) {
        let err = rein_sandbox::helper::run(&argv[2..]);
        crate::messages::message!("{err}");
        return ExitCode::from(126);
    }
    // rein's keys live in its memory and environment: not readable through /proc.
    rein_process::keep_memory_private();
    // A background session's host (`rein --bg` starts it).
    if argv.get(1).is_some_and(|a| a == rein_jobs::HOST_ARG) {
        return match rein_jobs::host::run(&argv[2..]) {
            Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            Err(e) => {
                crate::messages::message!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(said) = argv.get(1).and_then(|a| a.to_str()).and_then(elsewhere) {
        crate::messages::message!("{said}");
        return ExitCode::from(2);
    }
    let args = args::parse_lenient();
    if args.version {
        let own = std::env::args().any(|a| a == "--version" || a == "-V");
        if own {
            println!("rein {} (speaks Claude Code {CLAUDE_CODE_VERSION})", env!("CARGO_PKG_VERSION"));
        } else {
            println!("{CLAUDE_CODE_VERSION} (Claude Code)");
        }
        return ExitCode::SUCCESS;
    }
    init_logging(args.debug);
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            crate::messages::err_message!("{}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

pub use rein_session::CLAUDE_CODE_VERSION;

/// Claude Code's subcommands rein has no counterpart for: what to do instead (never sent
/// to the model as a prompt).
fn elsewhere(subcommand: &str) -> Option<&'static str> {
    Some(match subcommand {
        "update" | "upgrade" | "install" | "migrate-installer" => {
            "rein does not install or update itself: build a newer rein (`cargo install --path crates/rein-cli` in \
             its repository) or use your package manager"
        }
        "auth" | "login" | "logout" | "setup-token" => {
            "rein has no Claude.ai login: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN, or an apiKeyHelper in the \
             settings (`rein env` lists what it reads)"
        }
        _ => return None,
    })
}

fn run(args: Args) -> anyhow::Result<ExitCode> {
    match &args.command {
        Some(Command::Demo { scripted, output_format }) => {
            return runtime()?.block_on(demo::run(&args, *scripted, *output_format));
        }
        Some(Command::Sessions) => {
            sessions_cmd::list()?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Rewind { target, files_only, conversation_only, yes }) => {
            let what = rewind::What { files: !conversation_only, conversation: !files_only };
            return runtime()?.block_on(rewind::command(&args, target.as_deref(), what, *yes));
        }
        Some(Command::Env) => {
            print!("{}", env::table());
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Doctor) => {
            for section in rein_session::doctor::report(&args.options())? {
                println!("{}", section.title);
                for line in &section.lines {
                    println!("  {line}");
                }
                println!();
            }
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Permissions { action }) => {
            permissions::run(&args, action)?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Mcp { action: args::McpAction::Serve }) => {
            let mut options = args.options();
            options.hooks_wait_for_trust = true;
            let setup = process_env::resolve(&options)?;
            return runtime()?.block_on(async move {
                let builder = rein_session::Builder::new(&setup)
                    .model(std::sync::Arc::new(rein_mcp_serve::NoModel))
                    .approver(std::sync::Arc::new(rein_mcp_serve::NoPersonToAsk));
                rein_mcp_serve::serve_stdio(engine::build(builder)?).await?;
                Ok(ExitCode::SUCCESS)
            });
        }
        Some(Command::Mcp { action }) => {
            mcp_cli::run(&args, action)?;
            return Ok(ExitCode::SUCCESS);
        }
        Some(Command::Plugin { action }) => return plugin_cli::run(action),
        Some(Command::Agents { json, all: _ }) => return background::agents(*json),
        Some(Command::Logs { id, follow }) => return background::logs(id, *follow),
        Some(Command::Attach { id }) => return background::attach(id),
        Some(Command::Stop { id }) => return background::stop(id),
        Some(Command::Rm { id }) => return background::rm(id),
        Some(Command::Sandbox { action: args::SandboxAction::Check }) => {
            sandbox::check(&args)?;
            return Ok(ExitCode::SUCCESS);
        }
        None => {}
    }
    if args.bg {
        return background::launch(&args);
    }
    if args.worktree.is_none() {
        return run_session(&args);
    }
    worktree::run(&args, run_session)
}

/// A session: the Agent SDK's, the interactive one or a headless run.
fn run_session(args: &Args) -> anyhow::Result<ExitCode> {
    let args = args.clone();
    if args.init_only {
        let setup = process_env::resolve(&args.options())?;
        return Ok(runtime()?.block_on(session::init_only(&setup)).exit_code());
    }
    let sdk_mode = args.input_format == Some(args::InputFormat::StreamJson);
    if sdk_mode {
        if args.output_format != OutputFormat::StreamJson {
            bail!("--input-format=stream-json requires --output-format=stream-json");
        }
        return sdk::run(&args, runtime()?);
    }
    if !args.print {
        if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
            bail!("the interactive session needs a terminal: use `rein -p \"PROMPT\"` for headless runs");
        }
        return interactive::run(&args, runtime()?);
    }
    if args.output_format == OutputFormat::StreamJson && !args.verbose {
        bail!("When using --print, --output-format=stream-json requires --verbose");
    }
    let prompt = prompt(&args)?;
    let setup = process_env::resolve(&args.options())?;
    let mcp_options = args.options();
    runtime()?.block_on(async move {
        let mut frontend = print::Frontend::new(args.output_format, args.verbose);
        let mut builder = rein_session::Builder::new(&setup).mcp(&mcp_options);
        match args.permission_prompt_tool.as_deref() {
            Some("stdio") => bail!("--permission-prompt-tool stdio needs --input-format stream-json (the Agent SDK)"),
            Some(tool) => builder = builder.prompt_tool(tool)?,
            None => {}
        }
        Ok(session::run(builder, &prompt, &mut frontend).await.exit_code())
    })
}

/// The prompt from the argument, else from stdin (capped at 10 MB).
fn prompt(args: &Args) -> anyhow::Result<String> {
    if let Some(p) = &args.prompt {
        return Ok(p.clone());
    }
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        bail!("no prompt: pass it as an argument (`rein -p \"PROMPT\"`) or on stdin");
    }
    let mut text = String::new();
    stdin.take(10 * 1024 * 1024).read_to_string(&mut text).context("reading the prompt from stdin")?;
    if text.trim().is_empty() {
        bail!("no prompt: stdin was empty");
    }
    Ok(text)
}

/// One thread drives the session: turns are I/O-bound, and hopping between worker
/// threads cost more than it gave (harness time per turn halved when measured with
/// scripts/bench). Blocking work (file search, reads) goes to tokio's blocking pool.
fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the async runtime")
}

fn init_logging(debug: bool) {
    if !debug && env::Env::lookup("RUST_LOG").is_none() {
        return;
    }
    let filter = if debug { "debug".into() } else { env::Env::lookup("RUST_LOG").unwrap_or_default() };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// An error and its causes on one line.
fn one_line(e: &anyhow::Error) -> String {
    let parts: Vec<String> = e.chain().map(|c| c.to_string()).collect();
    parts.join(": ").replace('\n', " ")
}
