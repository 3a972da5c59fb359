//! `rein demo`: a real session — real tools, on a scratch copy of a bundled sample
//! project — driven by a built-in scripted model, offline. With an API key set (and
//! without `--scripted`) the same task goes to the real model instead.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use rein_model::{Model, ScriptedModel, ScriptedReply, ScriptedTurn};
use rein_policy::{PermissionMode, Policy, PolicyInputs};
use rein_protocol::{ContentBlock, Message, ToolUse};
use serde_json::{Value, json};

use crate::args::{Args, OutputFormat};
use crate::print::Frontend;
use crate::session::{self, Setup};

const SCRIPTED_MODEL: &str = "rein-scripted-demo";
/// The one command the demo may run beyond read-only ones.
const TEST_RULE: &str = "Bash(python3 -m unittest:*)";
const TASK: &str = "Get to know this project: list its files and find the open TODOs. Fix the one that is a \
                    bug, with a test, run the test suite, and summarise what you found and did.";

/// The sample project, bundled into the binary.
const SAMPLE: &[(&str, &str)] = &[
    ("README.md", include_str!("../demo/sample/README.md")),
    ("src/stockroom.py", include_str!("../demo/sample/src/stockroom.py")),
    ("src/report.py", include_str!("../demo/sample/src/report.py")),
    ("tests/test_stockroom.py", include_str!("../demo/sample/tests/test_stockroom.py")),
];

pub(crate) async fn run(args: &Args, force_scripted: bool, format: Option<OutputFormat>) -> anyhow::Result<ExitCode> {
    let scratch = tempfile::Builder::new().prefix("rein-demo-").tempdir().context("creating a scratch directory")?;
    for (path, text) in SAMPLE {
        let target = scratch.path().join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&target, text).with_context(|| format!("writing {}", target.display()))?;
    }
    let has_key = crate::env::Env::api_key_source() != "none";
    let scripted = force_scripted || !has_key;
    let model_name = if scripted {
        SCRIPTED_MODEL.to_string()
    } else {
        session::resolve_model(&crate::env::Env::read(), args.model.as_deref(), None)
    };
    // The demo's own permissions: edits inside the project, and the test command.
    let tools = session::builtin_kinds()?;
    let policy = Policy::new(&PolicyInputs {
        allowed_tools: vec![TEST_RULE.to_string()],
        mode: Some(PermissionMode::AcceptEdits),
        cwd: scratch.path().to_path_buf(),
        home: crate::env::Env::read().home,
        tools,
        ..PolicyInputs::default()
    })?;
    let setup = Setup::new(scratch.path().to_path_buf(), &args.options(), model_name, policy)?;
    let model: Arc<dyn Model> = if scripted {
        Arc::new(ScriptedModel::new(SCRIPTED_MODEL, script(scratch.path())))
    } else {
        setup.anthropic_model()?
    };

    // In a terminal, the demo is the interactive session: watch it work, answer its
    // questions (it will ask to push).
    if format.is_none() && std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return interactive(setup, model, scratch.path()).await;
    }
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
            println!("Permissions: acceptEdits inside the project, plus {TEST_RULE}; anything else is refused.");
            Frontend::human()
        }
        Some(f) => Frontend::new(f, true),
    };
    Ok(session::run(rein_session::Builder::new(&setup).model(model), TASK, &mut frontend).await.exit_code())
}

/// The scripted model's seven turns. Each reads the tool results so far, so the final
/// summary reports what the real tools found and did.
fn script(project: &Path) -> Vec<ScriptedTurn> {
    let root = project.to_path_buf();
    let src = root.join("src/stockroom.py").display().to_string();
    let test = root.join("tests/test_stockroom.py").display().to_string();
    let (src2, test2) = (src.clone(), test.clone());
    vec![
        Arc::new(|_: &[&Message]| {
            say(&["I'll start with the project's layout."], vec![("Glob", json!({"pattern": "**/*"}))])
        }),
        Arc::new(|_: &[&Message]| {
            say(&["Now the open TODOs."], vec![("Grep", json!({"pattern": "TODO", "output_mode": "content"}))])
        }),
        Arc::new(move |_: &[&Message]| {
            say(
                &[
                    "The stockroom TODO is a real bug: `remove` can drive a quantity negative. Let me read the code and its tests.",
                ],
                vec![("Read", json!({"file_path": src})), ("Read", json!({"file_path": test}))],
            )
        }),
        Arc::new(move |_: &[&Message]| {
            say(
                &["I'll make `remove` refuse to take more than is in stock, and add a test for it."],
                vec![
                    ("Edit", json!({"file_path": src2, "old_string": FIX_OLD, "new_string": FIX_NEW})),
                    (
                        "Edit",
                        json!({"file_path": test2, "old_string": TEST_ANCHOR, "new_string": format!("{NEW_TEST}{TEST_ANCHOR}")}),
                    ),
                ],
            )
        }),
        Arc::new(|_: &[&Message]| {
            say(
                &["Now the test suite."],
                vec![(
                    "Bash",
                    json!({"command": "python3 -m unittest discover -s tests 2>&1 | tail -n 3", "description": "Run the test suite"}),
                )],
            )
        }),
        Arc::new(|_: &[&Message]| {
            // The script oversteps on purpose: the permission engine must refuse.
            say(
                &["Tests pass. I'll push the fix too."],
                vec![("Bash", json!({"command": "git push origin main", "description": "Push the fix"}))],
            )
        }),
        Arc::new(move |history: &[&Message]| {
            let results = all_results(history);
            let push = results.last().cloned().unwrap_or_default();
            let push_refused =
                push.contains("has not granted") || push.contains("declined") || push.contains("Interrupted by user");
            let push_failed = push.contains("Exit code") || push.contains("fatal:");
            let results = &results[..results.len().saturating_sub(1)];
            // What Glob listed (paths relative to the project, or absolute), counted.
            let files = results
                .first()
                .map(|r| r.lines().filter(|l| !l.trim().is_empty() && !l.starts_with("No files found")).count())
                .unwrap_or(0);
            let todos: Vec<String> = results
                .get(1)
                .map(|r| {
                    r.lines()
                        .filter_map(|l| {
                            let (path, rest) = l.split_once(':')?;
                            let (line, text) = rest.split_once(':')?;
                            let path = Path::new(path);
                            let rel = path.strip_prefix(&root).unwrap_or(path).display().to_string();
                            Some(format!("- `{rel}:{line}` — {}", text.trim().trim_start_matches("# ")))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let edits_ok = results.get(4).is_some_and(|r| r.starts_with("Edited "))
                && results.get(5).is_some_and(|r| r.starts_with("Edited "));
            let tests = results.last().map(|r| r.trim().replace('\n', " ")).unwrap_or_default();
            let summary = format!(
                "Here is what I found and did.\n\nThe project has {files} files. Open TODOs:\n{}\n\n{}\n\nTest \
                 suite: {}\n\n{}\n\nThe report TODO (sorting by value) is a feature request; I left it for you to decide.",
                if todos.is_empty() { "- none".to_string() } else { todos.join("\n") },
                if edits_ok {
                    "Fixed `Stockroom.remove` in `src/stockroom.py`: it now raises ValueError instead of going \
                     negative, and `tests/test_stockroom.py` has a test for it."
                } else {
                    "The edits did not apply; see the results above."
                },
                tests,
                if push_refused {
                    "I did not push: that needs your permission, which this session does not have.".to_string()
                } else if push_failed {
                    format!("The push failed: {}", push.lines().next().unwrap_or_default())
                } else {
                    "The fix is pushed.".to_string()
                }
            );
            ScriptedReply { blocks: vec![ContentBlock::text(summary)], stop_reason: "end_turn".into() }
        }),
    ]
}

const FIX_OLD: &str = "        # TODO: refuse to remove more than is in stock instead of going negative
        count, price = self._items[name]
        self._items[name] = (count - quantity, price)";
const FIX_NEW: &str = "        count, price = self._items[name]
        if quantity > count:
            raise ValueError(f\"only {count} {name} in stock\")
        self._items[name] = (count - quantity, price)";
const TEST_ANCHOR: &str = "    def test_rejects_non_positive_quantities(self):";
const NEW_TEST: &str = "    def test_cannot_remove_more_than_in_stock(self):
        room = Stockroom()
        room.add(\"bolt\", 3, 0.25)
        with self.assertRaises(ValueError):
            room.remove(\"bolt\", 5)
        self.assertEqual(room.quantity(\"bolt\"), 3)

";

/// A reply with some text and tool calls.
fn say(text: &[&str], calls: Vec<(&str, Value)>) -> ScriptedReply {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let mut blocks: Vec<ContentBlock> = text.iter().map(|t| ContentBlock::text(*t)).collect();
    for (tool, input) in calls {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        blocks.push(ContentBlock::ToolUse(ToolUse { id: format!("toolu_demo_{n:02}"), name: tool.into(), input }));
    }
    ScriptedReply { blocks, stop_reason: "tool_use".into() }
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

/// The demo in the interactive session, its task as the first prompt.
async fn interactive(setup: Setup, model: Arc<dyn Model>, project: &Path) -> anyhow::Result<ExitCode> {
    let builder = rein_session::Builder::new(&setup).model(model);
    let (approver, questions) = rein_tui::approver(builder.policy().clone());
    let session = crate::engine::build(builder.approver(Arc::new(approver)))?;
    rein_tui::run(rein_tui::Options {
        session,
        questions,
        cwd: project.to_path_buf(),
        project_root: project.to_path_buf(),
        model: setup.model.clone(),
        first_prompt: Some(TASK.to_string()),
        allow_bypass: false,
        titler: None,
        status_line: None,
        info: rein_tui::Info::default(),
        rein_home: setup.env.rein_home.clone(),
        respect_gitignore: true,
        keybindings: rein_tui::Keybindings::default(),
        vim: false,
        theme: setup.prefs.theme.clone(),
        job: None,
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}
