//! Background sessions from the command line (`rein-jobs` keeps them): `rein --bg PROMPT`
//! starts one and prints its id; `rein agents` lists them; `rein logs ID [-f]` shows what
//! one did; `rein attach ID` opens it in this terminal (resuming one whose host ended);
//! `rein stop ID` ends it and `rein rm ID` forgets it. A session is named by its id, the
//! start of its id, or part of its name.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Seek, SeekFrom, Write};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use rein_jobs::host::Start;
use rein_jobs::{Job, Jobs, Standing};

use crate::args::Args;
use crate::env::Env;

/// How many background sessions may run at once when `REIN_MAX_BACKGROUND_SESSIONS`
/// does not say.
const DEFAULT_LIMIT: usize = 16;

fn jobs() -> Jobs {
    Jobs::at(&Env::read().rein_home)
}

/// `rein --bg …`: start the session detached, print its id and how to reach it.
pub(crate) fn launch(args: &Args) -> anyhow::Result<ExitCode> {
    if args.print {
        bail!("--bg runs an interactive session in the background; -p runs one here and prints its answer");
    }
    let prompt = match &args.prompt {
        Some(p) => p.clone(),
        None if !std::io::stdin().is_terminal() => {
            let mut text = String::new();
            std::io::stdin()
                .take(10 * 1024 * 1024)
                .read_to_string(&mut text)
                .context("reading the prompt from stdin")?;
            text
        }
        None => String::new(),
    };
    if prompt.trim().is_empty() {
        bail!("--bg needs a prompt: rein --bg \"what to do\"");
    }
    // Nobody will be there to answer the trust question: it is asked here, now.
    if !crate::interactive::trusted(args)? {
        return Ok(ExitCode::FAILURE);
    }
    let env = Env::read();
    let jobs = Jobs::at(&env.rein_home);
    let limit = env.max_background_sessions.unwrap_or(DEFAULT_LIMIT);
    if jobs.running() >= limit {
        bail!(
            "{limit} background sessions already run (REIN_MAX_BACKGROUND_SESSIONS): stop one first (`rein agents`, `rein stop ID`)"
        );
    }
    let cwd = std::env::current_dir()?;
    let flags = session_flags(std::env::args_os().skip(1).collect(), &prompt);
    let job = jobs.create(args.name.as_deref().unwrap_or_default(), &prompt, &cwd, flags)?;
    let exe = std::env::current_exe()?;
    let size = if std::io::stdout().is_terminal() { rein_jobs::client::terminal_size() } else { (120, 40) };
    rein_jobs::host::spawn(&job.dir, &exe, &rein_session::env::original_env(), size, Start::Fresh)?;
    let id = &job.state.id;
    println!("backgrounded · {id} · {}", rein_jobs::printable(&job.state.name));
    for (command, what) in [
        ("rein agents".to_string(), "every background session and how it stands"),
        (format!("rein attach {id}"), "open it here (Ctrl+Z leaves it running)"),
        (format!("rein logs {id}"), "what it has done (-f keeps following)"),
        (format!("rein stop {id}"), "end it"),
    ] {
        println!("  {command:<21} {what}");
    }
    Ok(ExitCode::SUCCESS)
}

/// rein's arguments for the background session: those given, without `--bg`, its name
/// and the prompt (the host passes the prompt itself).
fn session_flags(argv: Vec<OsString>, prompt: &str) -> Vec<String> {
    let mut argv: Vec<String> = argv.into_iter().map(|a| a.to_string_lossy().into_owned()).collect();
    if let Some(at) = argv.iter().rposition(|a| a == prompt) {
        argv.remove(at);
    }
    let mut out = Vec::new();
    let mut skip_next = false;
    for a in argv {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        match a.as_str() {
            "--bg" | "--" => {}
            "--name" | "-n" => skip_next = true,
            _ if a.starts_with("--name=") || (a.starts_with("-n") && !a.starts_with("--")) => {}
            _ => out.push(a),
        }
    }
    out
}

/// `rein agents [--json]`.
pub(crate) fn agents(json: bool) -> anyhow::Result<ExitCode> {
    let all = jobs().all();
    if json {
        let list: Vec<serde_json::Value> = all
            .iter()
            .map(|j| {
                let s = &j.state;
                serde_json::json!({
                    "id": s.id,
                    "name": s.name,
                    "status": j.status_word(),
                    "state": match j.standing() {
                        Standing::NeedsYou => "blocked",
                        Standing::Running => "working",
                        Standing::Ended => "done",
                    },
                    "detail": s.detail,
                    "output": s.output,
                    "intent": s.intent,
                    "cwd": s.cwd,
                    "sessionId": s.session_id,
                    "pid": s.host_pid.filter(|_| j.alive()),
                    "costUsd": s.cost_usd,
                    "memoryKb": j.memory_kb(),
                    "createdAt": s.created_at,
                    "updatedAt": s.updated_at,
                })
            })
            .collect();
        return print(&format!("{}\n", serde_json::to_string_pretty(&list)?));
    }
    if all.is_empty() {
        return print("No background sessions. Start one with: rein --bg \"what to do\"\n");
    }
    let now = rein_jobs::now_ms();
    let mut out = String::new();
    for (standing, title) in [
        (Standing::NeedsYou, "Needs you"),
        (Standing::Running, "Open (working, or waiting for a message)"),
        (Standing::Ended, "Ended"),
    ] {
        let group: Vec<&Job> = all.iter().filter(|j| j.standing() == standing).collect();
        if group.is_empty() {
            continue;
        }
        out.push_str(&format!("{title} ({})\n", group.len()));
        for j in group {
            let s = &j.state;
            let memory = j.memory_kb().map(|kb| format!(" · {:.0} MB", kb as f64 / 1024.0)).unwrap_or_default();
            let ended = match (s.status, s.exit_code) {
                (rein_jobs::Status::Failed, Some(code)) => format!(" (code {code})"),
                _ => String::new(),
            };
            out.push_str(&format!("  {}  {:<40} {}{ended}\n", s.id, clip(&s.name, 40), j.status_word()));
            out.push_str(&format!(
                "            started {} ago · active {} ago · ${:.2}{memory}\n",
                age(now.saturating_sub(s.created_at)),
                age(now.saturating_sub(s.updated_at)),
                s.cost_usd
            ));
            out.push_str(&format!("            {}\n", rein_jobs::printable(&s.cwd.display().to_string())));
            if !s.detail.is_empty() {
                out.push_str(&format!("            {}\n", clip(&s.detail, 90)));
            }
        }
    }
    print(&out)
}

/// `text` on stdout; a reader that went away (`| head`) is no error.
fn print(text: &str) -> anyhow::Result<ExitCode> {
    written(&mut std::io::stdout(), text)?;
    Ok(ExitCode::SUCCESS)
}

/// Write `text` to `out`: `false` when its reader went away.
fn written(out: &mut impl Write, text: &str) -> anyhow::Result<bool> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e.into()),
    }
}

fn clip(text: &str, n: usize) -> String {
    let text = &rein_jobs::printable(text);
    if text.chars().count() > n { text.chars().take(n - 1).collect::<String>() + "…" } else { text.to_string() }
}

fn age(ms: u64) -> String {
    match ms / 1000 {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

/// `rein logs ID [-f]`.
pub(crate) fn logs(query: &str, follow: bool) -> anyhow::Result<ExitCode> {
    let job = jobs().find(query)?;
    let mut offset = 0u64;
    let mut partial: Vec<u8> = Vec::new();
    let mut reading: Option<std::path::PathBuf> = None;
    let mut out = std::io::stdout();
    loop {
        let job = job.reread()?;
        let alive = job.alive();
        let mut read_any = false;
        // `/clear` moves the session to another transcript; a rewind shortens it.
        if job.state.transcript != reading {
            (offset, reading) = (0, job.state.transcript.clone());
            partial.clear();
        }
        if let Some(path) = &job.state.transcript
            && let Ok(mut file) = std::fs::File::open(path)
        {
            if file.metadata().is_ok_and(|m| m.len() < offset) {
                offset = 0;
                partial.clear();
            }
            file.seek(SeekFrom::Start(offset))?;
            let mut more = Vec::new();
            file.read_to_end(&mut more)?;
            offset += more.len() as u64;
            read_any = !more.is_empty();
            partial.extend_from_slice(&more);
            // Whole lines only: the last one may still be being written.
            if let Some(end) = partial.iter().rposition(|b| *b == b'\n') {
                let whole: Vec<u8> = partial.drain(..=end).collect();
                let whole = String::from_utf8_lossy(&whole);
                let mut text = String::new();
                for line in rein_jobs::render_transcript(&whole) {
                    text.push_str(&line);
                    text.push('\n');
                }
                if !written(&mut out, &text)? {
                    return Ok(ExitCode::SUCCESS);
                }
            }
        }
        if !follow || (!alive && !read_any) {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let now = job.reread()?;
    if now.state.transcript.is_none() {
        println!("({} has written nothing yet)", job.state.id);
    }
    if now.standing() == Standing::NeedsYou {
        let id = &now.state.id;
        println!("… it waits for you: {} (rein attach {id})", rein_jobs::printable(&now.state.detail));
    }
    Ok(ExitCode::SUCCESS)
}

/// `rein attach ID`: a live session in this terminal; an ended one is resumed first.
pub(crate) fn attach(query: &str) -> anyhow::Result<ExitCode> {
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        bail!("attaching needs a terminal (`rein logs ID` prints what a session did)");
    }
    let job = jobs().find(query)?;
    let id = job.state.id.clone();
    if !job.alive() {
        if job.state.session_id.is_empty() {
            bail!("background session {id} ended before its conversation began (`rein logs {id}`)");
        }
        let exe = std::env::current_exe()?;
        let size = rein_jobs::client::terminal_size();
        rein_jobs::host::spawn(&job.dir, &exe, &rein_session::env::original_env(), size, Start::Resume)?;
    }
    match rein_jobs::client::attach(&job.dir)? {
        rein_jobs::client::Ended::Detached => {
            println!("detached from {id}; it goes on (rein attach {id} to return)");
        }
        rein_jobs::client::Ended::SessionEnded => println!("background session {id} ended"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `rein stop ID`.
pub(crate) fn stop(query: &str) -> anyhow::Result<ExitCode> {
    let job = jobs().find(query)?;
    rein_jobs::client::stop(&job.dir, &job.state.id)?;
    println!("stopped {}", job.state.id);
    Ok(ExitCode::SUCCESS)
}

/// `rein rm ID`: stopped first if it runs; its conversation stays.
pub(crate) fn rm(query: &str) -> anyhow::Result<ExitCode> {
    let job = jobs().find(query)?;
    if job.alive() {
        rein_jobs::client::stop(&job.dir, &job.state.id)?;
    }
    let (id, session) = (job.state.id.clone(), job.state.session_id.clone());
    job.remove()?;
    if session.is_empty() {
        println!("removed {id}");
    } else {
        println!("removed {id}; its conversation stays (rein -r {session})");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_background_session_gets_the_flags_without_bg_its_name_or_the_prompt() {
        let argv = ["--bg", "-n", "fixer", "--model", "opus", "fix the build", "--permission-mode", "plan"];
        let flags = session_flags(argv.iter().map(OsString::from).collect(), "fix the build");
        assert_eq!(flags, ["--model", "opus", "--permission-mode", "plan"]);
        let argv = ["--bg", "-nfixer", "--name=x", "--", "--looks like a flag"];
        assert!(session_flags(argv.iter().map(OsString::from).collect(), "--looks like a flag").is_empty());
    }
}
