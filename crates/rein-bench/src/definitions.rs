//! A large installed configuration: start → first request with 700 subagents, 600
//! commands (half in subfolders) and 200 skills, against an empty project — what users
//! of big agent and command collections pay at every start.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, bail};
use rein_testkit::{FakeServer, Scenario, reply, text};

use crate::{Row, ms, percentile, rein_direct, spawn_and_measure};

const AGENTS: usize = 700;
const COMMANDS: usize = 600;
const SKILLS: usize = 200;

/// Definitions shaped like public collections: a description, tools, a long body.
fn install(project: &Path, home: &Path) -> anyhow::Result<()> {
    let body = "Follow the steps below carefully.\n\n".to_string() + &"- a step of the procedure\n".repeat(60);
    for i in 0..AGENTS {
        // Half in the project, half the user's, in subfolders as collections ship them.
        let root = if i % 2 == 0 { project } else { home };
        let dir = root.join(format!(".claude/agents/group{}", i % 10));
        std::fs::create_dir_all(&dir)?;
        let text = format!(
            "---\nname: agent-{i}\ndescription: Use this agent when the task needs specialist {i}\ntools: Read, Grep, Glob, Bash\nmodel: sonnet\n---\n{body}"
        );
        std::fs::write(dir.join(format!("agent-{i}.md")), text)?;
    }
    for i in 0..COMMANDS {
        let dir = if i % 2 == 0 {
            project.join(".claude/commands")
        } else {
            project.join(format!(".claude/commands/ns{}", i % 7))
        };
        std::fs::create_dir_all(&dir)?;
        let text = format!(
            "---\ndescription: Command {i}\nargument-hint: [file]\nallowed-tools: Bash(git status:*), Read\n---\n{body}$ARGUMENTS\n"
        );
        std::fs::write(dir.join(format!("cmd-{i}.md")), text)?;
    }
    for i in 0..SKILLS {
        let dir = home.join(format!(".claude/skills/skill-{i}"));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: skill-{i}\ndescription: Skill {i} for a kind of task\n---\n{body}"),
        )?;
    }
    Ok(())
}

/// The row: the median of 10 starts.
pub(crate) fn rows(bin: &Path) -> anyhow::Result<Vec<Row>> {
    let (project, home) = (tempfile::tempdir()?, tempfile::tempdir()?);
    install(project.path(), home.path())?;
    // Installed files are old on a user's machine: written back and in the page cache.
    // Flush the fresh ones and start twice unmeasured, so the row measures rein.
    let _ = std::process::Command::new("sync").status();
    let mut firsts = Vec::new();
    for round in 0..12 {
        let server = FakeServer::start(Scenario::new([reply([text("ok")])]))?;
        let mut cmd = rein_direct(bin, project.path(), home.path(), &server);
        cmd.args(["-p", "hi"]);
        let t0 = Instant::now();
        if !spawn_and_measure(&mut cmd)?.ok {
            bail!("rein -p with {AGENTS} agents installed failed");
        }
        let req = server.requests().into_iter().next().context("no request")?;
        if !req.body["tools"].to_string().contains(&format!("agent-{}", AGENTS - 1)) {
            bail!("not every subagent was offered");
        }
        if round >= 2 {
            firsts.push(req.received_at.duration_since(t0));
        }
    }
    firsts.sort();
    Ok(vec![(
        format!("start → first request, {AGENTS} subagents + {COMMANDS} commands + {SKILLS} skills (median of 10)"),
        ms(percentile(&firsts, 0.5)),
        "≤ 25 ms".into(),
    )])
}
