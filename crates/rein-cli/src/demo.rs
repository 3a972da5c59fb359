//! `rein demo`: a real session — real tools, on a scratch copy of a bundled sample
//! project — driven by a built-in scripted model, offline. With an API key set (and
//! without `--scripted`) the same task goes to the real model instead.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use rein_model::{Model, ScriptedModel, ScriptedReply, ScriptedTurn};
use rein_protocol::{ContentBlock, Message, ToolUse};
use serde_json::{Value, json};

use crate::args::{Args, OutputFormat};
use crate::print::Frontend;
use crate::session::{self, Setup};

const SCRIPTED_MODEL: &str = "rein-scripted-demo";
const TASK: &str = "Get to know this project: list its files, find the open TODOs, read the code they are in, \
                    run the test suite, and summarise what you found.";

/// The sample project, bundled into the binary.
const SAMPLE: &[(&str, &str)] = &[
    ("README.md", include_str!("../demo/sample/README.md")),
    ("src/stockroom.py", include_str!("../demo/sample/src/stockroom.py")),
    ("src/report.py", include_str!("../demo/sample/src/report.py")),
    ("tests/test_stockroom.py", include_str!("../demo/sample/tests/test_stockroom.py")),
];

pub async fn run(args: &Args, force_scripted: bool, format: Option<OutputFormat>) -> anyhow::Result<ExitCode> {
    let scratch = tempfile::Builder::new().prefix("rein-demo-").tempdir().context("creating a scratch directory")?;
    for (path, text) in SAMPLE {
        let target = scratch.path().join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&target, text).with_context(|| format!("writing {}", target.display()))?;
    }
    let has_key = ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]
        .iter()
        .any(|k| std::env::var(k).is_ok_and(|v| !v.trim().is_empty()));
    let scripted = force_scripted || !has_key;
    let model_name = if scripted { SCRIPTED_MODEL.to_string() } else { session::resolve_model(args.model.as_deref()) };
    let setup = Setup::new(scratch.path().to_path_buf(), args, model_name)?;
    let model: Arc<dyn Model> = if scripted {
        Arc::new(ScriptedModel::new(SCRIPTED_MODEL, script(scratch.path())))
    } else {
        setup.anthropic_model()?
    };

    let mut frontend = match format {
        None => {
            println!("rein demo — a real session: real tools on a scratch copy of a sample project.");
            if scripted {
                println!(
                    "The model is SCRIPTED (built in, offline): no API key is used and nothing leaves this machine."
                );
            } else {
                println!(
                    "Using the real model {} (an API key is set; pass --scripted for the offline script).",
                    setup.model
                );
            }
            println!("Project: {} (removed afterwards)\nTask: {TASK}", scratch.path().display());
            Frontend::human()
        }
        Some(f) => Frontend::new(f, true),
    };
    let ok = session::run(&setup, model, TASK, &mut frontend).await;
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The scripted model's five turns. Each reads the previous tool result, so the final
/// summary reports what the real tools found.
fn script(project: &Path) -> Vec<ScriptedTurn> {
    let root = project.to_path_buf();
    let read_root = root.clone();
    vec![
        Arc::new(|_: &[&Message]| {
            say_and_call("I'll start with the project's layout.", "Glob", json!({"pattern": "**/*"}))
        }),
        Arc::new(|_: &[&Message]| {
            say_and_call("Now the open TODOs.", "Grep", json!({"pattern": "TODO", "output_mode": "content"}))
        }),
        Arc::new(move |history: &[&Message]| {
            let grep = last_result(history);
            let file = grep.lines().rfind(|l| l.starts_with('/')).and_then(|l| l.split(':').next()).map(str::to_string);
            let file = file.unwrap_or_else(|| read_root.join("src/stockroom.py").display().to_string());
            say_and_call("Let me read the code around the last one.", "Read", json!({"file_path": file}))
        }),
        Arc::new(|_: &[&Message]| {
            say_and_call(
                "And run the tests.",
                "Bash",
                json!({"command": "python3 -m unittest discover -s tests 2>&1 | tail -n 3", "description": "Run the test suite"}),
            )
        }),
        Arc::new(move |history: &[&Message]| {
            let results = all_results(history);
            let files = results.first().map(|r| r.lines().filter(|l| l.starts_with('/')).count()).unwrap_or(0);
            let todos: Vec<String> = results
                .get(1)
                .map(|r| {
                    r.lines()
                        .filter_map(|l| {
                            let (path, rest) = l.split_once(':')?;
                            let (line, text) = rest.split_once(':')?;
                            let rel = Path::new(path).strip_prefix(&root).map(|p| p.display().to_string()).ok()?;
                            Some(format!("- `{rel}:{line}` — {}", text.trim().trim_start_matches("# ")))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let tests = results.get(3).and_then(|r| r.lines().rfind(|l| !l.trim().is_empty())).unwrap_or("(no output)");
            let summary = format!(
                "Here is what I found.\n\nThe project has {files} files. Open TODOs:\n{}\n\nTest suite: {}\n\n\
                 The stockroom TODO matters most: `remove` can drive a quantity negative. I'd make it raise \
                 ValueError when asked to remove more than is in stock, and add a test for it.",
                if todos.is_empty() { "- none".to_string() } else { todos.join("\n") },
                tests.trim()
            );
            ScriptedReply { blocks: vec![ContentBlock::text(summary)], stop_reason: "end_turn".into() }
        }),
    ]
}

fn say_and_call(text: &str, tool: &str, input: Value) -> ScriptedReply {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ScriptedReply {
        blocks: vec![
            ContentBlock::text(text),
            ContentBlock::ToolUse(ToolUse { id: format!("toolu_demo_{n:02}"), name: tool.into(), input }),
        ],
        stop_reason: "tool_use".into(),
    }
}

/// The text of every tool result so far, in order.
fn all_results(history: &[&Message]) -> Vec<String> {
    history
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|b| match b {
            ContentBlock::ToolResult { content, .. } => Some(content.to_text()),
            _ => None,
        })
        .collect()
}

fn last_result(history: &[&Message]) -> String {
    all_results(history).pop().unwrap_or_default()
}
