//! The interactive session in a real terminal: the real binary in a fixed-size tmux
//! pane against the fake model server, driven with send-keys, read with capture-pane
//! (polled with a deadline, never a fixed sleep).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{Env, serve};
use crate::tui_pane::Pane;
use rein_testkit::{Scenario, reply, text, thinking, tool_use_with_id as call};
use serde_json::json;

fn settings_local(root: &Path) -> String {
    std::fs::read_to_string(root.join(".claude/settings.local.json")).unwrap_or_default()
}

#[test]
fn a_prompt_streams_a_question_is_answered_and_remembered() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([
            text("Let me look.\nI will create a file.\n"),
            call("a", "Bash", json!({"command": "touch first.txt"})),
        ]),
        reply([call("b", "Bash", json!({"command": "touch second.txt"}))]),
        reply([call("c", "Bash", json!({"command": "touch second.txt"}))]),
        reply([text("All done.")]),
    ]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("make some files");
    pane.keys(&["Enter"]);
    pane.wait_for("I will create a file.");
    pane.wait_for("Do you want to proceed?");
    pane.keys(&["1"]);
    // The second call asks again (1 was "yes, this time"); 2 remembers the rule — the
    // command exactly, never `touch *`, which would allow what was never asked.
    pane.wait_for("touch second.txt");
    pane.wait_for("2. Yes, and don't ask again for Bash(touch second.txt)");
    pane.keys(&["2"]);
    let screen = pane.wait_for("All done.");
    assert!(env.cwd().join("first.txt").exists() && env.cwd().join("second.txt").exists());
    assert_eq!(server.requests().len(), 4, "the remembered rule let the third call run unasked:\n{screen}");
    assert!(settings_local(env.cwd()).contains("Bash(touch second.txt)"), "{}", settings_local(env.cwd()));
    assert_eq!(screen.matches("Do you want to proceed?").count(), 0, "no dialog is left:\n{screen}");
    assert_eq!(screen.matches("All done.").count(), 1, "the answer is shown once:\n{screen}");
    pane.keys(&["C-c", "C-c"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pane.dead() {
        assert!(Instant::now() < deadline, "Ctrl+C twice did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn esc_on_the_dialog_refuses_and_the_model_reads_it() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": "touch nope.txt"}))]),
        reply([text("Understood, I will not.")]),
    ]));
    let pane = Pane::start(&env, &server, &["'try it'"]);
    pane.wait_for("Do you want to proceed?");
    pane.keys(&["Escape"]);
    // "No" stops the turn and waits for the person, as the option says.
    pane.wait_for("What should rein do instead?");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(server.requests().len(), 1, "the model is not asked to carry on by itself");
    pane.type_text("leave it");
    pane.keys(&["Enter"]);
    pane.wait_for("Understood, I will not.");
    assert!(!env.cwd().join("nope.txt").exists());
    let reqs = server.requests();
    let result = reqs[1].body["messages"][2]["content"][0].clone();
    assert_eq!(result["is_error"], true);
    let content = result["content"].as_str().unwrap();
    assert!(content.contains("declined"), "the model reads that the person said no: {result}");
}

#[test]
fn esc_interrupts_a_long_call_and_the_session_goes_on() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("s", "Bash", json!({"command": "sleep 30"}))]),
        reply([text("Second answer.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--allowedTools", "'Bash(sleep:*)'"]);
    pane.wait_for("manual mode on");
    pane.type_text("wait a while");
    pane.keys(&["Enter"]);
    pane.wait_for("Bash(sleep 30)");
    let started = Instant::now();
    pane.keys(&["Escape"]);
    pane.wait_for("Interrupted");
    assert!(started.elapsed() < Duration::from_secs(10), "the interrupt took too long");
    pane.type_text("go on");
    pane.keys(&["Enter"]);
    pane.wait_for("Second answer.");
    let reqs = server.requests();
    let text = reqs[1].body["messages"].to_string();
    assert!(text.contains("Interrupted by user"), "the interrupted call was answered: {text}");
}

#[test]
fn shift_tab_cycles_the_mode_and_slash_commands_answer() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.keys(&["BTab"]);
    pane.wait_for("accept edits on");
    // A narrower terminal: the live area is drawn again at the new width.
    pane.tmux(&["resize-window", "-t", "t", "-x", "60"]);
    pane.wait_for("accept edits on");
    pane.keys(&["BTab"]);
    pane.wait_for("plan mode on");
    pane.type_text("/cost");
    pane.keys(&["Enter"]);
    pane.wait_for("Total cost:");
    pane.type_text("/exit");
    pane.keys(&["Enter"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !pane.dead() {
        assert!(Instant::now() < deadline, "/exit did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn custom_commands_and_bang_commands_work_in_the_terminal() {
    let env = Env::new();
    env.write(".claude/commands/hello.md", "---\ndescription: Say hello\n---\nSay hello to $ARGUMENTS\n");
    let server = serve(Scenario::new([reply([text("Hello, Ada!")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("!echo bang-output");
    pane.keys(&["Enter"]);
    pane.wait_for("bang-output");
    pane.type_text("/hello Ada");
    pane.keys(&["Enter"]);
    pane.wait_for("Hello, Ada!");
    let first = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("Say hello to Ada"), "{first}");
    assert!(first.contains("bang-output"), "the !cmd output joins the next prompt: {first}");
}

#[test]
fn continue_shows_the_earlier_conversation_and_carries_it_on() {
    let env = Env::new();
    let first = serve(Scenario::new([reply([text("The first answer.")])]));
    let out = env.rein_at(&first).args(["-p", "the first question"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let server = serve(Scenario::new([reply([text("The second answer.")])]));
    let pane = Pane::start(&env, &server, &["-c"]);
    pane.wait_for("the first question");
    pane.wait_for("The first answer.");
    pane.wait_for("Resumed a conversation");
    pane.type_text("/context");
    pane.keys(&["Enter"]);
    pane.wait_for("Compaction starts at");
    pane.type_text("and now?");
    pane.keys(&["Enter"]);
    pane.wait_for("The second answer.");
    let messages = server.requests()[0].body["messages"].to_string();
    assert!(messages.contains("the first question") && messages.contains("and now?"), "{messages}");
}

#[test]
fn resume_without_an_id_offers_the_sessions() {
    let env = Env::new();
    let first = serve(Scenario::new([reply([text("Old answer.")])]));
    env.rein_at(&first).args(["-p", "an old question"]).output().unwrap();
    let server = serve(Scenario::new([reply([text("New answer.")])]));
    let pane = Pane::start(&env, &server, &["-r"]);
    pane.wait_for("1. an old question");
    pane.type_text("1");
    pane.keys(&["Enter"]);
    pane.wait_for("Old answer.");
    pane.wait_for("manual mode on");
}

#[test]
fn the_status_line_setting_runs_its_command_with_the_session_facts() {
    let env = Env::new();
    let settings = json!({"statusLine": {"type": "command", "command": "jq -r '\"status: \" + .model.id + \" $\" + (.cost.total_cost_usd|tostring)'"}});
    env.write(".claude/settings.json", &settings.to_string());
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start(&env, &server, &["--model", "claude-status-test"]);
    pane.wait_for("status: claude-status-test $0");
}

#[test]
fn tab_completes_a_slash_command() {
    let env = Env::new();
    env.write(".claude/commands/deploy-check.md", "Check the deploy\n");
    let server = serve(Scenario::new([reply([text("Checked.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("/depl");
    pane.keys(&["Tab"]);
    pane.wait_for("❯ /deploy-check");
    pane.keys(&["Enter"]);
    pane.wait_for("Checked.");
    let first = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("Check the deploy"), "{first}");
}

#[test]
fn hooks_agents_and_memory_are_listed() {
    let env = Env::new();
    env.write("CLAUDE.md", "Use tabs.\n");
    env.write(".claude/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews diffs\n---\nYou review.\n");
    let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]});
    env.write(".claude/settings.json", &json!({"hooks": hooks}).to_string());
    let server = serve(Scenario::new([reply([text("hi")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    for (command, expected) in
        [("/hooks", "PreToolUse [Bash] true"), ("/agents", "reviewer: Reviews diffs"), ("/memory list", "CLAUDE.md")]
    {
        pane.type_text(command);
        pane.keys(&["Enter"]);
        pane.wait_for(expected);
    }
}

#[test]
fn prompts_are_remembered_across_sessions_and_found_with_ctrl_r() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("first done")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("remember this prompt");
    pane.keys(&["Enter"]);
    pane.wait_for("first done");
    drop(pane);
    let server = serve(Scenario::new([reply([text("second done")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.keys(&["C-r"]);
    pane.type_text("remember");
    pane.wait_for("(reverse-i-search)`remember': remember this prompt");
    pane.keys(&["Enter"]);
    pane.wait_for("second done");
    let first = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("remember this prompt"), "{first}");
}

#[test]
fn an_at_mention_completes_and_attaches_the_file() {
    let env = Env::new();
    env.write("src/parser_helpers.rs", "fn helper() {} // the helper body\n");
    env.write("README.md", "readme\n");
    let server = serve(Scenario::new([reply([text("Seen it.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("explain @prshlp");
    pane.wait_for("@src/parser_helpers.rs");
    pane.keys(&["Tab"]);
    pane.wait_for("❯ explain @src/parser_helpers.rs");
    pane.keys(&["Enter"]);
    pane.wait_for("Seen it.");
    let first = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("the helper body"), "the mentioned file is attached: {first}");
}

#[test]
fn ctrl_o_shows_the_whole_output_and_q_closes_it() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("s", "Bash", json!({"command": "seq 101 112"}))]),
        reply([text("Counted.")]),
    ]));
    let pane = Pane::start(&env, &server, &["--allowedTools", "'Bash(seq:*)'"]);
    pane.wait_for("manual mode on");
    pane.type_text("count");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Counted.");
    assert!(screen.contains("… +9 lines (ctrl+o to expand)") && !screen.contains("     112"), "{screen}");
    pane.keys(&["C-o"]);
    let overlay = pane.wait_for("transcript: lines");
    assert!(overlay.contains("     112"), "the whole output: {overlay}");
    pane.keys(&["q"]);
    pane.wait_for("manual mode on");
}

#[test]
fn esc_esc_goes_back_to_an_earlier_prompt() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([text("Answer one.")]),
        reply([text("Answer two.")]),
        reply([text("Answer again.")]),
    ]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    for (prompt, answer) in [("the first prompt", "Answer one."), ("the second prompt", "Answer two.")] {
        pane.type_text(prompt);
        pane.keys(&["Enter"]);
        pane.wait_for(answer);
    }
    pane.esc_esc();
    pane.wait_for("Go back to before which prompt?");
    pane.wait_for("2. the second prompt");
    pane.keys(&["Up", "Enter"]);
    pane.wait_for("❯ the first prompt");
    pane.keys(&["Enter"]);
    pane.wait_for("Answer again.");
    let messages = server.requests()[2].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 1, "the conversation went back to before the first prompt: {messages:?}");
}

#[test]
fn permissions_and_memory_are_edited_from_the_session() {
    let env = Env::new();
    let editor = env.write("edit.sh", "#!/bin/sh\necho '- written in the editor' >> \"$1\"\n");
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let server = serve(Scenario::new([
        reply([call("t", "Bash", json!({"command": "touch allowed.txt"}))]),
        reply([text("Touched.")]),
    ]));
    let pane = Pane::start_with(&env, &server, &format!("EDITOR='{}'", editor.display()), &[]);
    pane.wait_for("manual mode on");
    pane.type_text("/memory");
    pane.keys(&["Enter"]);
    pane.wait_for("new sessions read it");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(env.cwd().join("CLAUDE.md")).unwrap_or_default().contains("written in the editor") {
        assert!(Instant::now() < deadline, "the editor did not run");
        std::thread::sleep(Duration::from_millis(50));
    }
    pane.wait_for("manual mode on");
    pane.type_text("/permissions allow Bash(touch:*)");
    pane.keys(&["Enter"]);
    pane.wait_for("Added Bash(touch:*) to the allow list");
    assert!(settings_local(env.cwd()).contains("Bash(touch:*)"));
    pane.type_text("touch it");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("Touched.");
    assert!(env.cwd().join("allowed.txt").exists(), "{screen}");
    assert!(!screen.contains("Do you want to proceed?"), "{screen}");
}

#[test]
fn a_refusal_can_carry_a_note_for_the_model() {
    let env = Env::new();
    let server = serve(Scenario::new([
        reply([call("a", "Bash", json!({"command": "touch nope.txt"}))]),
        reply([text("I will use echo.")]),
    ]));
    let pane = Pane::start(&env, &server, &["'try it'"]);
    pane.wait_for("Do you want to proceed?");
    pane.keys(&["Tab"]);
    pane.type_text("use echo instead");
    pane.wait_for("✎ use echo instead");
    pane.keys(&["Escape"]);
    let screen = pane.wait_for("I will use echo.");
    assert!(screen.contains("% context used ("), "the footer shows the context used: {screen}");
    assert!(screen.contains("claude-opus"), "and the model: {screen}");
    let result = server.requests()[1].body["messages"][2]["content"][0].clone();
    assert!(result["content"].as_str().unwrap().contains("use echo instead"), "{result}");
}

#[test]
fn config_lists_settings_and_resume_switches_sessions() {
    let env = Env::new();
    env.write(".claude/settings.json", "{}");
    let first = serve(Scenario::new([reply([text("Earlier answer.")])]));
    env.rein_at(&first).args(["-p", "an earlier question"]).output().unwrap();
    let server = serve(Scenario::new([reply([text("unused")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("/config");
    pane.keys(&["Enter"]);
    pane.wait_for("project:");
    pane.type_text("/resume");
    pane.keys(&["Enter"]);
    pane.wait_for("1. an earlier question");
    pane.keys(&["Enter"]);
    pane.wait_for("Earlier answer.");
    pane.wait_for("Resumed a conversation");
}

#[test]
fn thinking_is_collapsed_and_ctrl_o_shows_it() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([thinking("weighing the secret plan", "sig"), text("Decided.")])]));
    let pane = Pane::start(&env, &server, &["'think'"]);
    let screen = pane.wait_for("Decided.");
    assert!(screen.contains("✻ Thought for 24 characters") && !screen.contains("weighing"), "{screen}");
    pane.keys(&["C-o"]);
    pane.wait_for("weighing the secret plan");
    pane.keys(&["Escape"]);
    pane.wait_for("manual mode on");
}

#[test]
fn clear_starts_a_new_session() {
    let env = Env::new();
    let server = serve(Scenario::new([reply([text("One.")]), reply([text("Two.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    pane.type_text("first");
    pane.keys(&["Enter"]);
    pane.wait_for("One.");
    pane.type_text("/clear");
    pane.keys(&["Enter"]);
    pane.wait_for("Started a new session");
    pane.type_text("second");
    pane.keys(&["Enter"]);
    pane.wait_for("Two.");
    let messages = server.requests()[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 1, "{messages:?}");
    let projects = env.home.path().join(".rein/projects");
    let transcripts: usize = std::fs::read_dir(&projects)
        .unwrap()
        .flatten()
        .map(|d| {
            std::fs::read_dir(d.path())
                .unwrap()
                .flatten()
                .filter(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
                .count()
        })
        .sum();
    assert_eq!(transcripts, 2, "each session has its transcript");
}

/// `rein demo` in a terminal is the interactive session, offline on the scripted model.
#[test]
fn the_demo_runs_in_the_interactive_session() {
    let env = Env::new();
    let server = serve(Scenario::new(Vec::<rein_testkit::Step>::new()));
    let pane = Pane::start(&env, &server, &["demo", "--scripted"]);
    pane.wait_for("Ran 4 tests");
    pane.wait_for("Do you want to proceed?");
    pane.keys(&["1"]);
    pane.wait_for("The push failed");
    assert!(server.requests().is_empty(), "the scripted model sends nothing");
}

/// SessionStart hooks run as the interactive session opens, before any prompt (as in
/// Claude Code), and what they add goes with the first prompt.
#[test]
fn session_start_hooks_run_when_the_session_opens() {
    let env = Env::new();
    let marker = env.cwd().join("opened.txt");
    let hook = format!("touch '{}'; echo OPENING-CONTEXT", marker.display());
    let hooks = json!({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": hook}]}]}});
    env.write(".claude/settings.json", &hooks.to_string());
    let server = serve(Scenario::new([reply([text("Answered.")])]));
    let pane = Pane::start(&env, &server, &[]);
    pane.wait_for("manual mode on");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !marker.exists() {
        assert!(std::time::Instant::now() < deadline, "SessionStart did not run before the first prompt");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(server.requests().is_empty());
    pane.type_text("hello");
    pane.keys(&["Enter"]);
    pane.wait_for("Answered.");
    let first = server.requests()[0].body["messages"][0]["content"].to_string();
    assert!(first.contains("OPENING-CONTEXT"), "{first}");
}
